import Foundation
import HearthAPI
import HearthKit
import HomeGraph
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Durable automations with real processes, `hearthd` killed and started again.
///
/// hearthd runs on a scaled test clock (`HEARTH_CLOCK`, 30 clock seconds per second) with a `hearth-sim` bridge on
/// 127.0.0.1, driven through its control socket. hearthd is killed with SIGKILL while a duration runs and an end
/// is pending, and started again on the same state folder and clock: both still happen at their clock time, once.
@Suite(.serialized)
struct AutomationRestartTests {
    static let setupCode = "031-45-154"
    /// Clock seconds per real second.
    static let speed = 30.0
    /// How late (clock seconds) an action may come on a loaded machine: 4 real seconds.
    static let lateness = 4 * speed

    /// The scaled clock both hearthd processes share.
    struct TestClock {
        let start = Date(timeIntervalSince1970: 1_749_549_600)  // 2025-06-10 10:00 UTC
        let realStart = Date()

        var specification: String {
            "start=\(start.timeIntervalSince1970),real=\(realStart.timeIntervalSince1970),speed=\(speed)"
        }

        /// The time hearthd's clock shows now.
        var now: Date { start.addingTimeInterval(Date().timeIntervalSince(realStart) * speed) }
    }

    /// Starts hearthd on `state` with the test clock; returns it and a client of its API once it serves.
    static func startHearthd(state: String, clock: TestClock) async throws -> (ChildProcess, HearthClient) {
        let child = try ChildProcess(
            "/usr/bin/env",
            [
                "HEARTH_CLOCK=\(clock.specification)", BuiltProducts.path("hearthd"), "--state", state, "--port", "0",
                "--no-user-config", "--log-level", "warning",
            ],
            timeout: 240
        )
        try await offThePool {
            while try !child.readLine().hasPrefix("Stop with") {}
        }
        let configuration = try ClientConfiguration.read(fromPath: state + "/client.json")
        return (child, HearthClient(configuration: configuration))
    }

