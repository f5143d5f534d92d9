import Crypto
import TestSupport
import Testing

@testable import HAP

/// hap-protocol.md §5: the encrypted frames of a verified session.
struct SessionCipherTests {
    private static let keys = SessionKeys(sharedSecret: [UInt8](repeating: 0x5A, count: 32))

    /// A connected pair: what the accessory seals, the controller opens, and back.
    private static func pair() -> (accessory: SessionCipher, controller: SessionCipher) {
        (SessionCipher(keys: keys, role: .accessory), SessionCipher(keys: keys, role: .controller))
    }

    private static func message(length: Int, seed: UInt64 = 1) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The plaintext lengths of the frames in `sealed`, read from the length fields.
    private static func frameLengths(_ sealed: [UInt8]) -> [Int] {
        var lengths = [Int]()
        var index = 0
        while index + 2 <= sealed.count {
            let length = Int(sealed[index]) | Int(sealed[index + 1]) << 8
            lengths.append(length)
            index += 2 + length + 16
        }
        return lengths
    }

    @Test func roundTripsEveryLengthUpToThreeThousandBytes() throws {
        var (accessory, controller) = Self.pair()
        let source = Self.message(length: 3000)
        for length in 0...3000 {
            let plaintext = Array(source[0..<length])
            let sealed = accessory.seal(plaintext)
            let frameCount = (length + 1023) / 1024
            #expect(sealed.count == length + frameCount * 18)
            #expect(try controller.open(sealed) == plaintext)
            #expect(controller.bufferedByteCount == 0)
        }
    }

