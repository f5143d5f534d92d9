import HAP
import TestSupport
import Testing

@Suite struct TLV8Tests {
    @Test func encodesShortItemsInOrder() {
        var message = TLV8()
        message.append(.state, byte: 1)
        message.append(.method, byte: 0)
        #expect(message.encoded() == [0x06, 0x01, 0x01, 0x00, 0x01, 0x00])
    }

    @Test func splitsAValueLongerThan255BytesIntoFragments() throws {
        let value = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = TLV8([.init(.publicKey, value)]).encoded()
        #expect(bytes.count == 300 + 4)
        #expect(bytes[0] == 0x03 && bytes[1] == 255)
        #expect(bytes[257] == 0x03 && bytes[258] == 45)
        let decoded = try TLV8(decoding: bytes)
        #expect(decoded[.publicKey] == value)
        #expect(decoded.items.count == 1)
    }

    @Test("a value of exactly 510 bytes is two full fragments with no empty trailer")
    func encodesAnExactMultipleOf255WithoutATrailingFragment() throws {
        let value = [UInt8](repeating: 7, count: 510)
        let bytes = TLV8([.init(.encryptedData, value)]).encoded()
        #expect(bytes.count == 514)
        #expect(try TLV8(decoding: bytes)[.encryptedData] == value)
    }

    @Test func encodesAnEmptyValueAsOneZeroLengthItem() throws {
        let bytes = TLV8([.init(.identifier, [])]).encoded()
        #expect(bytes == [0x01, 0x00])
        #expect(try TLV8(decoding: bytes)[.identifier] == [])
    }

    @Test func skipsNothingAndKeepsUnknownTags() throws {
        let decoded = try TLV8(decoding: [0x42, 0x01, 0x09, 0x06, 0x01, 0x02])
        #expect(decoded[TLV8.Tag(rawValue: 0x42)] == [9])
        #expect(try decoded.requireByte(.state) == 2)
    }

    @Test func rejectsAOneByteBuffer() {
        #expect(throws: TLV8Error.truncatedHeader(offset: 0)) { try TLV8(decoding: [0x06]) }
    }

    @Test func rejectsAHeaderCutShortAfterAnItem() {
        #expect(throws: TLV8Error.truncatedHeader(offset: 3)) { try TLV8(decoding: [0x06, 0x01, 0x01, 0x07]) }
    }

    @Test func rejectsALengthPastTheEnd() {
        #expect(throws: TLV8Error.truncatedValue(tag: .salt, offset: 0, declaredLength: 16)) {
            try TLV8(decoding: [0x02, 0x10, 0x00, 0x01])
        }
    }

    @Test func rejectsAContinuationAfterAShortFragment() {
        #expect(throws: TLV8Error.continuationAfterShortFragment(tag: .proof, offset: 3)) {
            try TLV8(decoding: [0x04, 0x01, 0xAA, 0x04, 0x01, 0xBB])
        }
    }

    @Test func rejectsAnEmptyContinuationFragment() {
        let bytes = [0x04, 0xFF] + [UInt8](repeating: 1, count: 255) + [0x04, 0x00]
        #expect(throws: TLV8Error.emptyContinuation(tag: .proof, offset: 257)) { try TLV8(decoding: bytes) }
    }

    @Test func rejectsATagRepeatedWithinOneRecord() {
        #expect(throws: TLV8Error.duplicateItem(tag: .state, offset: 6)) {
            try TLV8(decoding: [0x06, 0x01, 0x01, 0x00, 0x01, 0x00, 0x06, 0x01, 0x02])
        }
    }

    @Test func rejectsASeparatorWithAValue() {
        #expect(throws: TLV8Error.invalidLength(tag: .separator, expected: 0, actual: 1)) {
            try TLV8(decoding: [0xFF, 0x01, 0x00])
        }
    }

    @Test func reportsAMissingRequiredItem() throws {
        let message = try TLV8(decoding: [0x06, 0x01, 0x01])
        #expect(throws: TLV8Error.missingItem(tag: .publicKey)) { try message.require(.publicKey) }
    }

    @Test func reportsAnItemOfTheWrongLength() throws {
        let message = try TLV8(decoding: [0x06, 0x02, 0x01, 0x00])
        #expect(throws: TLV8Error.invalidLength(tag: .state, expected: 1, actual: 2)) {
            try message.requireByte(.state)
        }
    }

    @Test func readsLittleEndianIntegers() throws {
        var message = TLV8()
        message.append(.flags, integer: 0x0100_0010)
        #expect(message[.flags] == [0x10, 0x00, 0x00, 0x01])
        #expect(try message.integer(.flags) == 0x0100_0010)
        #expect(try message.integer(.retryDelay) == nil)
    }

    @Test func splitsAListOfPairingsIntoRecords() throws {
        var list = TLV8()
        list.append(.state, byte: 2)
        list.append(.identifier, Array("alpha".utf8))
        list.append(.permissions, byte: 1)
        list.appendSeparator()
        list.append(.identifier, Array("beta".utf8))
        list.append(.permissions, byte: 0)
        let decoded = try TLV8(decoding: list.encoded())
        let records = decoded.records
        #expect(records.count == 2)
        #expect(records[0][.identifier] == Array("alpha".utf8))
        #expect(records[1][.identifier] == Array("beta".utf8))
        #expect(records[1][.permissions] == [0])
    }

    @Test func roundTripsRandomMessages() throws {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            var message = TLV8()
            var used = Set<UInt8>()
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                let tag = UInt8.random(in: 0...0xFE, using: &random)
                guard used.insert(tag).inserted else { continue }
                let length = [0, 1, 2, 64, 254, 255, 256, 510, 511, 1200].randomElement(using: &random) ?? 0
                message.append(TLV8.Tag(rawValue: tag), random.bytes(length))
            }
            let decoded = try TLV8(decoding: message.encoded())
            #expect(decoded == message, "seed \(seed)")
        }
    }

    @Test("100,000 random and mutated buffers never crash the decoder")
    func survivesRandomAndMutatedInput() {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        var valid = TLV8()
        valid.append(.state, byte: 3)
        valid.append(.publicKey, random.bytes(384))
        valid.append(.proof, random.bytes(64))
        let template = valid.encoded()
        var decodedCount = 0
        for round in 0..<100_000 {
            let input =
                round.isMultiple(of: 2)
                ? random.bytes(Int.random(in: 0...40, using: &random)) : mutate(template, using: &random)
            if let decoded = try? TLV8(decoding: input) {
                decodedCount += 1
                // Whatever decodes must encode to something that decodes to the same items.
                #expect((try? TLV8(decoding: decoded.encoded())) == decoded, "seed \(seed)")
            }
        }
        #expect(decodedCount > 0, "seed \(seed)")
    }
}