    /// Starts `hearth-sim serve` with a bridge of two lamps, a motion sensor and a door lock; returns it and its port.
    static func startSimulator(state: String) async throws -> (ChildProcess, Int) {
        let child = try ChildProcess(
            BuiltProducts.path("hearth-sim"),
            [
                "serve", "--unverified-timeout", "600", "--state", state, "--port", "0", "--setup-code", setupCode,
                "--no-mdns", "--json", "--bridge", "--coalesce-milliseconds", "0", "--preset", "lightbulb:2",
                "--preset", "motion-sensor", "--preset", "door-lock",
            ],
            timeout: 240
        )
        let port = try await offThePool { try child.receive()["port"] as? Int }
        return (child, try #require(port, "hearth-sim says its port"))
    }

    /// Runs a hearth-sim control command; returns what it printed.
    @discardableResult
    static func sim(_ state: String, _ arguments: String...) async throws -> String {
        let result = try await runBuiltProgram("hearth-sim", [arguments[0], "--state", state] + arguments.dropFirst())
        try #require(result.status == 0, "hearth-sim \(arguments): \(result.errors)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Pairs the accessory at 127.0.0.1:`port` through the API (HearthKit pairs by device id only).
    static func pair(_ client: HearthClient, hubState: String, port: Int, home: UUID) async throws {
        let configuration = try ClientConfiguration.read(fromPath: hubState + "/client.json")
        var request = URLRequest(url: try #require(URL(string: client.baseURL + "/v1/homes/\(home)/accessories")))
        request.httpMethod = "POST"
        request.setValue("Bearer \(configuration.token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(
            PairAccessoryBody(host: "127.0.0.1", port: port, setupCode: setupCode)
        )
        request.timeoutInterval = 120
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        try #require(status == 200 || status == 201, "pairing: \(status) \(String(decoding: data, as: UTF8.self))")
    }

    @Test func noMotionAndAnEndDelayStillActOnceAtTheirTimeAcrossASigkillOfHearthd() async throws {
        let folder = NSTemporaryDirectory() + "automation-restart-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let simState = folder + "/sim"
        let hubState = folder + "/hub"
        let (simulator, port) = try await Self.startSimulator(state: simState)
        defer { simulator.terminate() }
        let clock = TestClock()
        var (hearthd, client) = try await Self.startHearthd(state: hubState, clock: clock)
        defer { hearthd.terminate() }

        let homeID = try await client.createHome(name: "Maple Street", timeZone: "Europe/Berlin").home.id
        try await Self.pair(client, hubState: hubState, port: port, home: homeID)
        let accessories = try await client.accessories(inHome: homeID)
        func characteristic(_ type: UInt32, of name: String) throws -> UUID {
            let accessory = try #require(accessories.first { $0.name == name }, "\(accessories.map(\.name))")
            return try #require(accessory.characteristics.first { $0.type == HAPUUID(apple: type) }).id
        }
        let hallLamp = try characteristic(0x25, of: "Lightbulb 1")
        let porchLamp = try characteristic(0x25, of: "Lightbulb 2")
        let motion = try characteristic(0x22, of: "Motion Sensor")
        let lock = try characteristic(0x1D, of: "Door Lock")
        func hubValue(_ id: UUID) async throws -> HAPValue? {
            try await client.characteristic(id, inHome: homeID).characteristic.value
        }

        // The hall lamp is on and there is motion; the porch lamp is off.
        try await Self.sim(simState, "set", "Lightbulb 1", "on", "true")
        try await Self.sim(simState, "trigger", "Motion Sensor", "motion")
        try await waitUntil("the hub sees the lamp on and motion", every: .milliseconds(100)) {
            let lamp = try await hubValue(hallLamp)
            let moving = try await hubValue(motion)
            return lamp == .bool(true) && moving == .bool(true)
        }
        #expect(try await Self.sim(simState, "get", "Lightbulb 2", "on") == "false")

        let lightsOff = try await client.addActionSet(
            named: "Lights Off",
            actions: [Action(characteristicID: hallLamp, targetValue: .bool(false))],
            toHome: homeID
        ).object.id
        let porchOn = try await client.addActionSet(
            named: "Porch Light",
            actions: [Action(characteristicID: porchLamp, targetValue: .bool(true))],
            toHome: homeID
        ).object.id
        let noMotion = try await client.addTrigger(
            named: "No motion for 10 minutes",
            actionSetIDs: [lightsOff],
            definition: TriggerDefinition(events: [
                .duration(condition: .characteristic(id: motion, comparison: .equal, value: .bool(false)), seconds: 600)
            ]),
            toHome: homeID
        ).object.id
        let porch = try await client.addTrigger(
            named: "Porch light for 5 minutes",
            actionSetIDs: [porchOn],
            definition: TriggerDefinition(
                events: [.characteristic(id: lock, value: .uint(0))],
                end: TriggerEnd(afterSeconds: 300)
            ),
            toHome: homeID
        ).object.id

        // The motion stops and the door unlocks: the duration runs, the porch light comes on with an end pending.
        try await Self.sim(simState, "trigger", "Motion Sensor", "still")
        try await Self.sim(simState, "trigger", "Door Lock", "unlock")
        var triggers: [UUID: Trigger] = [:]
        func refresh() async throws {
            triggers = Dictionary(uniqueKeysWithValues: try await client.triggers(inHome: homeID).map { ($0.id, $0) })
        }
        try await waitUntil("the duration and the pending end are stored", every: .milliseconds(50)) {
            try await refresh()
            let running = triggers[noMotion]?.state.holdingSince[0] != nil
            let pending = triggers[porch]?.state.pendingEnd
            return running && pending?.restore.isEmpty == false
                && triggers[porch]?.state.decisions.last?.writes.isEmpty == false
        }
        #expect(try await Self.sim(simState, "get", "Lightbulb 2", "on") == "true")
        let stillSince = try #require(triggers[noMotion]?.state.holdingSince[0])
        let firedAt = try #require(triggers[porch]?.state.pendingEnd?.firedAt)
        let endDue = try #require(triggers[porch]?.state.pendingEnd?.due)
        #expect(endDue == firedAt.addingTimeInterval(300))
        #expect(
            triggers[porch]?.state.pendingEnd?.restore == [
                Action(characteristicID: porchLamp, targetValue: .bool(false))
            ]
        )
        try #require(clock.now < endDue.addingTimeInterval(-120), "the setup took too long to kill hearthd in time")

        // SIGKILL: no clean stop. Then the same state folder and the same clock again.
        let firstPID = hearthd.processIdentifier
        #expect(kill(firstPID, SIGKILL) == 0)
        let killed = hearthd
        #expect(await offThePool { killed.waitForExit() } == SIGKILL)
        (hearthd, client) = try await Self.startHearthd(state: hubState, clock: clock)
        #expect(hearthd.processIdentifier != firstPID)
        if clock.now < endDue.addingTimeInterval(-30) {
            #expect(try await Self.sim(simState, "get", "Lightbulb 2", "on") == "true", "the end does not come early")
        }

        // The porch light goes off again 5 minutes after it came on, and the hall lamp 10 minutes after the motion.
        try await waitUntil("the porch lamp off at the accessory", timeout: .seconds(90), every: .milliseconds(100)) {
            try await Self.sim(simState, "get", "Lightbulb 2", "on") == "false"
        }
        try await waitUntil("the hall lamp off at the accessory", timeout: .seconds(90), every: .milliseconds(100)) {
            try await Self.sim(simState, "get", "Lightbulb 1", "on") == "false"
        }
        try await waitUntil("both decisions stored with their writes", every: .milliseconds(50)) {
            try await refresh()
            let ended = triggers[porch]?.state.decisions.last { $0.outcome == .ended }
            let fired = triggers[noMotion]?.state.decisions.last { $0.outcome == .fired }
            return ended?.writes.isEmpty == false && fired?.writes.isEmpty == false
        }
        // A while later (90 clock seconds) nothing more has happened: each ran once.
        try await Task.sleep(for: .seconds(3))
        try await refresh()
        let porchDecisions = try #require(triggers[porch]?.state.decisions)
        #expect(porchDecisions.map(\.outcome) == [.fired, .ended], "\(porchDecisions)")
        let ended = try #require(porchDecisions.last)
        #expect(ended.at >= endDue && ended.at < endDue.addingTimeInterval(Self.lateness), "\(ended.at) for \(endDue)")
        #expect(ended.writes == [WriteRecord(characteristicID: porchLamp, value: .bool(false))], "\(ended.writes)")
        #expect(triggers[porch]?.state.pendingEnd == nil)

        let noMotionDecisions = try #require(triggers[noMotion]?.state.decisions)
        #expect(noMotionDecisions.map(\.outcome) == [.fired], "\(noMotionDecisions)")
        let fired = try #require(noMotionDecisions.last)
        let due = stillSince.addingTimeInterval(600)
        #expect(fired.at >= due && fired.at < due.addingTimeInterval(Self.lateness), "\(fired.at) for \(due)")
        #expect(fired.writes == [WriteRecord(characteristicID: hallLamp, value: .bool(false))], "\(fired.writes)")
        #expect(try await Self.sim(simState, "get", "Lightbulb 1", "on") == "false")
        #expect(try await Self.sim(simState, "get", "Lightbulb 2", "on") == "false")
        #expect(hearthd.terminate() == 0)
    }
}