    @Test func sealingIntoABufferWritesTheSameFramesAsSealingIntoAnArray() throws {
        var intoArray = SessionCipher(keys: Self.keys, role: .accessory)
        var intoBuffer = SessionCipher(keys: Self.keys, role: .accessory)
        var controller = SessionCipher(keys: Self.keys, role: .controller)
        let source = Self.message(length: 2100, seed: 7)
        for length in [1, 17, 1023, 1024, 1025, 2048, 2100, 0] {
            let plaintext = Array(source[0..<length])
            let expected = intoArray.seal(plaintext)
            let count = SessionCipher.sealedByteCount(plaintextCount: length)
            #expect(count == expected.count)
            var output = [UInt8](repeating: 0xEE, count: count + 5)
            let written = plaintext.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { intoBuffer.seal(input, into: $0) }
            }
            #expect(written == count)
            #expect(Array(output[0..<written]) == expected)
            #expect(output[written...].allSatisfy { $0 == 0xEE })
            #expect(try controller.open(output[0..<written]) == plaintext)
        }
    }

    @Test("Splits messages into frames of at most 1024 bytes: 1024, 1025, 2048, 3000")
    func splitsLongMessagesIntoFrames() throws {
        let expectations: [Int: [Int]] = [
            1: [1], 1024: [1024], 1025: [1024, 1], 2048: [1024, 1024], 3000: [1024, 1024, 952],
        ]
        for (length, frames) in expectations {
            var (accessory, controller) = Self.pair()
            let plaintext = Self.message(length: length)
            let sealed = accessory.seal(plaintext)
            #expect(Self.frameLengths(sealed) == frames)
            #expect(try controller.open(sealed) == plaintext)
        }
    }

    @Test func sealsAnEmptyMessageAsNoFrames() throws {
        var (accessory, controller) = Self.pair()
        #expect(accessory.seal([UInt8]()) == [])
        #expect(try controller.open([UInt8]()) == [])
        let next = accessory.seal([1, 2, 3])
        #expect(try controller.open(next) == [1, 2, 3])
    }

    @Test func opensTheSameBytesAtEverySplitPointAndOneByteAtATime() throws {
        var (accessory, _) = Self.pair()
        let plaintext = Self.message(length: 2100, seed: 7)
        let sealed = accessory.seal(plaintext) + accessory.seal(Array(plaintext.prefix(5)))
        let expected = plaintext + plaintext.prefix(5)

        var whole = Self.pair().controller
        #expect(try whole.open(sealed) == expected)

        for split in 0...sealed.count {
            var controller = Self.pair().controller
            var opened = try controller.open(sealed[..<split])
            opened += try controller.open(sealed[split...])
            #expect(opened == expected, "split at \(split)")
        }

        var byteByByte = Self.pair().controller
        var opened = [UInt8]()
        for byte in sealed {
            opened += try byteByByte.open(CollectionOfOne(byte))
        }
        #expect(opened == expected)
        #expect(byteByByte.bufferedByteCount == 0)
    }

    @Test func opensPiecesOfRandomSizes() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        var (accessory, controller) = Self.pair()
        var sealed = [UInt8]()
        var expected = [UInt8]()
        for _ in 0..<50 {
            let plaintext = Self.message(length: Int.random(in: 0...2500, using: &generator), seed: generator.next())
            sealed += accessory.seal(plaintext)
            expected += plaintext
        }
        var opened = [UInt8]()
        var index = 0
        while index < sealed.count {
            let end = min(sealed.count, index + Int.random(in: 0...1500, using: &generator))
            opened += try controller.open(sealed[index..<end])
            index = end
        }
        #expect(opened == expected, "seed \(seed)")
    }

    @Test func acceptsCollectionsWithoutContiguousStorage() throws {
        var (accessory, controller) = Self.pair()
        let plaintext = Self.message(length: 1500, seed: 3)
        let sealed = accessory.seal(plaintext.lazy.map { $0 })
        #expect(try controller.open(sealed.lazy.map { $0 }) == plaintext)
        let repeated = accessory.seal(repeatElement(UInt8(0x2A), count: 2000))
        #expect(try controller.open(repeated) == [UInt8](repeating: 0x2A, count: 2000))
    }

    @Test func holdsBackNoMoreThanOnePartialFrame() throws {
        var (accessory, controller) = Self.pair()
        var sealed = [UInt8]()
        for _ in 0..<20 {
            sealed += accessory.seal(Self.message(length: 1024))
        }
        var index = 0
        while index < sealed.count {
            let end = min(sealed.count, index + 700)
            _ = try controller.open(sealed[index..<end])
            #expect(controller.bufferedByteCount < SessionCipher.maximumFrameLength + SessionCipher.frameOverhead)
            index = end
        }
        #expect(controller.bufferedByteCount == 0)
    }

    @Test func advancesTheCounterWithEveryFrame() throws {
        var (accessory, controller) = Self.pair()
        let first = accessory.seal([1, 2, 3])
        let second = accessory.seal([1, 2, 3])
        #expect(first != second)
        #expect(try controller.open(first) == [1, 2, 3])
        #expect(try controller.open(second) == [1, 2, 3])
    }

    @Test func usesTheFrameCounterAsTheNonceAndTheLengthAsAssociatedData() throws {
        var accessory = Self.pair().accessory
        _ = accessory.seal([0])
        let sealed = accessory.seal([10, 20, 30])
        let nonce = try ChaChaPoly.Nonce(data: [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        let box = try ChaChaPoly.seal(
            [10, 20, 30] as [UInt8],
            using: Self.keys.accessoryToController,
            nonce: nonce,
            authenticating: [3, 0] as [UInt8]
        )
        #expect(sealed == [3, 0] + Array(box.ciphertext) + Array(box.tag))
    }

    @Test func refusesAFrameOpenedOutOfOrder() throws {
        var (accessory, controller) = Self.pair()
        _ = accessory.seal([1])
        let second = accessory.seal([2])
        #expect(throws: SessionCipherError.authenticationFailed) { try controller.open(second) }
    }

    @Test func failsForEverAfterAFlippedBitInLengthCiphertextOrTag() throws {
        var accessory = Self.pair().accessory
        let sealed = accessory.seal(Self.message(length: 100))
        let followUp = accessory.seal([7, 7, 7])
        // Padding completes a frame whose length grew, so every flip is caught, not just left waiting.
        let padding = [UInt8](repeating: 0, count: 1100)
        for index in sealed.indices {
            for bit in 0..<8 {
                var changed = sealed
                changed[index] ^= UInt8(1) << bit
                var controller = Self.pair().controller
                #expect(throws: SessionCipherError.self, "byte \(index) bit \(bit)") {
                    try controller.open(changed + padding)
                }
                #expect(controller.isFailed)
                #expect(throws: SessionCipherError.self) { try controller.open(followUp) }
            }
        }
    }

    @Test func failsEveryLaterCallAfterABadTag() throws {
        var (accessory, controller) = Self.pair()
        var sealed = accessory.seal([1, 2, 3])
        sealed[sealed.count - 1] ^= 0x80
        #expect(throws: SessionCipherError.authenticationFailed) { try controller.open(sealed) }
        #expect(controller.isFailed)
        var fresh = Self.pair().accessory
        let good = fresh.seal([1, 2, 3])
        #expect(throws: SessionCipherError.authenticationFailed) { try controller.open(good) }
        #expect(throws: SessionCipherError.authenticationFailed) { try controller.open([UInt8]()) }
    }

    @Test func openingIntoAnArrayAppendsTheSamePlaintextAndLeavesItAsItWasOnABadTag() throws {
        var (accessory, controller) = Self.pair()
        var plaintext: [UInt8] = [9, 9]
        for length in [1, 100, 1024, 1025, 2500] {
            let message = Self.message(length: length, seed: UInt64(length))
            let sealed = accessory.seal(message)
            // In two pieces: the first ends inside a frame, so only the second completes it. The first goes
            // through the generic form, the second through the one for bytes in memory.
            try controller.open(sealed[..<(sealed.count / 2)], appendingTo: &plaintext)
            let second = Array(sealed[(sealed.count / 2)...])
            try second.withUnsafeBytes { bytes in try controller.open(bytes, appendingTo: &plaintext) }
            #expect(plaintext == [9, 9] + message)
            plaintext = [9, 9]
        }
        var tampered = accessory.seal([1, 2, 3]) + accessory.seal([4, 5, 6])
        tampered[tampered.count - 1] ^= 0x01
        #expect(throws: SessionCipherError.authenticationFailed) {
            try controller.open(tampered, appendingTo: &plaintext)
        }
        #expect(plaintext == [9, 9])
        #expect(controller.isFailed)
        // A good frame followed by a bad length field: the call fails and keeps none of the good frame either.
        var (sender, receiver) = Self.pair()
        let good = sender.seal([1, 2, 3])
        #expect(throws: SessionCipherError.invalidFrameLength(1025)) {
            try receiver.open(good + [0x01, 0x04], appendingTo: &plaintext)
        }
        #expect(plaintext == [9, 9])
    }

    @Test("Refuses a frame length of 1025 as soon as the length field arrives")
    func refusesAnOversizedLength() throws {
        var controller = Self.pair().controller
        #expect(throws: SessionCipherError.invalidFrameLength(1025)) {
            try controller.open([0x01, 0x04])
        }
        #expect(throws: SessionCipherError.invalidFrameLength(1025)) { try controller.open([0]) }
    }

    @Test func refusesAFrameLengthOfZero() throws {
        var controller = Self.pair().controller
        #expect(throws: SessionCipherError.invalidFrameLength(0)) {
            try controller.open([UInt8](repeating: 0, count: 18))
        }
        #expect(controller.isFailed)
    }

    @Test func refusesAFrameSealedWithAnotherKey() throws {
        var stranger = SessionCipher(
            keys: SessionKeys(sharedSecret: [UInt8](repeating: 0x11, count: 32)),
            role: .accessory
        )
        var controller = Self.pair().controller
        #expect(throws: SessionCipherError.authenticationFailed) {
            try controller.open(stranger.seal([1, 2, 3]))
        }
    }

    @Test func refusesAFrameSealedWithItsOwnWriteKey() throws {
        var (accessory, _) = Self.pair()
        var sameRole = Self.pair().accessory
        #expect(throws: SessionCipherError.authenticationFailed) {
            try sameRole.open(accessory.seal([1, 2, 3]))
        }
    }

    @Test func carriesBothDirectionsWithIndependentCounters() throws {
        var (accessory, controller) = Self.pair()
        for round in 0..<5 {
            let request = Array("GET /accessories \(round)".utf8)
            #expect(try accessory.open(controller.seal(request)) == request)
            let response = Self.message(length: 1500 + round, seed: UInt64(round))
            #expect(try controller.open(accessory.seal(response)) == response)
            #expect(try controller.open(accessory.seal([UInt8(round)])) == [UInt8(round)])
        }
    }

    @Test func survivesRandomAndMutatedInput() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("SessionCipherTests.survivesRandomAndMutatedInput seed: \(seed)")
        var generator = SplitMix64(seed: seed)
        var sealer = Self.pair().accessory
        let validFrames = (0..<8).map { sealer.seal(Self.message(length: 1 + $0 * 300, seed: UInt64($0))) }
        var failures = 0
        for _ in 0..<100_000 {
            var input: [UInt8]
            if Bool.random(using: &generator) {
                input = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                input = validFrames[Int.random(in: 0..<validFrames.count, using: &generator)]
                for _ in 0..<Int.random(in: 0...3, using: &generator) where !input.isEmpty {
                    let index = Int.random(in: 0..<input.count, using: &generator)
                    input[index] = UInt8.random(in: 0...255, using: &generator)
                }
                if Bool.random(using: &generator) {
                    input.removeLast(Int.random(in: 0...input.count, using: &generator))
                }
            }
            var controller = Self.pair().controller
            var index = 0
            while index < input.count {
                let end = min(input.count, index + Int.random(in: 1...64, using: &generator))
                do {
                    _ = try controller.open(input[index..<end])
                } catch {
                    failures += 1
                    break
                }
                index = end
            }
        }
        #expect(failures > 0, "seed \(seed)")
    }

    @Test func keepsKeysOutOfItsDescription() {
        let cipher = Self.pair().accessory
        let keyHex = TestVector.hex(Self.keys.accessoryToController.withUnsafeBytes { Array($0) })
        #expect(!String(describing: cipher).lowercased().contains(keyHex))
        var dumped = ""
        dump(cipher, to: &dumped)
        #expect(!dumped.lowercased().contains(keyHex))
        #expect(String(describing: cipher).hasPrefix("SessionCipher("))
    }
}
