import HAPArithmetic
import TestSupport
import Testing

struct BigUIntTests {
    @Test func readsBigEndianBytesIntoLittleEndianLimbs() {
        let value = BigUInt(bigEndianBytes: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09])
        #expect(value.limbs == [0x0203_0405_0607_0809, 0x01])
    }

    @Test func roundTripsRandomBytesThroughPaddedAndMinimalForms() {
        let seed: UInt64 = 0x5EED_0001
        var random = SplitMix64(seed: seed)
        for _ in 0..<500 {
            let length = Int(random.next() % 400)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if random.next() % 4 == 0, !bytes.isEmpty { bytes[0] = 0 }
            let value = BigUInt(bigEndianBytes: bytes)
            #expect(value.bigEndianBytes(count: length) == bytes, "seed \(seed)")
            #expect(value.minimalBigEndianBytes == Array(bytes.drop(while: { $0 == 0 })), "seed \(seed)")
            let minimal = value.minimalBigEndianBytes
            #expect(BigUInt(bigEndianBytes: minimal) == value, "seed \(seed)")
        }
    }

    @Test func refusesToPadAValueIntoTooFewBytes() {
        let value = BigUInt(bigEndianBytes: [0x01, 0x00, 0x00])
        #expect(value.bigEndianBytes(count: 2) == nil)
        #expect(value.bigEndianBytes(count: 4) == [0, 1, 0, 0])
        #expect(BigUInt(bigEndianBytes: [UInt8](repeating: 1, count: 9), limbCount: 1) == nil)
        #expect(BigUInt(bigEndianBytes: [0, 0, 0, 0, 0, 0, 0, 0, 7], limbCount: 1) == BigUInt(7))
    }

    @Test func comparesByValueWhateverTheLimbCount() {
        #expect(BigUInt(5, limbCount: 3) == BigUInt(5))
        #expect(BigUInt(5, limbCount: 3).hashValue == BigUInt(5).hashValue)
        #expect(BigUInt(4) < BigUInt(5, limbCount: 2))
        #expect(BigUInt(limbs: [0, 1]) > BigUInt(UInt64.max))
        #expect(BigUInt(zeroWithLimbCount: 4).isZero)
        #expect(BigUInt(limbs: [0, 1]).significantBitCount == 65)
    }

    @Test func addsAndMultipliesLikeTheSchoolbook() {
        let seed: UInt64 = 0x5EED_0002
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let left = random.limbs(1 + Int(random.next() % 8))
            let right = random.limbs(1 + Int(random.next() % 8))
            let product = BigUInt(limbs: left).multipliedFullWidth(by: BigUInt(limbs: right))
            #expect(product.limbs == Reference.multiply(left, right), "seed \(seed)")
            let sum = BigUInt(limbs: left).adding(BigUInt(limbs: right))
            #expect(
                Reference.subtract(sum.limbs, right) == BigUInt(limbs: left).resized(toLimbCount: sum.limbCount)?.limbs,
                "seed \(seed)"
            )
        }
        #expect(BigUInt(UInt64.max).adding(BigUInt(1)).limbs == [0, 1])
    }
}
