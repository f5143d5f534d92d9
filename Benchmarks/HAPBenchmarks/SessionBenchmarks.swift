import Benchmark
import Crypto
import HAP

/// Frames of the encrypted session: 1 KiB of plaintext each, the largest a HAP frame carries.
///
/// Both benchmarks run 1,000 frames per measured iteration (scaling factor `.kilo`), so the reported time is per
/// frame and `throughput` is frames per second; at 1,024 bytes a frame, K frames/s ≈ MB/s (× 1.024).
func registerSessionBenchmarks() {
    let keys = SessionKeys(
        accessoryToController: SymmetricKey(size: .bits256),
        controllerToAccessory: SymmetricKey(size: .bits256)
    )
    let plaintext = [UInt8]((0..<SessionCipher.maximumFrameLength).map { UInt8(truncatingIfNeeded: $0) })
    let frameCount = 1_000

    // The frames an accessory sends, sealed once, opened in order by a fresh controller cipher each iteration.
    var accessory = SessionCipher(keys: keys, role: .accessory)
    let sealedFrames = (0..<frameCount).map { _ in accessory.seal(plaintext) }

    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(5),
        maxIterations: 200
    )

    Benchmark("Session seal 1 KiB frame", configuration: configuration) { benchmark in
        var cipher = SessionCipher(keys: keys, role: .accessory)
        for _ in benchmark.scaledIterations {
            blackHole(cipher.seal(plaintext))
        }
    }

    Benchmark("Session open 1 KiB frame", configuration: configuration) { benchmark in
        precondition(benchmark.scaledIterations.count <= frameCount, "one sealed frame per scaled iteration")
        var cipher = SessionCipher(keys: keys, role: .controller)
        for index in benchmark.scaledIterations {
            do {
                blackHole(try cipher.open(sealedFrames[index]))
            } catch {
                benchmark.error("frame \(index) did not open: \(error)")
                return
            }
        }
    }
}
