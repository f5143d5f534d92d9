import Crypto
import Foundation
import TestSupport
import Testing

@testable import HAP

/// The BoringSSL frame AEAD agrees with swift-crypto's ChaChaPoly byte for byte, and SessionCipher copies stay apart.
struct SessionFrameAEADTests {
    /// The HAP nonce for a frame counter: 4 zero bytes, then the counter little-endian.
    private static func nonce(_ counter: UInt64) throws -> ChaChaPoly.Nonce {
        try ChaChaPoly.Nonce(data: [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> ($0 * 8)) })
    }

    private static func bytes(_ count: Int, using generator: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private static func key(using generator: inout SplitMix64) -> SymmetricKey {
        SymmetricKey(data: bytes(32, using: &generator))
    }

    /// Counters at the edges of the 32-bit halves and random ones, including values of 2^32 and above.
    private static func counters(using generator: inout SplitMix64) -> [UInt64] {
        let twoToThe32: UInt64 = 1 << 32
        var counters: [UInt64] = [0, 1, 0xFFFF_FFFF, twoToThe32, twoToThe32 + 1, 0x0123_4567_89AB_CDEF]
        counters += [UInt64.max - 1, UInt64.max]
        for _ in 0..<8 {
            counters.append(UInt64.random(in: twoToThe32...UInt64.max, using: &generator))
            counters.append(UInt64.random(in: 0..<twoToThe32, using: &generator))
        }
        return counters
    }

    /// Seals with FrameAEAD; returns ciphertext and tag.
    private static func seal(
        _ aead: FrameAEAD,
        counter: UInt64,
        header: [UInt8],
        plaintext: [UInt8]
    ) -> (ok: Bool, ciphertext: [UInt8], tag: [UInt8]) {
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: SessionCipher.tagByteCount)
        let ok = aead.seal(
            counter: counter,
            header: header,
            plaintext: plaintext,
            length: plaintext.count,
            ciphertext: &ciphertext,
            tag: &tag
        )
        return (ok, ciphertext, tag)
    }

    /// Opens with FrameAEAD; returns the plaintext, or nil when the tag does not match.
    private static func open(
        _ aead: FrameAEAD,
        counter: UInt64,
        header: [UInt8],
        ciphertext: [UInt8],
        tag: [UInt8]
    ) -> [UInt8]? {
        var plaintext = [UInt8](repeating: 0xEE, count: ciphertext.count)
        let ok = aead.open(
            counter: counter,
            header: header,
            ciphertext: ciphertext,
            length: ciphertext.count,
            tag: tag,
            plaintext: &plaintext
        )
        if !ok {
            #expect(plaintext.allSatisfy { $0 == 0 }, "unauthenticated plaintext is wiped")
        }
        return ok ? plaintext : nil
    }

    @Test func sealsExactlyLikeChaChaPolyForEveryLengthAndWideCounters() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        for round in 0..<4 {
            let key = Self.key(using: &generator)
            let aead = FrameAEAD(key: key)
            let counters = Self.counters(using: &generator)
            for length in 1...SessionCipher.maximumFrameLength {
                let counter = counters[(length + round) % counters.count]
                let header = [UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8)]
                let plaintext = Self.bytes(length, using: &generator)
                let sealed = Self.seal(aead, counter: counter, header: header, plaintext: plaintext)
                let expected = try ChaChaPoly.seal(
                    plaintext,
                    using: key,
                    nonce: Self.nonce(counter),
                    authenticating: header
                )
                #expect(sealed.ok)
                #expect(sealed.ciphertext == Array(expected.ciphertext), "seed \(seed) length \(length)")
                #expect(sealed.tag == Array(expected.tag), "seed \(seed) length \(length)")
            }
        }
    }

    @Test func opensWhatChaChaPolySealedForEveryLengthAndWideCounters() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        for round in 0..<4 {
            let key = Self.key(using: &generator)
            let aead = FrameAEAD(key: key)
            let counters = Self.counters(using: &generator)
            for length in 1...SessionCipher.maximumFrameLength {
                let counter = counters[(length + round) % counters.count]
                let header = [UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8)]
                let plaintext = Self.bytes(length, using: &generator)
                let box = try ChaChaPoly.seal(
                    plaintext,
                    using: key,
                    nonce: Self.nonce(counter),
                    authenticating: header
                )
                let opened = Self.open(
                    aead,
                    counter: counter,
                    header: header,
                    ciphertext: Array(box.ciphertext),
                    tag: Array(box.tag)
                )
                #expect(opened == plaintext, "seed \(seed) length \(length) counter \(counter)")
            }
        }
    }

    @Test func refusesAWrongCounterHeaderCiphertextOrTag() throws {
        var generator = SplitMix64(seed: 42)
        let key = Self.key(using: &generator)
        let aead = FrameAEAD(key: key)
        let plaintext = Self.bytes(300, using: &generator)
        let header: [UInt8] = [0x2C, 0x01]
        let counter: UInt64 = 1 << 32
        let box = try ChaChaPoly.seal(plaintext, using: key, nonce: Self.nonce(counter), authenticating: header)
        let ciphertext = Array(box.ciphertext)
        let tag = Array(box.tag)
        #expect(Self.open(aead, counter: counter, header: header, ciphertext: ciphertext, tag: tag) == plaintext)
        // Only the high half of the counter differs: the whole 64 bits must be in the nonce.
        #expect(Self.open(aead, counter: 0, header: header, ciphertext: ciphertext, tag: tag) == nil)
        #expect(Self.open(aead, counter: counter, header: [0x2C, 0x02], ciphertext: ciphertext, tag: tag) == nil)
        var changed = ciphertext
        changed[150] ^= 1
        #expect(Self.open(aead, counter: counter, header: header, ciphertext: changed, tag: tag) == nil)
        var badTag = tag
        badTag[15] ^= 0x80
        #expect(Self.open(aead, counter: counter, header: header, ciphertext: ciphertext, tag: badTag) == nil)
        // A failed open leaves the context ready for the next frame.
        #expect(Self.open(aead, counter: counter, header: header, ciphertext: ciphertext, tag: tag) == plaintext)
        let other = FrameAEAD(key: Self.key(using: &generator))
        #expect(Self.open(other, counter: counter, header: header, ciphertext: ciphertext, tag: tag) == nil)
    }

    @Test func aCopyOfTheAEADSealsTheSame() throws {
        var generator = SplitMix64(seed: 9)
        let aead = FrameAEAD(key: Self.key(using: &generator))
        let copy = aead.copy()
        let plaintext = Self.bytes(1024, using: &generator)
        let first = Self.seal(aead, counter: 5, header: [0, 4], plaintext: plaintext)
        let second = Self.seal(copy, counter: 5, header: [0, 4], plaintext: plaintext)
        #expect(first.ok && second.ok)
        #expect(first.ciphertext == second.ciphertext && first.tag == second.tag)
    }

    @Test func aCopiedSessionCipherKeepsItsOwnCounters() throws {
        let keys = SessionKeys(sharedSecret: [UInt8](repeating: 0x33, count: 32))
        var accessory = SessionCipher(keys: keys, role: .accessory)
        var controller = SessionCipher(keys: keys, role: .controller)
        let first = accessory.seal([1, 2, 3])
        #expect(try controller.open(first) == [1, 2, 3])

        // Both copies share the contexts until one of them is used.
        var accessoryCopy = accessory
        var controllerCopy = controller
        #expect(accessory.sharedFrameAEADs(with: accessoryCopy) == (read: true, write: true))
        let second = accessory.seal([4, 5])
        // Sealing gave the original its own write context; the read context is shared until first used.
        #expect(accessory.sharedFrameAEADs(with: accessoryCopy) == (read: true, write: false))
        let copySecond = accessoryCopy.seal([4, 5])
        #expect(second == copySecond, "both copies continue from counter 1")
        #expect(try controller.open(second) == [4, 5])
        #expect(controller.sharedFrameAEADs(with: controllerCopy) == (read: false, write: true))
        #expect(try controllerCopy.open(copySecond) == [4, 5])

        // Now they diverge: the original is at counter 2 while the copy goes on separately.
        let third = accessory.seal([6])
        #expect(try controller.open(third) == [6])
        let copyThird = accessoryCopy.seal([7])
        let copyFourth = accessoryCopy.seal([8])
        #expect(try controllerCopy.open(copyThird + copyFourth) == [7, 8])
        #expect(try controller.open(accessory.seal([9])) == [9])
        #expect(String(describing: accessory).contains("sent: 4 frames"))
        #expect(String(describing: accessoryCopy).contains("sent: 4 frames"))
        #expect(String(describing: controllerCopy).contains("received: 4 frames"))
    }

    @Test func copiesUsedConcurrentlyStayCorrect() {
        let keys = SessionKeys(sharedSecret: [UInt8](repeating: 0x44, count: 32))
        let accessory = SessionCipher(keys: keys, role: .accessory)
        let controller = SessionCipher(keys: keys, role: .controller)
        let message = [UInt8](repeating: 0x5C, count: 5000)
        let threadCount = 4
        let results = ResultBox(count: threadCount)
        // Real threads at once, each with copies that share one pair of contexts until first used.
        DispatchQueue.concurrentPerform(iterations: threadCount) { thread in
            var sealer = accessory
            var opener = controller
            var correct = true
            for _ in 0..<500 where (try? opener.open(sealer.seal(message))) != message {
                correct = false
            }
            results.set(thread, correct)
        }
        #expect(results.values == [Bool](repeating: true, count: threadCount))
    }
}

/// Per-thread results of a concurrent test, guarded by a lock.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Bool]

    init(count: Int) {
        stored = [Bool](repeating: false, count: count)
    }

    var values: [Bool] { lock.withLock { stored } }

    func set(_ index: Int, _ value: Bool) {
        lock.withLock { stored[index] = value }
    }
}
