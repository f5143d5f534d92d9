// The same run's reference for the ratios: HAP pair-setup and pair-verify between Hearth's controller
// (HAPController, in this process) and a hearth-sim child serving one lightbulb on loopback (no mDNS). The
// "hub" column of these rows is hearth-sim's CPU (the accessory side), the "client" column this process's. The
// pairing ratios are against the controller side: hearth-sim builds its table of powers of v again after each removed
// pairing, which a hub's one-time code never does.
import Crypto
import Foundation
import HAP
import HAPController

/// Starts `hearthSim` on loopback, measures `pairings` pair-setups (each pairing removed again, untimed) and
/// `sessions` pair-verifies (connect, M1–M4, close); stops it.
func referenceRows(hearthSim: String, pairings: Int, sessions: Int) async throws -> (setup: Phase, verify: Phase) {
    let folder = NSTemporaryDirectory() + "hearth-remote-bench-sim-\(UUID().uuidString)"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: hearthSim)
    process.arguments = [
        "serve", "--state", folder, "--no-mdns", "--bind", "127.0.0.1", "--port", "0", "--setup-code", "031-45-154",
        "--json", "--preset", "lightbulb",
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    defer {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }
    let port = try listeningPort(output, name: "hearth-sim")
    let simulator = process.processIdentifier
    let identity = ControllerIdentity(pairingID: UUID().uuidString, signingKey: Curve25519.Signing.PrivateKey())
    let client = AccessoryPairingClient()
    let code = try SetupCode("031-45-154")
    func pair() async throws -> PairedAccessoryRecord {
        let pairing = try await client.pairSetup(host: "127.0.0.1", port: port, setupCode: code, identity: identity)
        return PairedAccessoryRecord(pairing: pairing, host: "127.0.0.1", port: port)
    }
    // Warm-up, as for the hub: one pairing removed again.
    try await PairedAccessory(record: try await pair(), identity: identity).unpair()
    var setup = Phase(name: "reference: HAP pair-setup, HAPController with hearth-sim (hub column: hearth-sim)")
    var record: PairedAccessoryRecord?
    for index in 0..<pairings {
        let simulatorBefore = cpuNanoseconds(simulator)
        let clientBefore = ownCPUNanoseconds()
        let start = ContinuousClock.now
        let paired = try await pair()
        let elapsed = ContinuousClock.now - start
        setup.wall.append(milliseconds(elapsed))
        setup.hubCPU += Double(cpuNanoseconds(simulator) - simulatorBefore) / 1e6
        setup.clientCPU += Double(ownCPUNanoseconds() - clientBefore) / 1e6
        if index < pairings - 1 {
            try await PairedAccessory(record: paired, identity: identity).unpair()
        } else {
            record = paired
        }
    }
    guard let record else { throw BenchFailure("no pairing with hearth-sim") }
    let verify = try await measure(
        "reference: HAP pair-verify and connection set-up, HAPController with hearth-sim",
        count: sessions,
        hub: simulator
    ) { _ in
        let accessory = PairedAccessory(record: record, identity: identity)
        try await accessory.connect()
        await accessory.close()
    }
    return (setup, verify)
}

/// The port a child prints as the JSON object `{"port": N}` on `output` once it listens.
func listeningPort(_ output: Pipe, name: String) throws -> Int {
    var pending = Data()
    while true {
        let chunk = output.fileHandleForReading.availableData
        guard !chunk.isEmpty else { throw BenchFailure("\(name) exited before it listened") }
        pending += chunk
        if let object = try? JSONSerialization.jsonObject(with: pending) as? [String: Any],
            let port = object["port"] as? Int
        {
            return port
        }
    }
}
