import TestSupport
import Testing

@testable import HAPArithmetic

struct MontgomeryContextTests {
    /// The RFC 5054 3072-bit prime, which HAP uses; here only as a large odd modulus with a known property.
    static let prime3072 = BigUInt(
        bigEndianBytes: hexBytes(
            """
            FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD\
            EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED\
            EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F\
            83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B\
            E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510\
            15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7\
            ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C\
            BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF
            """
        )
    )

    @Test func refusesAnEvenModulusOrOne() {
        #expect(MontgomeryContext(modulus: BigUInt(10)) == nil)
        #expect(MontgomeryContext(modulus: BigUInt(1)) == nil)
        #expect(MontgomeryContext(modulus: BigUInt(0)) == nil)
        #expect(MontgomeryContext(modulus: BigUInt(3, limbCount: 4))?.limbCount == 1)
    }

    @Test func multipliesSingleLimbValuesLikeWideIntegerRemainder() throws {
        let seed: UInt64 = 0x5EED_0101
        var random = SplitMix64(seed: seed)
        for _ in 0..<300 {
            let modulus = random.oddModulus(limbCount: 1, fullTop: random.next() % 2 == 0)[0]
            let context = try #require(MontgomeryContext(modulus: BigUInt(modulus)))
            let a = random.next() % modulus
            let b = random.next() % modulus
            let expected = UInt64((UInt128(a) * UInt128(b)) % UInt128(modulus))
            #expect(context.multiply(BigUInt(a), BigUInt(b)) == BigUInt(expected), "seed \(seed)")
            let sum = UInt64((UInt128(a) + UInt128(b)) % UInt128(modulus))
            #expect(context.add(BigUInt(a), BigUInt(b)) == BigUInt(sum), "seed \(seed)")
            let difference = a >= b ? a - b : modulus - (b - a)
            #expect(context.subtract(BigUInt(a), BigUInt(b)) == BigUInt(difference), "seed \(seed)")
        }
    }

    @Test func multipliesMultiLimbValuesLikeTheReference() throws {
        let seed: UInt64 = 0x5EED_0102
        var random = SplitMix64(seed: seed)
        for round in 0..<120 {
            let limbCount = round < 100 ? 1 + Int(random.next() % 8) : 48
            let modulus = random.oddModulus(limbCount: limbCount, fullTop: round % 3 != 0)
            let context = try #require(MontgomeryContext(modulus: BigUInt(limbs: modulus)))
            let count = context.limbCount
            let n = Array(modulus.prefix(count))
            let a = random.value(below: n)
            let b = random.value(below: n)
            let product = context.multiply(BigUInt(limbs: a), BigUInt(limbs: b))
            #expect(product.limbs == Reference.multiplyMod(a, b, n), "seed \(seed) round \(round)")
            // The Montgomery product times R is the plain product: check a·b·R⁻¹·R ≡ a·b.
            let montgomery = context.montgomeryProduct(BigUInt(limbs: a), BigUInt(limbs: b))
            let r = Reference.mod([UInt64](repeating: 0, count: count) + [1], n)
            #expect(Reference.multiplyMod(montgomery.limbs, r, n) == product.limbs, "seed \(seed) round \(round)")
            let sum = context.add(BigUInt(limbs: a), BigUInt(limbs: b))
            #expect(context.subtract(sum, BigUInt(limbs: b)).limbs == a, "seed \(seed) round \(round)")
        }
    }

