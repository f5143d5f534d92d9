import AtomicFiles
import DNSSD
import Foundation
import HAP
import HAPController
import HAPTypes
import HearthAPI
import HomeGraph
import HomeStore
import Hub
import Testing

@testable import HubServer

/// The shapes of a program's insides that a message for people must never show: a Swift enum case with its
/// payload (`aboveMaximum(value:`), a module or type prefix, a synthesized key, a bare HAP type code (`(1D)`),
/// Apple's base UUID, an optional's wrapper, a Swift error type's name.
enum InternalShapes {
    static var patterns: [(name: String, regex: Regex<Substring>)] {
        [
            ("an enum case with a payload", /[a-z]+[A-Z][a-zA-Z]*\(/),
            ("a module prefix", /\b(?:HAP|Swift|Foundation|HomeGraph|Hub|HubServer)\./),
            ("a synthesized key", /_0/),
            ("a bare HAP type code", /\([0-9A-F]{1,8}\)/),
            ("a HAP type UUID", /0026BB765291/),
            ("an optional", /Optional\(/),
            ("a Swift error type", /[A-Z][a-z]+[A-Z][A-Za-z]*Error\b/),
        ]
    }

    /// The first inside shape `message` shows, or `nil` when it shows none.
    static func found(in message: String) -> String? {
        patterns.first { message.contains($0.regex) }?.name
    }
}

/// Every refusal a client can get for a write, against the real server: one sentence naming the characteristic as
/// the catalog does and what it allows, never a Swift enum dump (issue 20).
@Suite(.serialized) struct ErrorMessageTests {
    /// A temperature sensor: Current Temperature is read-only.
    static func sensor(roomID: UUID) -> Accessory {
        Accessory(
            id: UUID(),
            name: "Hall Sensor",
            roomID: roomID,
            category: .sensor,
            services: [
                Service(
                    id: UUID(),
                    name: "Hall Sensor",
                    type: HAPUUID(apple: 0x8A),
                    instanceID: 10,
                    isPrimary: true,
                    characteristics: [
                        Characteristic(
                            id: UUID(),
                            type: HAPUUID(apple: 0x11),
                            instanceID: 11,
                            format: .float,
                            permissions: [.read, .notify],
                            metadata: CharacteristicMetadata(minValue: -270, maxValue: 100, minStep: 0.1),
                            value: .float(20)
                        )
                    ]
                )
            ]
        )
    }

    @Test func everyBadWriteIsAnsweredWithASentenceThatNamesTheCharacteristic() async throws {
        let fixture = try await Fixture()
        let sensor = Self.sensor(roomID: fixture.home.roomForEntireHome.id)
        try await fixture.hub.perform(.addAccessory(home: fixture.home.id, accessory: sensor), as: .hub)
        let temperature = sensor.services[0].characteristics[0].id
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        let on = fixture.onCharacteristic.id
        let brightness = fixture.brightness.id
        let unknown = UUID()
        let cases: [(id: UUID, body: String, status: Int, code: String, message: String)] = [
            (on, #"{"value": "yes"}"#, 400, "invalidValue", #"On must be true or false (got "yes")"#),
            (brightness, #"{"value": 150}"#, 400, "invalidValue", "Brightness must be between 0 and 100 (got 150)"),
            (brightness, #"{"value": 1000}"#, 400, "invalidValue", "Brightness must be between 0 and 100 (got 1000)"),
            (brightness, #"{"value": -5}"#, 400, "invalidValue", "Brightness must be between 0 and 100 (got -5)"),
            (brightness, #"{"value": 50.5}"#, 400, "invalidValue", "Brightness must be a whole number (got 50.5)"),
            (
                brightness, #"{"value": "bright"}"#, 400, "invalidValue",
                #"Brightness must be a whole number (got "bright")"#
            ),
            (temperature, #"{"value": 21}"#, 400, "invalidValue", "Current Temperature is read-only"),
            (unknown, #"{"value": true}"#, 404, "notFound", "no characteristic with id \(unknown.uuidString)"),
            (
                brightness, #"{"value": 1e400}"#, 400, "invalidRequest",
                "field 'value': the number 1e400 is out of range"
            ),
            (
                brightness, #"{"value": -1e400}"#, 400, "invalidRequest",
                "field 'value': the number -1e400 is out of range"
            ),
            (brightness, #"{"value": "#, 400, "invalidRequest", "the body is not valid JSON"),
            (brightness, #"{"value": 50, "unit": "%"}"#, 400, "invalidRequest", "field 'unit' is not known here"),
            // What a client sent is quoted with its control characters shown, not sent on to a terminal, and cut.
            (
                brightness, #"{"value": 50, "a\u001b[31m\u202e": 1}"#, 400, "invalidRequest",
                #"field 'a\u{1B}[31m\u{202E}' is not known here"#
            ),
            (
                brightness, #"{"value": 50, "\#(String(repeating: "x", count: 500))": 1}"#, 400, "invalidRequest",
                "field '\(String(repeating: "x", count: 160))…' is not known here"
            ),
            (
                brightness, #"{"value": null}"#, 400, "invalidRequest",
                "field 'value' is not valid: a characteristic value must be true, false, a number or a string"
            ),
        ]
        try await fixture.withServer { api in
            for item in cases {
                let reply = try await api.call(
                    .put,
                    "/v1/homes/{homeID}/characteristics/{characteristicID}",
                    ["homeID": h, "characteristicID": item.id.uuidString],
                    token: o,
                    body: item.body
                )
                #expect(reply.status == item.status, "\(item.body): \(reply.text)")
                #expect(reply.errorCode == item.code, "\(item.body): \(reply.text)")
                #expect(reply.errorMessage == item.message, "\(item.body)")
                #expect(InternalShapes.found(in: reply.errorMessage) == nil, "\(item.body): \(reply.errorMessage)")
            }
            // In a batch, the message says which write it is about.
            let reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics",
                ["homeID": h],
                token: o,
                body: #"""
                    {"writes": [{"characteristicID": "\#(on)", "value": true},
                                {"characteristicID": "\#(brightness)", "value": 150}]}
                    """#
            )
            #expect(reply.status == 400 && reply.errorCode == "invalidValue", "\(reply.text)")
            #expect(reply.errorMessage == "writes[1]: Brightness must be between 0 and 100 (got 150)")
            // One characteristic twice: refused, not collapsed into one result.
            let twice = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics",
                ["homeID": h],
                token: o,
                body: #"""
                    {"writes": [{"characteristicID": "\#(on)", "value": true},
                                {"characteristicID": "\#(on)", "value": false}]}
                    """#
            )
            #expect(twice.status == 400 && twice.errorCode == "invalidRequest", "\(twice.text)")
            #expect(twice.errorMessage == "field 'writes[1]': characteristic \(on) is written twice in one request")
            // A path's id is quoted cut to 64 characters, a scene kind with its control characters shown.
            let badID = try await api.call(
                .get,
                "/v1/homes/{homeID}",
                ["homeID": String(repeating: "A", count: 100)],
                token: o
            )
            #expect(badID.status == 404, "\(badID.text)")
            #expect(badID.errorMessage == "no home with id \(String(repeating: "A", count: 64))…")
            let kind = try await api.call(
                .get,
                "/v1/homes/{homeID}/actionSets/kinds/{kind}",
                ["homeID": h, "kind": "x%1B%5B2J"],
                token: o
            )
            #expect(kind.errorMessage.hasPrefix(#"kind 'x\u{1B}[2J' is not a built-in kind"#), "\(kind.text)")
        }
    }

    @Test func aJSONNumberBeyondADoubleIsNamedInTheMessage() {
        func message(_ text: String) -> String? {
            do {
                _ = try JSONBody.decode(WriteValueBody.self, from: Data(text.utf8))
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message(#"{"value": 1e400}"#) == "field 'value': the number 1e400 is out of range")
        #expect(message(#"{"value": [1, 2e999]}"#) == "field 'value': the number 2e999 is out of range")
        #expect(message(#"{"v\"1e400": 1e400}"#) == #"field 'v\"1e400': the number 1e400 is out of range"#)
        #expect(message(#"{"value": "1e400"}"#) == nil, "a string is no number")
        #expect(message(#"{"value": 1e400"#) == "field 'value': the number 1e400 is out of range")
    }
}

/// A trigger's body as the API reads it: every refusal names its field and says what is allowed.
@Suite struct TriggerBodyMessageTests {
    static func message(_ definition: String) -> String? {
        do {
            _ = try JSONBody.decode(
                CreateTriggerBody.self,
                from: Data(#"{"name": "A", "definition": \#(definition)}"#.utf8)
            )
            return nil
        } catch {
            return error.message
        }
    }

    static let event = #"{"characteristic": {"id": "0A1B2C3D-0000-0000-0000-000000000000"}}"#

    @Test func aDecimalOrOverflowingWholeNumberNamesItsFieldAndRange() {
        let cases: [(String, String)] = [
            (
                #"{"events": [\#(Self.event)], "catchUpSeconds": 1.5}"#,
                "field 'definition.catchUpSeconds' must be a whole number from 0 to 86400, not 1.5"
            ),
            (
                #"{"timer": {"fireDate": "2026-12-01T07:00", "recurrence": {"every": {"count": 1.5, "unit": "day"}}}}"#,
                "field 'definition.timer.recurrence.every.count' must be a whole number from 1 to 10000"
            ),
            (
                #"{"events": [{"significantTime": {"sun": "sunset", "offsetSeconds": 99999999999999999999999}}]}"#,
                "field 'definition.events[0].significantTime.offsetSeconds' must be a whole number from -43200 to 43200"
            ),
            (
                #"{"timer": {"fireDate": "2026-12-01T07:00", "recurrence": {"daysOfMonth": [3, 1.5]}}}"#,
                "field 'definition.timer.recurrence.daysOfMonth[1]' must be a whole number from 1 to 31, not 1.5"
            ),
            (
                #"{"events": [{"duration": {"condition": {"time": {"after": "18:00"}}, "seconds": 1.5}}]}"#,
                "field 'definition.events[0].duration.seconds' must be a whole number from 1 to 604800"
            ),
        ]
        for (definition, expected) in cases {
            let message = Self.message(definition) ?? "accepted"
            #expect(message.hasPrefix(expected), "\(definition): \(message)")
        }
        // An event object with an unknown key, none or two lists the keys it may have, as a condition does.
        for events in [#"[{"earthquake": {}}]"#, "[{}]", #"[{"calendar": {"time": "07:30"}, "duration": {}}]"#] {
            let message = Self.message(#"{"events": \#(events)}"#) ?? "accepted"
            #expect(
                message == "field 'definition.events[0]' must be an event: an object with one of the keys "
                    + "characteristic, threshold, calendar, significantTime, presence, location, duration",
                "\(events): \(message)"
            )
        }
        // A fireDate's example is a form the hub accepts (a local time, no zone).
        let fireDate = Self.message(#"{"timer": {"fireDate": "2026-12-01T07:00Z"}}"#) ?? "accepted"
        #expect(fireDate.hasPrefix("field 'definition.timer.fireDate' is not valid: "), "\(fireDate)")
        let example = fireDate.components(separatedBy: " like ").last.map { String($0.prefix(19)) } ?? ""
        #expect(LocalDateTime(example) != nil && !fireDate.hasSuffix("Z"), "\(fireDate)")
        // A whole number written with a fraction of zero is still whole.
        #expect(Self.message(#"{"events": [\#(Self.event)], "catchUpSeconds": 60}"#) == nil)
    }
}

/// Every case of the errors a person can be shown becomes a sentence with no Swift type, enum case or HAP type code.
@Suite struct ErrorSentenceTests {
    static let id = UUID()
    static let brightness = HAPUUID(apple: 0x08)
    static let custom = HAPUUID(apple: 0xFFFF_FF01)

    static let valueErrors: [ValueError] = [
        .typeMismatch(format: .bool, value: .string("yes")),
        .typeMismatch(format: .data, value: .int(3)),
        .outOfFormatRange(format: .uint8, value: .int(256)),
        .outOfFormatRange(format: .bool, value: .int(2)),
        .notWhole(format: .int, value: 50.5),
        .notFinite(.infinity),
        .notFinite(.nan),
        .invalidBase64(format: .data),
        .belowMinimum(value: -1, minimum: 0, maximum: 100),
        .belowMinimum(value: -1, minimum: 0, maximum: nil),
        .aboveMaximum(value: 1000, minimum: 0, maximum: 100),
        .aboveMaximum(value: 1000, minimum: nil, maximum: 100),
        .offStep(value: 20.05, base: -50, step: 0.1),
        .offStep(value: 3, base: 0, step: 2),
        .stringTooLong(length: 80, maximum: 64),
        .dataTooLong(length: 9, maximum: 8),
        .notAValidValue(value: .int(7), validValues: [0, 1, 2]),
        .outsideValidRange(value: .int(9), range: 0...3),
        .notReadable(HAPUUID(apple: 0x14)),
        .notWritable(HAPUUID(apple: 0x1D)),
        .notWritable(custom),
        .notificationNotSupported(brightness),
        .timedWriteRequired(HAPUUID(apple: 0x1E)),
        .authorizationDataRequired(HAPUUID(apple: 0x1E)),
        .hidden(brightness),
    ]

    static let graphErrors: [HomeGraphError] =
        [
            .notFound(.actionSet, id),
            .nameTaken(name: "Kitchen", existing: ObjectReference(.serviceGroup, id)),
            .invalidName(" ", .nothingVisible),
            .invalidName(String(repeating: "a", count: 65), .tooLong(65)),
            .invalidName("a" + String(repeating: "\u{301}", count: 1100), .tooManyCodePoints(1100)),
            .invalidName("a\u{7}", .controlCharacter(7)),
            .invalidName("a\u{202E}", .bidiControl(0x202E)),
            .idTaken(ObjectReference(.zone, id)),
            .roomForEntireHome(id),
            .invalidLocation(Location(latitude: 99, longitude: 0)),
            .invalidTimeZone("Mars/Olympus"),
            .ownerExists(id),
            .builtInActionSetExists(.sleep, existing: id),
            .builtInActionSetNotRemovable(.sleep, name: "Sleep", id: id),
            .duplicateAction(characteristicID: id),
            .invalidBridge(id),
            .outOfRange(field: "presenceRadius", problem: "the radius must be 10 to 100000 metres"),
        ] + valueErrors.map { .invalidValue($0, characteristicType: brightness) }
        + valueErrors.map { .invalidValue($0, characteristicType: custom) }

    static let controllerErrors: [HAPControllerError] = [
        .wrongSetupCode,
        .alreadyPaired,
        .pairingRefused(.maxTries),
        .pairingFailed(.invalidAccessoryProof),
        .pairingFailed(.accessoryRefused(.busy, state: 2)),
        .pairingFailed(.malformedResponse(.missingItem(tag: .state))),
        .verificationFailed(.invalidSignature),
        .unreachable(host: "192.0.2.1", port: 51826),
        .timedOut,
        .connectionClosed,
        .malformedResponse(.malformedStatusLine),
        .sessionFailed(.authenticationFailed),
        .sessionFailed(.invalidFrameLength(2000)),
        .malformedBody,
        .unexpectedHTTPStatus(code: 500, status: .resourceBusy),
        .unexpectedHTTPStatus(code: 500, status: nil),
        .accessoryRefused(.readOnlyCharacteristic),
        .unknownCharacteristic(CharacteristicID(accessoryID: 1, instanceID: 10)),
        .characteristicNotFound(nil),
        .closed,
        .store(.systemCallFailed(operation: "rename", code: EACCES)),
        .store(.unreadable(file: "AA.json")),
    ]

    static let storeErrors: [HomeStoreError] = [
        .stateFolder(path: "/tmp/x", code: EACCES),
        .notPrivate(
            PrivateFolderError(path: "/tmp/x", reason: "belongs to another user (uid 1001); use a folder of your own")
        ),
        .invalidDeviceKey(path: "/tmp/x/device.key"),
        .newerSchema,
        .database(code: 11, message: "database disk image is malformed"),
        .sealFailed(table: "operation", sequence: 4),
        .unencodable(table: "operation", sequence: 4),
        .undecodable(table: "snapshot", sequence: 0),
        .missingOperation(expected: 4, found: 6),
        .replayFailed(sequence: 4, .invalidValue(.notWritable(brightness), characteristicType: brightness)),
        .closed,
    ]

    static let hubErrors: [HubError] =
        [
            .notPermitted("shared users cannot configure the home"),
            .homeNotFound(id),
            .accessoryNotFound("AA:BB:CC:00:11:22"),
            .stopped,
            .invalidRequest("field 'port' must be 1...65535"),
            .internalError("the type catalog is unreadable"),
        ] + graphErrors.map { .rejected($0) } + graphErrors.map { .invalidWrite(index: 1, count: 2, $0) }
        + storeErrors.map { .storage($0) }
        + controllerErrors.map { .accessory($0) }

    @Test func aLongOrHostileTimeZoneIsQuotedShort() {
        let long = APIError(HubError.rejected(.invalidTimeZone(String(repeating: "x", count: 100_000)))).message
        #expect(long.count < 120 && long.hasSuffix("…'"), "\(long.prefix(200))")
        let hostile = APIError(HubError.rejected(.invalidTimeZone("Mars\u{1B}[2J\u{202E}"))).message
        #expect(hostile == #"field 'timeZone': no time zone is called 'Mars\u{1B}[2J\u{202E}'"#, "\(hostile)")
    }

    @Test func everyValueErrorIsASentence() {
        for error in Self.valueErrors {
            for message in [error.description, error.message(naming: "Brightness")] {
                #expect(InternalShapes.found(in: message) == nil, "\(message)")
                #expect(message.contains(" "), "\(message)")
            }
        }
    }

    @Test func everyHubGraphStoreAndAccessoryErrorIsASentence() {
        for error in Self.hubErrors {
            let message = APIError.sentence(for: error)
            #expect(InternalShapes.found(in: message) == nil, "\(message)")
            #expect(message == APIError(error).message)
        }
        for error in Self.controllerErrors {
            #expect(InternalShapes.found(in: error.description) == nil, "\(error.description)")
        }
        for status in HAPStatus.allCases {
            #expect(InternalShapes.found(in: status.description) == nil, "\(status.description)")
            #expect(!status.description.contains("\(status.rawValue)"))
        }
    }

    @Test func theLowerLayersErrorsThatProgramsPrintAreSentences() {
        let messages: [String] =
            [SetupCodeError.invalidFormat, .trivial, .outOfRange].map(\.description)
            + [
                SetupPayloadError.invalidScheme, .invalidLength(3), .invalidCharacter, .unsupportedVersion(2),
                .unknownCategory(99), .invalidSetupCode(.trivial),
            ].map(\.description)
            + [
                MDNSError.noInterfaces, .alreadyRegistered, .notRegistered, .tooManyConflicts,
                .socketSetupFailed(interface: IPv4Address(127, 0, 0, 1), errorCode: EADDRNOTAVAIL),
                .invalidService(.stringTooLong(length: 300)),
            ].map(\.description)
            + [
                DatabaseError.noAccessories, .tooManyAccessories(count: 151, maximum: 150), .invalidAccessoryID(0),
                .invalidInstanceID(accessoryID: 1, instanceID: 0), .missingAccessoryInformation(accessoryID: 2),
                .unknownLinkedService(accessoryID: 1, serviceID: 10, linkedID: 99),
                .inconsistentMetadata(CharacteristicID(accessoryID: 1, instanceID: 10)),
                .invalidValue(CharacteristicID(accessoryID: 1, instanceID: 10), .notWhole(format: .int, value: 1.5)),
            ].map(\.description)
            + [
                CatalogError.malformed("line 3"), .duplicateName("light"), .unknownService("toaster"),
                .unknownCharacteristic("warmth"), .characteristicNotInService(service: "fan", characteristic: "hue"),
                .undefinedCharacteristic(service: "fan", characteristic: "spin"),
            ].map(\.description)
        for message in messages {
            #expect(InternalShapes.found(in: message) == nil, "\(message)")
            #expect(message.contains(" "), "\(message)")
        }
    }

    @Test func aValueErrorNamesTheCharacteristicAsTheCatalogDoes() {
        let error = HubError.rejected(
            .invalidValue(.aboveMaximum(value: 150, minimum: 0, maximum: 100), characteristicType: Self.brightness)
        )
        #expect(APIError(error).message == "Brightness must be between 0 and 100 (got 150)")
        #expect(APIError(error).code == "invalidValue" && APIError(error).status == .badRequest)
        #expect(ValueError.notWritable(HAPUUID(apple: 0x1D)).description == "Lock Current State is read-only")
        #expect(ValueError.notReadable(HAPUUID(apple: 0x14)).description == "Identify cannot be read: it is write-only")
        #expect(ValueError.notWritable(Self.custom).description == "this characteristic is read-only")
        #expect(
            ValueError.typeMismatch(format: .bool, value: .string("yes")).message(naming: "On")
                == #"On must be true or false (got "yes")"#
        )
        #expect(
            ValueError.offStep(value: 20.05, base: -50, step: 0.1).message(naming: "Target Temperature")
                == "Target Temperature must be -50 plus a multiple of 0.1 (got 20.05)"
        )
        #expect(APIError.notFound("actionSet", "X").message == "no action set with id X")
    }
}
