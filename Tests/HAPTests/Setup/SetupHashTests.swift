import Testing

@testable import HAP
@testable import HAPTypes

/// hap-protocol.md §8: the `sh` setup hash.
struct SetupHashTests {
    @Test func hashesTheFirstVector() throws {
        let hash = SetupHash(setupID: try SetupID("7OSX"), deviceID: try DeviceID("E1:91:1A:70:85:AA"))
        #expect(hash.bytes == [0xC9, 0xFE, 0x1B, 0xCF])
        #expect(hash.base64 == "yf4bzw==")
    }

    @Test func hashesTheSecondVector() throws {
        let hash = SetupHash(setupID: try SetupID("7OSX"), deviceID: try DeviceID("C8:D8:58:C6:63:F5"))
        #expect(hash.bytes == [0xEF, 0x5D, 0x8E, 0x9B])
        #expect(hash.description == "712Omw==")
    }

    @Test func hashesTheUpperCaseDeviceIDWhateverCaseItWasParsedFrom() throws {
        let hash = SetupHash(setupID: try SetupID("7OSX"), deviceID: try DeviceID("e1:91:1a:70:85:aa"))
        #expect(hash.base64 == "yf4bzw==")
    }

    @Test func encodesBase64WithPadding() {
        #expect(SetupHash.base64Encoded([]) == "")
        #expect(SetupHash.base64Encoded(Array("f".utf8)) == "Zg==")
        #expect(SetupHash.base64Encoded(Array("fo".utf8)) == "Zm8=")
        #expect(SetupHash.base64Encoded(Array("foo".utf8)) == "Zm9v")
        #expect(SetupHash.base64Encoded(Array("foob".utf8)) == "Zm9vYg==")
        #expect(SetupHash.base64Encoded([0xFF, 0xFE, 0xFD, 0xFC]) == "//79/A==")
    }
}
