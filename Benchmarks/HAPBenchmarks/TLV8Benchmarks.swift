import Benchmark
import HAP

/// The TLV8 codec on pair-setup M3, the largest pairing message: State, a 384-byte SRP public key (two
/// fragments on the wire) and a 64-byte proof.
func registerTLV8Benchmarks() {
    var generator = SystemRandomNumberGenerator()
    let publicKey = (0..<384).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let proof = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }

    func makeM3() -> TLV8 {
        var message = TLV8()
        message.append(.state, byte: 3)
        message.append(.publicKey, publicKey)
        message.append(.proof, proof)
        return message
    }
    let encodedM3 = makeM3().encoded()
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    // Building the message and encoding it, as a controller does once per M3.
    Benchmark("TLV8 encode pair-setup M3", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(makeM3().encoded())
        }
    }

    Benchmark("TLV8 decode pair-setup M3", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            do {
                blackHole(try TLV8(decoding: encodedM3))
            } catch {
                benchmark.error("M3 did not decode: \(error)")
                return
            }
        }
    }
}
