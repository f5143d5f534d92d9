import TestSupport
import Testing

@testable import HAP
@testable import HAPTypes

/// hap-protocol.md §8.1: the `X-HM://` setup payload.
struct SetupPayloadTests {
    @Test func encodesTheVectorWithCodeSetupIDAndIP() throws {
        let payload = SetupPayload(
            setupCode: try SetupCode("518-08-582"),
            setupID: try SetupID("7OSX"),
            category: .outlet,
            supportsIP: true
        )
        #expect(payload.uri == "X-HM://0071WK4SM7OSX")
    }

    @Test func encodesTheVectorWithoutCodeOrSetupID() {
        let payload = SetupPayload(setupCode: nil, setupID: nil, category: .outlet, supportsIP: true)
        #expect(payload.uri == "X-HM://00711PP1C0000")
    }

    @Test func encodesTheVectorOfAPairedAccessory() {
        let payload = SetupPayload(setupCode: nil, setupID: nil, category: .outlet, supportsIP: true, isPaired: true)
        #expect(payload.uri == "X-HM://00739MG3K0000")
    }

    @Test func encodesTheVectorOfABluetoothOnlyAccessory() throws {
        let payload = SetupPayload(
            setupCode: try SetupCode("518-08-582"),
            setupID: try SetupID("7OSX"),
            category: .outlet,
            supportsIP: false,
            supportsBLE: true
        )
        #expect(payload.uri == "X-HM://0076CDMX27OSX")
    }

    @Test func parsesEveryVectorBackToItsFields() throws {
        let withCode = try SetupPayload("X-HM://0071WK4SM7OSX")
        #expect(withCode.setupCode == (try SetupCode("518-08-582")))
        #expect(withCode.setupID == (try SetupID("7OSX")))
        #expect(withCode.category == .outlet)
        #expect(withCode.supportsIP && !withCode.supportsBLE && !withCode.isPaired)

        let bare = try SetupPayload("X-HM://00711PP1C0000")
        #expect(bare.setupCode == nil && bare.setupID == nil && bare.supportsIP && !bare.isPaired)

        let paired = try SetupPayload("X-HM://00739MG3K0000")
        #expect(paired.isPaired && paired.supportsIP && paired.category == .outlet)

        let ble = try SetupPayload("X-HM://0076CDMX27OSX")
        #expect(ble.supportsBLE && !ble.supportsIP)
        #expect(ble.setupCode?.formatted == "518-08-582")
    }

    @Test func acceptsTheSchemeInLowerCase() throws {
        #expect(try SetupPayload("x-hm://0071WK4SM7OSX").uri == "X-HM://0071WK4SM7OSX")
    }

    @Test func roundTripsRandomPayloads() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let payload = SetupPayload(
                setupCode: Bool.random(using: &generator) ? SetupCode.random(using: &generator) : nil,
                setupID: Bool.random(using: &generator) ? SetupID.random(using: &generator) : nil,
                category: try #require(AccessoryCategory.allCases.randomElement(using: &generator)),
                supportsIP: Bool.random(using: &generator),
                supportsBLE: Bool.random(using: &generator),
                isPaired: Bool.random(using: &generator)
            )
            let uri = payload.uri
            #expect(uri.utf8.count == 20, "seed \(seed)")
            #expect(try SetupPayload(uri) == payload, "seed \(seed)")
        }
    }

    @Test func rejectsMalformedURIs() {
        #expect(throws: SetupPayloadError.invalidScheme) { try SetupPayload("HTTP://0071WK4SM7OSX") }
        #expect(throws: SetupPayloadError.invalidScheme) { try SetupPayload("X-HM:/0071WK4SM7OSX") }
        #expect(throws: SetupPayloadError.invalidScheme) { try SetupPayload("") }
        #expect(throws: SetupPayloadError.invalidLength(12)) { try SetupPayload("X-HM://0071WK4SM7OS") }
        #expect(throws: SetupPayloadError.invalidLength(14)) { try SetupPayload("X-HM://0071WK4SM7OSXX") }
        #expect(throws: SetupPayloadError.invalidCharacter) { try SetupPayload("X-HM://0071wk4sm7OSX") }
        #expect(throws: SetupPayloadError.invalidCharacter) { try SetupPayload("X-HM://0071WK4SM7osx") }
        #expect(throws: SetupPayloadError.invalidCharacter) { try SetupPayload("X-HM://0071WK4S-7OSX") }
    }

    @Test func rejectsANonZeroVersion() {
        #expect(throws: SetupPayloadError.unsupportedVersion(1)) {
            try SetupPayload(Self.uri(value: 1 << 43 | 7 << 31 | 1 << 28))
        }
    }

    @Test func ignoresTheReservedBits() throws {
        let payload = try SetupPayload(Self.uri(value: 0xF << 39 | 7 << 31 | 1 << 30 | 1 << 28))
        #expect(payload.category == .outlet && payload.supportsIP)
    }

    @Test func rejectsAnUnknownCategory() {
        #expect(throws: SetupPayloadError.unknownCategory(0)) { try SetupPayload(Self.uri(value: 1 << 28)) }
        #expect(throws: SetupPayloadError.unknownCategory(37)) { try SetupPayload(Self.uri(value: 37 << 31)) }
    }

    @Test func rejectsAForbiddenOrOversizedSetupCode() {
        // 134,217,727 is the largest 27-bit code field, above 99,999,999.
        #expect(throws: SetupPayloadError.invalidSetupCode(.trivial)) {
            try SetupPayload(Self.uri(value: 7 << 31 | 1 << 28 | 11_111_111))
        }
        #expect(throws: SetupPayloadError.invalidSetupCode(.outOfRange)) {
            try SetupPayload(Self.uri(value: 7 << 31 | 1 << 28 | 134_217_727))
        }
    }

    @Test func keepsTheSetupCodeOutOfItsDescription() throws {
        let payload = SetupPayload(setupCode: try SetupCode("518-08-582"), setupID: nil, category: .bridge)
        #expect(!payload.description.contains("518"))
        #expect(payload.description.contains("redacted"))
        var dumped = ""
        dump(payload, to: &dumped)
        #expect(!dumped.contains("518"))
        #expect(dumped.contains("bridge"))
    }

    /// A payload URI built here, independently of `SetupPayload`, from the raw number and no setup ID.
    private static func uri(value: UInt64) -> String {
        let text = String(value, radix: 36, uppercase: true)
        return "X-HM://" + String(repeating: "0", count: 9 - text.count) + text + "0000"
    }
}

/// hap-protocol.md §10.
struct AccessoryCategoryTests {
    @Test func numbersTheCategoriesOneToThirtySix() {
        #expect(AccessoryCategory.allCases.map(\.rawValue) == Array(1...36))
        #expect(AccessoryCategory.bridge.rawValue == 2)
        #expect(AccessoryCategory.outlet.rawValue == 7)
        #expect(AccessoryCategory.switch.rawValue == 8)
        #expect(AccessoryCategory.television.rawValue == 31)
        #expect(AccessoryCategory.tvStreamingStick.rawValue == 36)
    }
}
