import Crypto
import Foundation
import Testing

@testable import HomeStore

/// The store's kept-context cipher against swift-crypto's `ChaChaPoly`, whose layout the rows on disk have.
struct RowCipherTests {
    let key = SymmetricKey(size: .bits256)
    let aad = Data("hearth.homestore.v1/operation/42".utf8)

    @Test func rowsSealedEitherWayOpenTheOtherWay() throws {
        let cipher = RowCipher(key: key)
        for length in [0, 1, 63, 64, 65, 4096] {
            let plaintext = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let sealed = try #require(cipher.seal(plaintext, authenticating: aad))
            #expect(sealed.count == plaintext.count + 12 + 16)
            let box = try ChaChaPoly.SealedBox(combined: sealed)
            #expect(try ChaChaPoly.open(box, using: key, authenticating: aad) == plaintext)
            let theirs = try ChaChaPoly.seal(plaintext, using: key, authenticating: aad).combined
            #expect(cipher.open(theirs, authenticating: aad) == plaintext)
        }
    }

    @Test func eachSealHasItsOwnNonce() throws {
        let cipher = RowCipher(key: key)
        let plaintext = Data("the same row".utf8)
        let nonces = try (0..<100).map { _ in try #require(cipher.seal(plaintext, authenticating: aad)).prefix(12) }
        #expect(Set(nonces).count == 100)
    }

    @Test func aChangedByteAnotherPlaceAnotherKeyOrAShortRowDoesNotOpen() throws {
        let cipher = RowCipher(key: key)
        let sealed = try #require(cipher.seal(Data("on".utf8), authenticating: aad))
        for index in sealed.indices {
            var changed = sealed
            changed[index] ^= 0x01
            #expect(cipher.open(changed, authenticating: aad) == nil, "byte \(index) changed")
        }
        #expect(cipher.open(sealed, authenticating: Data("hearth.homestore.v1/operation/43".utf8)) == nil)
        #expect(RowCipher(key: SymmetricKey(size: .bits256)).open(sealed, authenticating: aad) == nil)
        #expect(cipher.open(sealed.prefix(27), authenticating: aad) == nil)
        #expect(cipher.open(Data(), authenticating: aad) == nil)
    }
}
