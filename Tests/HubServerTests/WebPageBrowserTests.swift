import Foundation
import TestSupport
import Testing

/// Debian's headless Chromium with its driver, and Selenium in the repository's `.venv`.
enum HeadlessChromium {
    /// Whether Chromium, its driver and Selenium are installed; with `HEARTH_REQUIRE_PEERS=1` the test runs anyway
    /// and fails when they are missing.
    static var isAvailable: Bool {
        let files = FileManager.default
        return ProcessInfo.processInfo.environment["HEARTH_REQUIRE_PEERS"] == "1"
            || (files.isExecutableFile(atPath: "/usr/bin/chromium")
                && files.isExecutableFile(atPath: "/usr/bin/chromedriver")
                && files.fileExists(
                    atPath: ChildProcess.repositoryRoot.appendingPathComponent(
                        ".venv/lib/python3.11/site-packages/selenium"
                    )
                    .path
                ))
    }
}

/// The web page in a real browser: `Tests/Peers/web_page_check.py` drives Debian's headless Chromium.
///
/// The driver works through Selenium (from the repository's `.venv`) against `hearthd --demo` on loopback, and
/// reports each check as a JSON line; this test restarts `hearthd` when the driver asks and requires every check to
/// pass. Screenshots of the main views and the automation form (1280 and 390 wide, light and dark) go to
/// `$HEARTH_WEB_SCREENSHOTS`, else `.build/web-screenshots`.
@Suite(
    .serialized,
    .enabled(
        if: HeadlessChromium.isAvailable,
        "run scripts/bootstrap.sh (chromium, chromium-driver) and scripts/setup-peers.sh (selenium)"
    )
)
struct WebPageBrowserTests {
    /// One check as the driver reported it.
    struct Report: Sendable {
        var ok: Bool
        var detail: String
    }

    /// Runs the Python driver `script` of `Tests/Peers` with `arguments` and gathers the checks it reports until it
    /// says it is done (blocking: call it off the pool).
    static func reports(of script: String, _ arguments: [String]) throws -> [String: Report] {
        let driver = try ChildProcess(
            ChildProcess.python,
            [ChildProcess.repositoryRoot.appendingPathComponent("Tests/Peers/" + script).path] + arguments,
            timeout: 240
        )
        defer { driver.terminate() }
        var reports: [String: Report] = [:]
        while true {
            let line = try driver.receive()
            if let name = line["check"] as? String {
                reports[name] = Report(ok: line["ok"] as? Bool ?? false, detail: line["detail"] as? String ?? "")
            } else if line["done"] != nil {
                return reports
            }
        }
    }

    /// What the driver must report as passed.
    static let checks = [
        "sign in", "sign in with a password", "sign in with a link that hearth prints, once", "rooms as sections",
        "states in words", "toggle a light", "keyboard on a slider",
        "a change made with hearth appears within a second", "a value change updates its tile in place",
        "run a scene", "the command box", "detail view",
        "create a room and move an accessory", "history", "invite with a QR code", "change a user's role",
        "create a scene from the page", "a trigger's decisions shown",
        "an automation at sunset and on weekdays, with a condition and an end, from the form",
        "a timer with a recurrence from the form", "a presence automation from the form",
        "switch presses, ranges and durations from the form", "a location event from the form",
        "a presence event about two chosen users from the form", "an end with only an end event from the form",
        "an end with minutes and an end event from the form", "edit a location event from the form",
        "edit a presence event's users from the form", "edit an end's events from the form",
        "an end with minutes and an end event edited unchanged", "edit an automation from the form",
        "editing keeps a nested condition", "a refused automation shows the hub's message",
        "a location with a bad radius is refused at that field",
        "a location with a bad latitude is refused at that field",
        "a location with no radius is refused at that field",
        "add, rename and remove a home",
        "temperatures in the home's unit",
        "a shared user sees no configuration controls", "a forged request is refused",
        "the page recovers after hearthd restarts",
    ]

    /// Starts `hearthd --demo` on `state` and `port` (0: any) and reads its output up to its last line.
    static func startHub(state: String, port: Int) throws -> ChildProcess {
        let child = try ChildProcess(
            BuiltProducts.path("hearthd"),
            ["--demo", "--state", state, "--port", "\(port)", "--no-user-config", "--log-level", "warning"],
            timeout: 300
        )
        while true {
            if try child.readLine().hasPrefix("Stop with") { break }
        }
        return child
    }

    @Test(.timeLimit(.minutes(5))) func thePageWorksInHeadlessChromium() async throws {
        let state = NSTemporaryDirectory() + "hearthd-web-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let environment = ProcessInfo.processInfo.environment
        let screenshots =
            environment["HEARTH_WEB_SCREENSHOTS"]
            ?? ChildProcess.repositoryRoot.appendingPathComponent(".build/web-screenshots").path
        let (reports, stops) = try await offThePool { () throws -> ([String: Report], [Int32]) in
            var hub = try Self.startHub(state: state, port: 0)
            defer { hub.terminate() }
            let client = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: state + "/client.json"))
            )
            let url = try #require((client as? [String: Any])?["url"] as? String)
            let port = try #require(url.split(separator: ":").last.flatMap { Int($0) })
            let driver = try ChildProcess(
                ChildProcess.python,
                [
                    ChildProcess.repositoryRoot.appendingPathComponent("Tests/Peers/web_page_check.py").path,
                    "--url", url, "--state", state, "--hearth", BuiltProducts.path("hearth"),
                    "--screenshots", screenshots,
                ],
                timeout: 240
            )
            defer { driver.terminate() }
            var reports: [String: Report] = [:]
            var stops: [Int32] = []
            while true {
                let line = try driver.receive()
                if let name = line["check"] as? String {
                    reports[name] = Report(ok: line["ok"] as? Bool ?? false, detail: line["detail"] as? String ?? "")
                } else if line["restart"] != nil {
                    stops.append(hub.terminate())
                    hub = try Self.startHub(state: state, port: port)
                    try driver.send(line: "restarted")
                } else if line["done"] != nil {
                    break
                }
            }
            return (reports, stops)
        }
        #expect(stops == [0], "hearthd stopped cleanly for the restart")
        for name in Self.checks {
            let report = reports[name]
            #expect(report?.ok == true, "\(name): \(report?.detail ?? "not reported")")
        }
        for view in [
            "home", "detail", "history", "people", "scenes", "automations", "automation-form", "automation-edit",
        ] {
            for variant in ["desktop-light", "desktop-dark", "phone-light", "phone-dark"] {
                let path = "\(screenshots)/\(view)-\(variant).png"
                #expect(FileManager.default.fileExists(atPath: path), "\(path)")
            }
        }
    }
}
