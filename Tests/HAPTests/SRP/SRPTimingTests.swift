import Foundation
import TestSupport
import Testing

@testable import HAP
@testable import HAPArithmetic

/// Prints how long SRP and its arithmetic take; run by hand (it asserts nothing about time):
/// `HEARTH_SRP_TIMING=1 swift test -c release -Xswiftc -enable-testing --filter SRPTimingTests`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["HEARTH_SRP_TIMING"] != nil, "timing runs by hand"))
struct SRPTimingTests {
    typealias Vector = SRPVectorTests.HAPVector

    /// The median and the fastest of `runs` timings of `body`, in milliseconds.
    func median(runs: Int = 21, _ body: () throws -> Void) rethrows -> (median: Double, fastest: Double) {
        var samples: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let elapsed = try clock.measure(body)
            samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
        }
        samples.sort()
        return (samples[runs / 2], samples[0])
    }

    func report(_ name: String, _ milliseconds: (median: Double, fastest: Double)) {
        let median = String(format: "%.3f", milliseconds.median)
        let fastest = String(format: "%.3f", milliseconds.fastest)
        print("timing: \(name): median \(median) ms, fastest \(fastest) ms")
    }

    @Test func printsArithmeticTimings() throws {
        let group = SRPGroup.hap3072
        let context = group.context
        var random = SplitMix64(seed: 1)
        let base = BigUInt(limbs: random.limbs(48).enumerated().map { $0 == 47 ? $1 >> 1 : $1 })
        let exponent512 = BigUInt(limbs: random.limbs(8))
        let exponent256 = BigUInt(limbs: random.limbs(4))
        let exponent1088 = BigUInt(limbs: random.limbs(17))
        var sink = BigUInt(0)
        report("3072-bit multiply (mod N), x1000", median { for _ in 0..<1000 { sink = context.multiply(base, base) } })
        report(
            "3072-bit Montgomery product, x1000",
            median { for _ in 0..<1000 { sink = context.montgomeryProduct(base, base) } }
        )
        report(
            "3072-bit Montgomery square, x1000",
            median { for _ in 0..<1000 { sink = context.montgomerySquare(base) } }
        )
        report("3072-bit power, 512-bit exponent", median { sink = context.power(base, exponent: exponent512) })
        report("3072-bit power, 256-bit exponent", median { sink = context.power(base, exponent: exponent256) })
        report("3072-bit power, 1088-bit exponent", median { sink = context.power(base, exponent: exponent1088) })
        report(
            "fixed-base g, 256-bit exponent",
            median { sink = group.generatorPowers.power(exponent: exponent256) }
        )
        report(
            "fixed-base g, 512-bit exponent",
            median { sink = group.generatorPowers.power(exponent: exponent512) }
        )
        report(
            "fixed-base table build, 512-bit exponents",
            median(runs: 5) {
                _ = FixedBasePowers(base: base, context: context, maximumExponentBitCount: 512)
            }
        )
        #expect(!sink.isZero)
    }

    @Test func printsSRPTimings() throws {
        let verifier = SRPVectorTests.hapVerifier()
        var client = SRPClient(
            username: "Pair-Setup",
            password: Vector.setupCode,
            group: .hap3072,
            hash: .sha512,
            privateKey: Vector.clientPrivateKey
        )
        var server = SRPServer(verifier: verifier, privateKey: Vector.serverPrivateKey)
        let response = try client.respond(salt: Vector.salt, serverPublicKey: server.publicKey)
        report(
            "verifier (x, v and v's table), once per setup code",
            median(runs: 5) { _ = SRPVectorTests.hapVerifier() }
        )
        report(
            "accessory: B, then S, K, M1 check and M2",
            try median {
                server = SRPServer(verifier: verifier, privateKey: Vector.serverPrivateKey)
                _ = try server.verifyClient(publicKey: client.publicKey, proof: response.proof)
            }
        )
        report(
            "controller: A, then x, v, S, K, M1, M2 check",
            try median {
                client = SRPClient(
                    username: "Pair-Setup",
                    password: Vector.setupCode,
                    group: .hap3072,
                    hash: .sha512,
                    privateKey: Vector.clientPrivateKey
                )
                let answer = try client.respond(salt: Vector.salt, serverPublicKey: server.publicKey)
                _ = answer.verifyServerProof(Vector.serverProof)
            }
        )
    }
}
