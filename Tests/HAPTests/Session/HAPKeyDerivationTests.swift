import Crypto
import Testing

@testable import HAP

/// hap-protocol.md §3.3, §3.4 and §5.
struct HAPKeyDerivationTests {
    /// The SRP session key K from the hap-protocol.md §3.3 vector.
    static let srpSessionKeyHex =
        "4a10fb5105232fd1de71083eaa7faaaec2c16870b0c11ca815398d70ebdaef25"
        + "f187433dd495b9bf205d13064fc0d61fa3cde0d7273e933fce42efd65be4a631"

    private static func hex(_ key: SymmetricKey) -> String {
        TestVector.hex(key.withUnsafeBytes { Array($0) })
    }

    @Test func derivesThePairSetupEncryptionKeyFromTheVector() throws {
        let k = try TestVector.bytes(hex: Self.srpSessionKeyHex)
        #expect(k.count == 64)
        let key = HAPKeyDerivation.pairSetupEncryptionKey(srpSessionKey: k)
        #expect(Self.hex(key) == "4334df142c5021d26d2803e338f4a28688193465b65cdf41eab9599f58df86b1")
    }

    @Test func derivesTheControllerSigningMaterialFromTheVector() throws {
        let k = try TestVector.bytes(hex: Self.srpSessionKeyHex)
        let key = HAPKeyDerivation.pairSetupControllerSigningKey(srpSessionKey: k)
        #expect(Self.hex(key) == "398e6a487f251b82e72fa87f2ee5939e048b201e65b4774f20bdf15ff85c48e5")
    }

    @Test func derivesTheAccessorySigningMaterialFromTheVector() throws {
        let k = try TestVector.bytes(hex: Self.srpSessionKeyHex)
        let key = HAPKeyDerivation.pairSetupAccessorySigningKey(srpSessionKey: k)
        #expect(Self.hex(key) == "e6268dfaeaf5a4d50f14e43b6b932887c6a11a261557095c228d6ce468421d96")
    }

    @Test func derivesThirtyTwoByteKeysMatchingHKDFWithTheNamedStrings() throws {
        let secret = [UInt8](repeating: 7, count: 32)
        let expected = HKDF<SHA512>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: secret),
            salt: Array("Pair-Verify-Encrypt-Salt".utf8),
            info: Array("Pair-Verify-Encrypt-Info".utf8),
            outputByteCount: 32
        )
        let key = HAPKeyDerivation.pairVerifyEncryptionKey(sharedSecret: secret)
        #expect(key.bitCount == 256)
        #expect(key == expected)
    }

    @Test func derivesWhatSwiftCryptosHKDFDerivesForAnyInput() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 16, 31, 32, 33, 64, 127, 128, 129, 384] {
            let secret = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let salt = String((0..<(length % 40)).map { _ in "abcdef-".randomElement() ?? "a" })
            let info = length % 2 == 0 ? "Control-Read-Encryption-Key" : ""
            let key = HAPKeyDerivation.deriveKey(inputKeyMaterial: secret, salt: salt, info: info)
            let reference = HAPKeyDerivation.swiftCryptoKey(inputKeyMaterial: secret, salt: salt, info: info)
            #expect(key == reference, "secret of \(length) bytes")
            #expect(key.bitCount == 256)
        }
    }

    @Test func derivesSessionKeysFromTheControlSaltAndInfo() {
        let secret = [UInt8](repeating: 9, count: 32)
        let keys = SessionKeys(sharedSecret: secret)
        let read = HAPKeyDerivation.deriveKey(
            inputKeyMaterial: secret,
            salt: "Control-Salt",
            info: "Control-Read-Encryption-Key"
        )
        let write = HAPKeyDerivation.deriveKey(
            inputKeyMaterial: secret,
            salt: "Control-Salt",
            info: "Control-Write-Encryption-Key"
        )
        #expect(keys.accessoryToController == read)
        #expect(keys.controllerToAccessory == write)
        #expect(read != write)
    }

    @Test func givesEachRoleThePeersWriteKeyAsItsReadKey() {
        let keys = SessionKeys(sharedSecret: [UInt8](repeating: 1, count: 32))
        #expect(keys.writeKey(for: .accessory) == keys.readKey(for: .controller))
        #expect(keys.writeKey(for: .controller) == keys.readKey(for: .accessory))
        #expect(keys.writeKey(for: .accessory) == keys.accessoryToController)
    }

    @Test func acceptsAnX25519SharedSecretDirectly() throws {
        let accessory = Curve25519.KeyAgreement.PrivateKey()
        let controller = Curve25519.KeyAgreement.PrivateKey()
        let accessorySecret = try accessory.sharedSecretFromKeyAgreement(with: controller.publicKey)
        let controllerSecret = try controller.sharedSecretFromKeyAgreement(with: accessory.publicKey)
        let accessoryKeys = SessionKeys(sharedSecret: accessorySecret)
        let controllerKeys = SessionKeys(sharedSecret: controllerSecret)
        #expect(accessoryKeys.writeKey(for: .accessory) == controllerKeys.readKey(for: .controller))
        #expect(
            HAPKeyDerivation.pairVerifyEncryptionKey(sharedSecret: accessorySecret)
                == HAPKeyDerivation.pairVerifyEncryptionKey(sharedSecret: controllerSecret)
        )
    }

    @Test func keepsKeysOutOfDescriptions() {
        let keys = SessionKeys(sharedSecret: [UInt8](repeating: 0xAB, count: 32))
        let keyHex = Self.hex(keys.accessoryToController)
        for text in [String(describing: keys), String(reflecting: keys), "\(keys)"] {
            #expect(!text.lowercased().contains(keyHex))
            #expect(!text.contains("171"))
        }
        var dumped = ""
        dump(keys, to: &dumped)
        #expect(!dumped.lowercased().contains(keyHex))
    }
}
