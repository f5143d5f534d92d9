import Benchmark
import Crypto
import HAP

/// Pair-setup and pair-verify, each side alone, replaying the other side's recorded messages.
///
/// What is measured, per iteration:
/// - pair-setup, accessory: making a `PairSetupAccessory` and its three `receive` calls (M1→M2, M3→M4, M5→M6):
///   B = kv + gᵇ, the SRP proofs and session key, and M5/M6's HKDF, ChaCha20-Poly1305 and Ed25519 work.
///   The verifier is made once outside the loop, as a server makes it once per setup code.
/// - pair-setup, controller: making a `PairSetupController` (A = gᵃ), `start()` and its three `receive` calls.
/// - pair-verify, each side: making a fresh X25519 key (as a server does per verify; it is discarded, because the
///   replayed messages were made against the recorded key), making the machine with the recorded key, and its
///   `receive` calls (plus `start()` on the controller).
func registerPairingBenchmarks() {
    let setup = PairSetupTranscript.record()
    let verify = PairVerifyTranscript.record(after: setup)
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        maxDuration: .seconds(8),
        maxIterations: 300
    )

    Benchmark("Pair-setup, accessory side (M1..M6)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            var accessory = PairSetupAccessory(
                identity: setup.accessoryIdentity,
                verifier: setup.verifier,
                conditions: PairSetupTranscript.conditions,
                srpPrivateKey: setup.accessoryPrivateKey
            )
            var last: PairSetupAccessory.Step?
            for request in setup.requests {
                last = accessory.receive(request)
            }
            guard let events = last?.events, events.contains(where: { if case .paired = $0 { true } else { false } })
            else {
                benchmark.error("the replayed pair-setup did not pair")
                return
            }
            blackHole(last)
        }
    }

    Benchmark("Pair-setup, controller side", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            var controller = PairSetupController(
                setupCode: setup.setupCode,
                identity: setup.controllerIdentity,
                srpPrivateKey: setup.controllerPrivateKey
            )
            blackHole(controller.start())
            var last: PairSetupController.Step?
            for reply in setup.replies {
                last = try? controller.receive(reply)
            }
            guard case .paired(let pairing) = last else {
                benchmark.error("the replayed pair-setup did not pair")
                return
            }
            blackHole(pairing)
        }
    }

    Benchmark("Pair-verify, accessory side", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(Curve25519.KeyAgreement.PrivateKey())
            var accessory = PairVerifyAccessory(
                identity: verify.accessoryIdentity,
                pairings: verify.pairings,
                ephemeralKey: verify.accessoryEphemeralKey
            )
            blackHole(accessory.receive(verify.requests[0]))
            guard case .replyAndEncrypt(_, let keys, _) = accessory.receive(verify.requests[1]) else {
                benchmark.error("the replayed pair-verify failed")
                return
            }
            blackHole(keys)
        }
    }

    Benchmark("Pair-verify, controller side", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(Curve25519.KeyAgreement.PrivateKey())
            var controller = PairVerifyController(
                identity: verify.controllerIdentity,
                accessory: verify.accessoryPairing,
                ephemeralKey: verify.controllerEphemeralKey
            )
            blackHole(controller.start())
            blackHole(try? controller.receive(verify.replies[0]))
            guard case .established(let keys) = try? controller.receive(verify.replies[1]) else {
                benchmark.error("the replayed pair-verify failed")
                return
            }
            blackHole(keys)
        }
    }
}