    @Test func squaresLikeItMultipliesAValueByItself() throws {
        let seed: UInt64 = 0x5EED_0108
        var random = SplitMix64(seed: seed)
        for round in 0..<200 {
            let limbCount = round < 190 ? 1 + Int(random.next() % 8) : 48
            let modulus = random.oddModulus(limbCount: limbCount, fullTop: round % 2 == 0)
            let context = try #require(MontgomeryContext(modulus: BigUInt(limbs: modulus)))
            let n = Array(modulus.prefix(context.limbCount))
            let value = round % 10 == 0 ? Reference.subtract(n, [1]) : random.value(below: n)
            let square = context.montgomerySquare(BigUInt(limbs: value))
            #expect(
                square == context.montgomeryProduct(BigUInt(limbs: value), BigUInt(limbs: value)),
                "seed \(seed) round \(round)"
            )
        }
    }

    @Test func reducesValuesOfAnyWidthLikeTheReference() throws {
        let seed: UInt64 = 0x5EED_0103
        var random = SplitMix64(seed: seed)
        for round in 0..<100 {
            let limbCount = round < 90 ? 1 + Int(random.next() % 6) : 48
            let modulus = random.oddModulus(limbCount: limbCount, fullTop: round % 2 == 0)
            let context = try #require(MontgomeryContext(modulus: BigUInt(limbs: modulus)))
            let n = Array(modulus.prefix(context.limbCount))
            let wide = random.limbs(1 + Int(random.next() % UInt64(3 * limbCount + 2)))
            #expect(context.reduce(BigUInt(limbs: wide)).limbs == Reference.mod(wide, n), "seed \(seed) round \(round)")
        }
    }

    @Test func raisesToPowersLikeSquareAndMultiply() throws {
        let seed: UInt64 = 0x5EED_0104
        var random = SplitMix64(seed: seed)
        for round in 0..<80 {
            let limbCount = 1 + Int(random.next() % 4)
            let modulus = random.oddModulus(limbCount: limbCount, fullTop: round % 2 == 0)
            let context = try #require(MontgomeryContext(modulus: BigUInt(limbs: modulus)))
            let n = Array(modulus.prefix(context.limbCount))
            let base = random.value(below: n)
            var exponent = random.limbs(1 + Int(random.next() % 3))
            if round % 10 == 0 { exponent = [UInt64](repeating: 0, count: exponent.count) }
            if round % 10 == 1 { exponent = [1] }
            let expected = Reference.power(base, exponent, n)
            let actual = context.power(BigUInt(limbs: base), exponent: BigUInt(limbs: exponent))
            #expect(actual.limbs == expected, "seed \(seed) round \(round)")
            let powers = FixedBasePowers(base: BigUInt(limbs: base), context: context, maximumExponentBitCount: 128)
            #expect(powers.power(exponent: BigUInt(limbs: exponent)).limbs == expected, "seed \(seed) round \(round)")
        }
    }

    @Test func raisesEveryBaseToThePrimeMinusOneToGetOne() throws {
        let context = try #require(MontgomeryContext(modulus: Self.prime3072))
        let exponent = Reference.subtract(Self.prime3072.limbs, [1])
        var random = SplitMix64(seed: 0x5EED_0105)
        for _ in 0..<2 {
            let base = random.value(below: Self.prime3072.limbs)
            #expect(context.power(BigUInt(limbs: base), exponent: BigUInt(limbs: exponent)) == BigUInt(1))
        }
    }

    @Test func agreesWithItselfOnLargePowersFromFixedAndGeneralBases() throws {
        let seed: UInt64 = 0x5EED_0106
        var random = SplitMix64(seed: seed)
        let context = try #require(MontgomeryContext(modulus: Self.prime3072))
        let base = BigUInt(limbs: random.value(below: Self.prime3072.limbs))
        let powers = FixedBasePowers(base: base, context: context, maximumExponentBitCount: 512)
        for exponentLimbs in [1, 4, 8, 9] {
            let first = BigUInt(limbs: random.limbs(exponentLimbs))
            let second = BigUInt(limbs: random.limbs(exponentLimbs))
            let general = context.power(base, exponent: first)
            #expect(powers.power(exponent: first) == general, "seed \(seed)")
            // base^(e1 + e2) = base^e1 · base^e2.
            let combined = context.multiply(general, context.power(base, exponent: second))
            #expect(powers.power(exponent: first.adding(second)) == combined, "seed \(seed)")
        }
    }

    @Test func fallsBackToTheGeneralPowerForExponentsLongerThanTheTable() throws {
        let seed: UInt64 = 0x5EED_0109
        var random = SplitMix64(seed: seed)
        let modulus = random.oddModulus(limbCount: 3)
        let context = try #require(MontgomeryContext(modulus: BigUInt(limbs: modulus)))
        let base = random.value(below: modulus)
        let powers = FixedBasePowers(base: BigUInt(limbs: base), context: context, maximumExponentBitCount: 64)
        #expect(powers.maximumExponentLimbCount == 1)
        let exponent = random.limbs(3)
        let expected = Reference.power(base, exponent, modulus)
        #expect(powers.power(exponent: BigUInt(limbs: exponent)).limbs == expected, "seed \(seed)")
    }

    @Test func multipliesThreeThousandBitValuesLikeTheReference() throws {
        let seed: UInt64 = 0x5EED_0107
        var random = SplitMix64(seed: seed)
        let context = try #require(MontgomeryContext(modulus: Self.prime3072))
        let n = Self.prime3072.limbs
        for _ in 0..<6 {
            let a = random.value(below: n)
            let b = random.value(below: n)
            let product = context.multiply(BigUInt(limbs: a), BigUInt(limbs: b))
            #expect(product.limbs == Reference.multiplyMod(a, b, n), "seed \(seed)")
        }
        // N − 1 squared is 1: the largest operands.
        let largest = BigUInt(limbs: Reference.subtract(n, [1]))
        #expect(context.multiply(largest, largest) == BigUInt(1))
    }
}

/// Bytes from a hex string; test input only.
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace }.utf8)
    precondition(digits.count % 2 == 0, "hex string has an odd number of digits")
    func value(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: preconditionFailure("not a hex digit")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
}
