import Foundation
import TestSupport
import Testing

@testable import HAP
@testable import HAPTypes

/// The hand-written JSON of plain reads and events must be byte for byte what JSONEncoder writes.
@Suite struct ReadResponseJSONTests {
    static func randomItem(_ random: inout SplitMix64) -> CharacteristicReadResponse.Item {
        let values: [HAPValue?] = [
            nil, .bool(random.next() & 1 == 0), .int(Int64(bitPattern: random.next())), .uint(random.next()),
            .float(Double(Int64(bitPattern: random.next() >> 20)) / 8), .string("a\"b\\c\u{1}é"), .data([1, 2, 3]),
        ]
        var item = CharacteristicReadResponse.Item(
            accessoryID: random.next() % 200,
            instanceID: random.next(),
            value: values[Int(random.next() % UInt64(values.count))],
            includesNullValue: random.next() & 1 == 0,
            status: random.next() % 3 == 0
                ? HAPStatus.allCases[Int(random.next() % UInt64(HAPStatus.allCases.count))] : nil
        )
        if random.next() % 5 == 0 { item.isNotifying = true }
        if random.next() % 7 == 0 { item.minValue = 0 }
        return item
    }

    @Test func plainResponsesAreWrittenByHandExactlyAsJSONEncoderWritesThem() throws {
        var random = SplitMix64(seed: 42)
        var handWritten = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for _ in 0..<5_000 {
            let count = Int(random.next() % 4)
            let response = CharacteristicReadResponse(
                characteristics: (0..<count).map { _ in Self.randomItem(&random) }
            )
            let reference = try encoder.encode(response)
            if let plain = response.plainJSON() {
                handWritten += 1
                #expect(Data(plain) == reference, "\(String(decoding: plain, as: UTF8.self))")
            }
            #expect(try HAPJSON.encode(response) == reference)
        }
        #expect(handWritten > 500)
    }

    /// A controller's write bodies: hand-written when plain, and then byte for byte what JSONEncoder writes.
    @Test func plainWriteRequestsAreWrittenByHandExactlyAsJSONEncoderWritesThem() throws {
        var random = SplitMix64(seed: 43)
        var handWritten = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let flags: [Bool?] = [nil, true, false]
        for _ in 0..<5_000 {
            let count = Int(random.next() % 4)
            let items = (0..<count).map { _ in
                let values: [HAPValue?] = [
                    nil, .bool(random.next() & 1 == 0), .int(Int64(bitPattern: random.next())), .uint(random.next()),
                    .float(Double(Int64(bitPattern: random.next() >> 20)) / 8), .string("a\"b/c"), .data([1, 2]),
                ]
                return CharacteristicWriteRequest.Item(
                    accessoryID: random.next() % 200,
                    instanceID: random.next(),
                    value: values[Int(random.next() % UInt64(values.count))],
                    events: flags[Int(random.next() % 3)],
                    requestsResponse: flags[Int(random.next() % 3)],
                    authorizationData: random.next() % 9 == 0 ? [1, 2, 3] : nil,
                    isRemote: random.next() % 9 == 0 ? true : nil
                )
            }
            let request = CharacteristicWriteRequest(
                characteristics: items,
                preparedWriteID: random.next() % 3 == 0 ? random.next() : nil
            )
            let reference = try encoder.encode(request)
            if let plain = request.plainJSON() {
                handWritten += 1
                #expect(Data(plain) == reference, "\(String(decoding: plain, as: UTF8.self))")
            }
            #expect(try HAPJSON.encode(request) == reference)
        }
        #expect(handWritten > 500)
    }

    /// Whatever the hand-written reader accepts, `JSONDecoder` reads the same; what it gives up on, it leaves.
    @Test func plainBodiesAreReadByHandExactlyAsJSONDecoderReadsThem() throws {
        var random = SplitMix64(seed: 7)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var readByHand = 0
        var mutantsReadByHand = 0
        for round in 0..<5_000 {
            let count = Int(random.next() % 4)
            let response = CharacteristicReadResponse(
                characteristics: (0..<count).map { _ in Self.randomItem(&random) }
            )
            var body = Array(try encoder.encode(response))
            if round % 3 == 0 {
                // JSON allows whitespace between tokens; peers add it.
                body = body.flatMap { [UInt8(ascii: ","), UInt8(ascii: ":")].contains($0) ? [$0, 0x20] : [$0] }
            }
            if round % 4 == 1, !body.isEmpty {
                // A damaged body: one byte changed, mostly to one that means something in JSON.
                let meaningful = Array("0123456789 ,:{}[]\"-.eatrufl".utf8)
                body[Int(random.next() % UInt64(body.count))] =
                    random.next() % 4 == 0
                    ? UInt8(truncatingIfNeeded: random.next())
                    : meaningful[Int(random.next() % UInt64(meaningful.count))]
            }
            let reference = try? JSONDecoder().decode(CharacteristicReadResponse.self, from: Data(body))
            if let plain = CharacteristicReadResponse(plainJSON: body) {
                if round % 4 == 1 { mutantsReadByHand += 1 } else { readByHand += 1 }
                #expect(plain == reference, "\(String(decoding: body, as: UTF8.self))")
            }
            #expect((try? HAPJSON.decodeReadResponse(body)) == reference)
        }
        #expect(readByHand > 500)
        #expect(mutantsReadByHand > 10)
    }

    @Test func theHandReaderGivesUpOnWhatItDoesNotKnow() {
        let refused = [
            #"{"characteristics":[{"aid":1,"iid":2,"value":1.5}]}"#,
            #"{"characteristics":[{"aid":1,"iid":2,"value":"on"}]}"#,
            #"{"characteristics":[{"aid":1,"iid":2,"value":01}]}"#,
            #"{"characteristics":[{"aid":1,"iid":2,"value":- 1}]}"#,
            #"{"characteristics":[{"aid":1,"iid":2,"ev":true}]}"#,
            #"{"characteristics":[{"aid":1,"iid":2,"status":12345}]}"#,
            #"{"characteristics":[{"aid":1,"iid":2,"value":truex}]}"#,
            #"{"characteristics":[{"aid":1,"value":true}]}"#,
            #"{"characteristics":[{"aid":1,"iid":2}]} x"#,
            #"{"characteristics":[{"aid":1,"iid":2,"value":99999999999999999999}]}"#,
        ]
        for body in refused {
            #expect(CharacteristicReadResponse(plainJSON: Array(body.utf8)) == nil, "\(body)")
        }
        let accepted = CharacteristicReadResponse(
            plainJSON: Array(#" { "characteristics" : [ {"iid":2, "aid":1, "value":null, "status":-70402} ] } "#.utf8)
        )
        #expect(
            accepted?.characteristics == [
                .init(
                    accessoryID: 1,
                    instanceID: 2,
                    value: nil,
                    includesNullValue: true,
                    status: .serviceCommunicationFailure
                )
            ]
        )
    }
}
