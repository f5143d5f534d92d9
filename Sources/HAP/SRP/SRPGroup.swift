import CHAPModExp
import HAPArithmetic

/// The group an SRP-6a exchange works in: a safe prime N and a generator g.
///
/// Each group keeps its Montgomery constants and a fixed-base table of powers of g (768 KiB for 3072 bits), built
/// once when the group is first used.
public struct SRPGroup: Sendable {
    /// N as big-endian bytes without leading zeros.
    public let modulus: [UInt8]
    /// g as big-endian bytes without leading zeros.
    public let generator: [UInt8]
    /// The length of N in bytes, which is the length of PAD(x).
    public let byteCount: Int
    /// Arithmetic modulo N.
    let context: MontgomeryContext
    /// g as a number.
    let generatorValue: BigUInt
    /// Powers of g for exponents up to 512 bits: private keys and hash outputs.
    let generatorPowers: FixedBasePowers

    /// Makes a group from N (big-endian) and g, or returns nil unless N is odd and above g, and g is above one.
    public init?(modulus: [UInt8], generator: UInt64) {
        let modulusValue = BigUInt(bigEndianBytes: modulus)
        guard let context = MontgomeryContext(modulus: modulusValue), generator > 1,
            BigUInt(generator) < context.modulus
        else { return nil }
        let generatorValue = BigUInt(generator, limbCount: context.limbCount)
        self.context = context
        self.modulus = modulusValue.minimalBigEndianBytes
        self.byteCount = self.modulus.count
        self.generatorValue = generatorValue
        self.generator = generatorValue.minimalBigEndianBytes
        self.generatorPowers = FixedBasePowers(base: generatorValue, context: context, maximumExponentBitCount: 512)
    }

    /// The 3072-bit group of RFC 5054 with g = 5, used by HAP pair-setup (hap-protocol.md §3.1).
    public static let hap3072: SRPGroup = makeConstantGroup(modulusHex: rfc5054Modulus3072, generator: 5)

    /// The 1024-bit group of RFC 5054 with g = 2, for the RFC's test vectors; too small for real use.
    public static let rfc5054_1024: SRPGroup = makeConstantGroup(modulusHex: rfc5054Modulus1024, generator: 2)

    /// x as exactly `byteCount` big-endian bytes: PAD(x) in hap-protocol.md §3.2.
    func padded(_ value: BigUInt) -> [UInt8] {
        guard let bytes = value.bigEndianBytes(count: byteCount) else {
            preconditionFailure("only values below the modulus are padded")
        }
        return bytes
    }

    /// base^exponent mod N, for the secret exponents of pair-setup: BoringSSL's constant-time exponentiation
    /// (`CHAPModExp`), several times faster at 3072 bits than `MontgomeryContext.power`, which answers instead if
    /// BoringSSL fails (it only does when memory runs out).
    ///
    /// `base` must be below N. As with `MontgomeryContext.power`, nothing depends on the exponent's bits; its
    /// length in limbs is not hidden.
    func secretPower(_ base: BigUInt, exponent: BigUInt) -> BigUInt {
        guard let baseBytes = base.bigEndianBytes(count: byteCount),
            var exponentBytes = exponent.bigEndianBytes(count: exponent.limbCount * 8)
        else { return context.power(base, exponent: exponent) }
        var out = [UInt8](repeating: 0, count: byteCount)
        defer {
            // The byte copies of the secret exponent and of the result are zeroed before they are freed.
            exponentBytes.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
            out.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
        }
        let ok = out.withUnsafeMutableBufferPointer { output in
            chap_mod_exp(
                baseBytes,
                baseBytes.count,
                exponentBytes,
                exponentBytes.count,
                modulus,
                modulus.count,
                output.baseAddress
            )
        }
        guard ok == 1, let value = BigUInt(bigEndianBytes: out, limbCount: context.limbCount) else {
            return context.power(base, exponent: exponent)
        }
        return value
    }

    /// k = H(PAD(N) | PAD(g)), reduced modulo N.
    func multiplier(hash: SRPHash) -> BigUInt {
        let digest = hash.digest(padded(BigUInt(bigEndianBytes: modulus)), padded(generatorValue))
        return context.reduce(BigUInt(bigEndianBytes: digest))
    }

    /// A public key from the wire as a number below N, or `invalidPublicKey` when it is too long, not below N,
    /// or zero.
    func publicKeyValue(_ bytes: [UInt8]) throws(SRPError) -> BigUInt {
        guard bytes.count <= byteCount,
            let value = BigUInt(bigEndianBytes: bytes, limbCount: context.limbCount),
            value < context.modulus, !value.isZero
        else { throw .invalidPublicKey }
        return value
    }

    private static func makeConstantGroup(modulusHex: String, generator: UInt64) -> SRPGroup {
        guard let group = SRPGroup(modulus: bytes(fromHex: modulusHex), generator: generator) else {
            preconditionFailure("the RFC 5054 groups are valid")
        }
        return group
    }

    /// Bytes from a hex constant of ours; whitespace is skipped.
    static func bytes(fromHex hex: String) -> [UInt8] {
        let digits = hex.compactMap { $0.hexDigitValue }
        precondition(digits.count % 2 == 0 && digits.count == hex.filter { !$0.isWhitespace }.count, "bad hex")
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) }
    }
}

extension SRPGroup: Equatable {
    /// Groups are equal when N and g are.
    public static func == (lhs: SRPGroup, rhs: SRPGroup) -> Bool {
        lhs.modulus == rhs.modulus && lhs.generator == rhs.generator
    }
}

/// RFC 5054 Appendix A, 3072-bit group; also hap-protocol.md §3.1.
private let rfc5054Modulus3072 = """
    FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74
    020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437
    4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED
    EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF05
    98DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB
    9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B
    E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718
    3995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D04507A33
    A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7
    ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864
    D87602733EC86A64521F2B18177B200CBBE117577A615D6C770988C0BAD946E2
    08E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF
    """

/// RFC 5054 Appendix A, 1024-bit group.
private let rfc5054Modulus1024 = """
    EEAF0AB9ADB38DD69C33F80AFA8FC5E86072618775FF3C0B9EA2314C9C256576
    D674DF7496EA81D3383B4813D692C6E0E0D5D8E250B98BE48E495C1D6089DAD1
    5DC7D7B46154D6B6CE8EF4AD69B15D4982559B297BCF1885C529F566660E57EC
    68EDBC3C05726CC02FD4CBF4976EAA9AFD5138FE8376435B9FC61D2FC0EB06E3
    """
