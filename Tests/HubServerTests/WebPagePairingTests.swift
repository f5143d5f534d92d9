import Foundation
import TestSupport
import Testing

/// Adding an accessory from the web page, with real mDNS.
///
/// `hearthd --demo` browses in one network namespace that the test makes, hearth-sim advertises in the other, and
/// `Tests/Peers/pair_page_check.py` drives headless Chromium inside the hub's namespace (`ip netns exec`, Chromium
/// and its driver with it). The page lists the accessory as the hub's pushed `found` arrives, drops it on `removed`
/// when the simulator stops, reads setup codes from PNG pictures of QR codes given to its file input (plain, scaled,
/// damaged, turned, at an angle, shaded, not HomeKit, none) and from Chromium's fake camera (with qr.js, since
/// Chromium on Linux has no `BarcodeDetector`), pairs it with the code read from a picture of hearth-sim's own setup
/// payload into a room, and controls it.
@Suite(
    .serialized,
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"),
    .enabled(
        if: HeadlessChromium.isAvailable,
        "run scripts/bootstrap.sh (chromium, chromium-driver) and scripts/setup-peers.sh (selenium)"
    )
)
struct WebPagePairingTests {
    static let setupCode = "031-45-154"

    /// What the driver must report as passed.
    static let checks = [
        "the owner has an Add accessory view", "a nearby accessory appears with its category",
        "an accessory that stops advertising disappears", "it appears again when it advertises again",
        "a photo of the QR code can be given", "a label's QR code in a photo fills the setup code",
        "a scaled photo of the QR code is read", "a QR code with damaged modules is corrected",
        "a turned QR code is read", "a QR code photographed at an angle is read", "a QR code in uneven light is read",
        "a QR code that is not a HomeKit code says so",
        "a picture without a QR code says so", "the camera reads a QR code",
        "a wrong setup code shows the hub's sentence and changes nothing",
        "the accessory's own QR code gives its setup code",
        "pairing with the code from its QR code adds it as a tile in the room", "the paired accessory is controllable",
        "a paired accessory is no longer offered",
    ]

    @Test(.timeLimit(.minutes(5))) func theOwnerAddsANearbyAccessoryFromThePage() async throws {
        let folder = NSTemporaryDirectory() + "hearthd-web-pair-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (reports, stops) = try await offThePool { () throws -> ([String: WebPageBrowserTests.Report], [Int32]) in
            let network = try NetworkNamespacePair()
            defer { network.remove() }
            let state = folder + "/hub"
            let simState = folder + "/sim"
            let hub = try network.start(
                inAccessoryNamespace: false,
                BuiltProducts.path("hearthd"),
                [
                    "--demo", "--state", state, "--port", "0", "--no-user-config", "--log-level", "warning",
                    "--interface", network.controllerAddress,
                ]
            )
            defer { hub.terminate() }
            while try !hub.readLine().hasPrefix("Stop with") {}
            let client = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: state + "/client.json"))
            )
            let url = try #require((client as? [String: Any])?["url"] as? String)
            let driver = try network.start(
                inAccessoryNamespace: false,
                ChildProcess.python,
                [
                    ChildProcess.repositoryRoot.appendingPathComponent("Tests/Peers/pair_page_check.py").path,
                    "--url", url, "--state", state, "--sim-state", simState,
                    "--hearth-sim", BuiltProducts.path("hearth-sim"), "--code", Self.setupCode,
                ],
                timeout: 240
            )
            defer { driver.terminate() }
            var simulator: ChildProcess?
            defer { _ = simulator?.terminate() }
            var reports: [String: WebPageBrowserTests.Report] = [:]
            var stops: [Int32] = []
            while true {
                let line = try driver.receive()
                if let name = line["check"] as? String {
                    reports[name] = .init(ok: line["ok"] as? Bool ?? false, detail: line["detail"] as? String ?? "")
                } else if line["simulator"] as? String == "start" {
                    let started = try network.start(
                        inAccessoryNamespace: true,
                        BuiltProducts.path("hearth-sim"),
                        [
                            "serve", "--state", simState, "--port", "51826", "--setup-code", Self.setupCode,
                            "--interface", network.accessoryAddress, "--json", "--coalesce-milliseconds", "0",
                            "--name", "Porch Lamp", "--preset", "lightbulb",
                        ]
                    )
                    let banner = try started.receive()
                    simulator = started
                    // The banner (port, device ID, setup code and URI): the driver pairs with the URI's QR code.
                    try driver.send(banner.compactMapValues { $0 as? String })
                } else if line["simulator"] as? String == "stop" {
                    stops.append(simulator?.terminate() ?? -1)
                    simulator = nil
                    try driver.send(line: "stopped")
                } else if line["done"] != nil {
                    break
                }
            }
            return (reports, stops)
        }
        #expect(stops == [0], "hearth-sim stopped cleanly (and said goodbye)")
        for name in Self.checks {
            let report = reports[name]
            #expect(report?.ok == true, "\(name): \(report?.detail ?? "not reported")")
        }
        for (name, report) in reports where !report.ok && !Self.checks.contains(name) {
            Issue.record("\(name): \(report.detail)")
        }
    }
}
