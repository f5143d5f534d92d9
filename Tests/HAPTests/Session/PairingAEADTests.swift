import Crypto
import Testing

@testable import HAP

/// hap-protocol.md §3.4: pairing sub-TLVs sealed with ChaCha20-Poly1305 and 8-byte ASCII nonces.
struct PairingAEADTests {
    private let key = SymmetricKey(data: [UInt8](repeating: 0x42, count: 32))

    @Test func sealsAndOpensEveryPairingNonce() throws {
        let payload: [UInt8] = Array("sub-TLV payload".utf8)
        for nonce in PairingNonce.allCases {
            let sealed = try PairingAEAD.seal(payload, using: key, nonce: nonce)
            #expect(sealed.count == payload.count + 16)
            #expect(try PairingAEAD.open(sealed, using: key, nonce: nonce) == payload)
        }
    }

    @Test func matchesChaChaPolyWithFourZeroBytesBeforeTheASCIINonce() throws {
        let payload: [UInt8] = [1, 2, 3, 4, 5]
        for pairingNonce in PairingNonce.allCases {
            let nonce = try ChaChaPoly.Nonce(data: [0, 0, 0, 0] + Array(pairingNonce.rawValue.utf8))
            let box = try ChaChaPoly.seal(payload, using: key, nonce: nonce)
            let expected = Array(box.ciphertext) + Array(box.tag)
            #expect(try PairingAEAD.seal(payload, using: key, nonce: pairingNonce) == expected)
            #expect(try PairingAEAD.open(expected, using: key, nonce: pairingNonce) == payload)
        }
    }

    @Test func refusesTheWrongNonce() throws {
        let sealed = try PairingAEAD.seal([9, 9, 9], using: key, nonce: .pairVerifyM2)
        #expect(throws: PairingAEADError.authenticationFailed) {
            try PairingAEAD.open(sealed, using: key, nonce: .pairVerifyM3)
        }
    }

    @Test func refusesTheWrongKeyAndChangedBytes() throws {
        let sealed = try PairingAEAD.seal([9, 9, 9], using: key, nonce: .pairSetupM6)
        let otherKey = SymmetricKey(data: [UInt8](repeating: 0x43, count: 32))
        #expect(throws: PairingAEADError.authenticationFailed) {
            try PairingAEAD.open(sealed, using: otherKey, nonce: .pairSetupM6)
        }
        for index in sealed.indices {
            var changed = sealed
            changed[index] ^= 0x01
            #expect(throws: PairingAEADError.authenticationFailed) {
                try PairingAEAD.open(changed, using: key, nonce: .pairSetupM6)
            }
        }
    }

    @Test func refusesInputShorterThanTheTag() {
        #expect(throws: PairingAEADError.tooShort(byteCount: 15)) {
            try PairingAEAD.open([UInt8](repeating: 0, count: 15), using: key, nonce: .pairSetupM5)
        }
    }

    @Test func opensAnEmptyPayloadSealedAsTheTagAlone() throws {
        let sealed = try PairingAEAD.seal([UInt8](), using: key, nonce: .pairSetupM5)
        #expect(sealed.count == 16)
        #expect(try PairingAEAD.open(sealed, using: key, nonce: .pairSetupM5) == [])
    }

    @Test func refusesAKeyThatIsNotThirtyTwoBytes() {
        let shortKey = SymmetricKey(size: .bits128)
        #expect(throws: PairingAEADError.invalidKeySize(16)) {
            try PairingAEAD.seal([1], using: shortKey, nonce: .pairSetupM5)
        }
        #expect(throws: PairingAEADError.invalidKeySize(16)) {
            try PairingAEAD.open([UInt8](repeating: 0, count: 20), using: shortKey, nonce: .pairSetupM5)
        }
    }
}
