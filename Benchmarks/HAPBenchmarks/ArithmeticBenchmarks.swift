import Benchmark
import HAP
import HAPArithmetic

/// The modular exponentiation under every SRP step: one 3072-bit base raised to a 512-bit exponent.
///
/// This is `MontgomeryContext.power`, the variable-base path the accessory takes for (A·vᵘ)ᵇ in M3; the
/// fixed-base path for gᵇ (`FixedBasePowers`) is faster and is measured inside the pairing benchmarks.
func registerArithmeticBenchmarks() {
    let modulus = BigUInt(bigEndianBytes: SRPGroup.hap3072.modulus)
    guard let context = MontgomeryContext(modulus: modulus) else {
        preconditionFailure("the HAP 3072-bit modulus is odd")
    }
    var generator = SystemRandomNumberGenerator()
    // A base below N: N's top byte is 0xFF, so clearing the top bit keeps a random value under it.
    var baseBytes = (0..<SRPGroup.hap3072.byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
    baseBytes[0] &= 0x7F
    guard let base = BigUInt(bigEndianBytes: baseBytes, limbCount: context.limbCount) else {
        preconditionFailure("384 bytes fit in 48 limbs")
    }
    let exponent = BigUInt(limbs: (0..<8).map { _ in UInt64.random(in: 1...UInt64.max, using: &generator) })

    Benchmark(
        "ModExp 3072-bit, 512-bit exponent",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
            maxDuration: .seconds(5),
            maxIterations: 500
        )
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(context.power(base, exponent: exponent))
        }
    }
}
