import Foundation
import TestSupport
import Testing

/// `hearth hap test` against a hearth-sim with one fault switched on (docs/simulator.md "Faults"): the check the
/// fault breaks fails and says why, and the tester still leaves the accessory unpaired where it can.
@Suite(
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"),
    .enabled(if: ChildProcess.arePeersAvailable, "run scripts/setup-peers.sh to set up the peers"),
    .serialized
)
struct HAPTestFaultTests {
    /// One fault, the check that must catch it and what its details must say.
    struct Case: Sendable, CustomTestStringConvertible {
        var fault: String
        /// The check that catches it; `nil` for any check (the outage of `flap` meets whichever check runs then).
        var check: String?
        var result = "fail"
        /// Every one of these is in one of the check's details.
        var says: [String]
        /// More tester arguments (a short `--timeout` for faults that leave answers out).
        var arguments: [String] = []
        /// Watch mDNS (only the `c#` check needs it; it costs a few seconds).
        var mdns = false
        /// Whether the tester can remove its pairing despite the fault.
        var unpairs = true

        var testDescription: String { fault }
    }

    static let cases: [Case] = [
        Case(
            fault: "drop-after:1",
            check: "rw.write",
            says: ["the accessory closed the connection", "after 1 answered request on this session"]
        ),
        Case(
            fault: "slow:2000",
            check: "plain.470",
            says: ["no answer to GET /accessories within 0.5 s"],
            arguments: ["--timeout", "0.5"]
        ),
        Case(
            fault: "stop-answering",
            check: "plain.470",
            says: ["no answer to GET /accessories within 0.5 s"],
            arguments: ["--timeout", "0.5"]
        ),
        Case(
            fault: "malformed-frame",
            check: "pair-verify.good",
            says: ["the answer to GET /accessories could not be read", "an encrypted frame did not authenticate"]
        ),
        Case(
            fault: "wrong-length",
            check: "plain.470",
            says: ["no answer to GET /accessories within 0.5 s", "not all its Content-Length announced"],
            arguments: ["--timeout", "0.5"]
        ),
        Case(
            fault: "wrong-length:-1",
            check: "plain.470",
            says: ["could not be read: the accessory sent bytes that are not HTTP", "wrong Content-Length"]
        ),
        Case(
            fault: "refuse-pair-verify",
            check: "pair-verify.good",
            says: ["the accessory refused pair-verify", "M2 with Error 2 (Authentication)"],
            unpairs: false
        ),
        Case(
            fault: "drop-after-m5",
            check: "pairings.last-admin",
            says: [
                "the connection closed after the tester sent pair-setup M5, before M6 came",
                "answers Error 6 (Unavailable): the accessory stored a pairing the tester never learned about",
                "may be left paired with the tester", "reset the accessory",
            ],
            unpairs: false
        ),
        Case(fault: "flap:1", check: nil, says: []),
        Case(fault: "reboot:3", check: "mdns.c#", result: "pass", says: ["c# went from "], mdns: true),
        Case(
            fault: "stray-events:0.5",
            check: "events.unsolicited",
            says: ["for characteristics the session never subscribed to", "4294967295.4294967295 = ", "§7.8"]
        ),
        Case(
            fault: "out-of-range",
            check: "db.values",
            says: ["= 110: Brightness must be between 0 and 100 (got 110)"]
        ),
    ]

    @Test(arguments: cases)
    func theMatchingCheckCatchesTheFault(_ fault: Case) async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = try await HearthSimInteropTests.startSimulatorOffThePool(
            in: network,
            state: folder + "/sim",
            accessories: ["--preset", "lightbulb-dimmable", "--fault", fault.fault]
        )
        let simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let address = network.accessoryAddress
        let run = try await HAPTestCommandTests.runTester(
            hearth,
            ["--host", address, "--port", "51826", "--setup-uri", started.setupURI] + fault.arguments
                + (fault.mdns ? ["--interface", network.controllerAddress] : [])
        )
        print("hearth hap test with --fault \(fault.fault): \(String(format: "%.1f", run.elapsed)) s")
        if fault.result == "fail" { #expect(run.status == 1, "\(run.results)") }
        if let id = fault.check {
            let result = try #require(run.results[id], "\(run.results)")
            #expect(result["result"] as? String == fault.result, "\(result)")
            let details = result["details"] as? [String] ?? []
            for text in fault.says {
                #expect(details.contains { $0.contains(text) }, "\(id) does not say \"\(text)\": \(details)")
            }
        } else {
            // The outage: some check met a refused connection or one closed under it, and said so.
            let failed = run.results.values.filter { $0["result"] as? String == "fail" }
            let details = failed.flatMap { $0["details"] as? [String] ?? [] }
            #expect(
                details.contains { $0.contains("no TCP connection") || $0.contains("closed the connection") },
                "\(run.results)"
            )
        }
        #expect(run.elapsed < 30, "took \(run.elapsed) s")
        if fault.check != nil {
            // Only a pair-setup cut after M5 leaves a pairing the tester never learned about (a flap may, by chance).
            let unknowing = Self.says(run.results["pairings.last-admin"], "never learned about")
            #expect(
                unknowing == (fault.fault == "drop-after-m5"),
                "\(String(describing: run.results["pairings.last-admin"]))"
            )
        }

        // With the fault cleared, pair-setup shows whether the tester left the accessory paired, as it reported.
        #expect(try Self.simulator(["fault", "clear", "all", "--state", folder + "/sim"]) == 0)
        let lastAdmin = run.results["pairings.last-admin"]
        let paired = try await hearth.runOffThePool([
            "hap", "pair", "--setup-uri", started.setupURI, "\(address):51826",
        ])
        if fault.unpairs {
            #expect(lastAdmin?["result"] as? String != "fail" || Self.says(lastAdmin, "the accessory is unpaired"))
            #expect(paired.status == 0, "\(paired)")
            let unpaired = try await hearth.runOffThePool(["hap", "unpair", "\(address):51826"])
            #expect(unpaired.status == 0, "\(unpaired)")
        } else {
            #expect(lastAdmin?["result"] as? String == "fail", "\(String(describing: lastAdmin))")
            #expect(Self.says(lastAdmin, "may be left paired with the tester"), "\(String(describing: lastAdmin))")
            #expect(paired.status != 0, "\(paired)")
        }
    }

    /// Whether one of a result's details contains `text`.
    static func says(_ result: [String: Any]?, _ text: String) -> Bool {
        (result?["details"] as? [String] ?? []).contains { $0.contains(text) }
    }

    /// Runs `hearth-sim ARGUMENTS` (its control commands reach the running simulator through its state folder).
    static func simulator(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path("hearth-sim"))
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
