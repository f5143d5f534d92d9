import HAPArithmetic
import TestSupport
import Testing

@testable import HAP

/// SRP's secret power on BoringSSL (`CHAPModExp`) must equal HAPArithmetic's Montgomery power everywhere.
struct SecretPowerTests {
    /// A random value below the group's modulus, with the group's limb count.
    static func below(_ group: SRPGroup, _ random: inout SplitMix64) -> BigUInt {
        let count = group.context.limbCount
        let limbs = random.limbs(count)
        return group.context.reduce(BigUInt(limbs: limbs))
    }

    @Test(arguments: [SRPGroup.hap3072, SRPGroup.rfc5054_1024])
    func equalsTheMontgomeryPowerOnRandomAndEdgeValues(group: SRPGroup) {
        var random = SplitMix64(seed: 3072)
        let context = group.context
        let count = context.limbCount
        var topBytes = group.modulus
        topBytes[topBytes.count - 1] -= 1  // N is odd: N − 1 only changes the last byte.
        var bases = [BigUInt(0, limbCount: count), BigUInt(1, limbCount: count)]
        if let modulusMinusOne = BigUInt(bigEndianBytes: topBytes, limbCount: count) { bases.append(modulusMinusOne) }
        for _ in 0..<6 { bases.append(Self.below(group, &random)) }
        for base in bases {
            for limbCount in [1, 4, 8, 17] {
                let exponent = BigUInt(limbs: random.limbs(limbCount))
                #expect(group.secretPower(base, exponent: exponent) == context.power(base, exponent: exponent))
            }
            let zero = BigUInt(0, limbCount: 4)
            #expect(group.secretPower(base, exponent: zero) == context.power(base, exponent: zero))
        }
    }
}
