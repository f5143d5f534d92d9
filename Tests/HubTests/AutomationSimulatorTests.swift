import Automation
import Foundation
import HAP
import HAPTypes
import HomeGraph
import Hub
import TestSupport
import Testing

/// A hub on a `ManualClock` paired with the real `hearth-sim` program on 127.0.0.1 (`--no-mdns`); the world is
/// changed through hearth-sim's control socket, and what the hub's automations did is read back there.
final class SimulatedHome: Sendable {
    static let setupCode = "031-45-154"

    let folder: String
    let simState: String
    let simulator: ChildProcess
    let hub: Hub
    let clock: ManualClock
    let owner: UUID
    let homeID: UUID

    /// Starts hearth-sim (a bridge of `presets`) and a hub whose clock shows `start`, with a home in `timeZone`
    /// that has the bridge paired (and, when given, the hub's group commit window).
    init(presets: [String], timeZone: String, start: Date, reportWindow: Duration? = nil) async throws {
        let folder = NSTemporaryDirectory() + "hub-automation-\(UUID().uuidString)"
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let simState = folder + "/sim"
        self.simState = simState
        let simulator = try ChildProcess(
            BuiltProducts.path("hearth-sim"),
            [
                "serve", "--unverified-timeout", "600", "--state", simState, "--port", "0", "--setup-code",
                Self.setupCode, "--no-mdns", "--json", "--bridge", "--coalesce-milliseconds", "0",
            ] + presets.flatMap { ["--preset", $0] },
            timeout: 300
        )
        self.simulator = simulator
        let announced = try await offThePool { try simulator.receive()["port"] as? Int }
        let port = try #require(announced, "hearth-sim says its port")
        let clock = ManualClock(start: start)
        self.clock = clock
        var configuration = testConfiguration(folder: folder + "/hub")
        configuration.clock = clock
        if let reportWindow { configuration.reportWindow = reportWindow }
        let hub = try await Hub(configuration: configuration)
        self.hub = hub
        try await hub.start()
        let owner = UUID()
        self.owner = owner
        let homeID = try await hub.addHome(
            name: "Maple Street",
            timeZoneIdentifier: timeZone,
            ownerName: "Ada",
            as: .user(owner)
        ).id
        self.homeID = homeID
        let added = try await hub.pairAccessory(
            home: homeID,
            host: "127.0.0.1",
            port: port,
            setupCode: try SetupCode(Self.setupCode),
            as: .user(owner)
        )
        try #require(added.count == presets.count + 1, "the bridge and each preset: \(added.map(\.name))")
    }

    /// Runs `body` with this rig, then stops it, also when `body` throws.
    func run(_ body: (SimulatedHome) async throws -> Void) async throws {
        do {
            try await body(self)
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    /// Stops the hub and the simulator, and removes the folder.
    func stop() async {
        await hub.stop()
        let simulator = simulator
        _ = await offThePool { simulator.terminate() }
        try? FileManager.default.removeItem(atPath: folder)
    }

    var home: Home {
        get throws { try #require(hub.graph.home(withID: homeID)) }
    }

    /// The characteristic of `type` on the accessory named `name`.
    func characteristic(_ type: HAPUUID, of name: String) throws -> Characteristic {
        try home.characteristic(type, ofAccessoryNamed: name)
    }

    /// Runs a hearth-sim control command on the simulator; returns what it printed.
    @discardableResult
    func sim(_ arguments: String...) async throws -> String {
        let result = try await runBuiltProgram(
            "hearth-sim",
            [arguments[0], "--state", simState] + arguments.dropFirst()
        )
        try #require(result.status == 0, "hearth-sim \(arguments): \(result.errors)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The value of a characteristic as the accessory (hearth-sim) has it, as JSON text.
    func accessoryValue(_ accessory: String, _ characteristic: String) async throws -> String {
        try await sim("get", accessory, characteristic)
    }

    /// Waits until the accessory has `expected` (JSON text) for a characteristic.
    func waitForAccessory(_ accessory: String, _ characteristic: String, _ expected: String) async throws {
        try await waitUntil("\(accessory) \(characteristic) = \(expected) at the accessory", every: .milliseconds(100))
        {
            try await self.accessoryValue(accessory, characteristic) == expected
        }
    }

    /// Waits until the hub's graph holds `value` for a characteristic (the hub heard the accessory's event).
    func waitForHub(_ id: UUID, _ value: HAPValue) async throws {
        try await waitUntil("the hub sees \(value) for \(id)") {
            try self.home.accessories.lazy.flatMap(\.characteristics).first { $0.id == id }?.value == value
        }
    }

    /// Makes an action set named `name` writing `actions`, or gives an existing one of that name these actions.
    func scene(_ name: String, _ actions: [Action]) async throws -> UUID {
        if let existing = try home.actionSets.first(where: { $0.name == name }) {
            _ = try await hub.perform(
                .setActions(home: homeID, actionSet: existing.id, actions: actions),
                as: .user(owner)
            )
            return existing.id
        }
        let id = UUID()
        _ = try await hub.perform(.addActionSet(home: homeID, id: id, name: name, actions: actions), as: .user(owner))
        return id
    }

    /// Adds a trigger.
    func trigger(_ name: String, runs actionSetIDs: [UUID], _ definition: TriggerDefinition) async throws -> UUID {
        let id = UUID()
        let trigger = Trigger(
            id: id,
            name: name,
            actionSetIDs: actionSetIDs,
            definition: definition,
            creatorID: owner
        )
        _ = try await hub.perform(.addTrigger(home: homeID, trigger: trigger), as: .user(owner))
        return id
    }

    /// The decisions stored for a trigger (in the committed graph).
    func decisions(_ triggerID: UUID) throws -> [TriggerDecision] {
        try #require(try home.triggers.first { $0.id == triggerID }).state.decisions
    }

    /// Waits until a trigger has `count` stored decisions, the writes of the last one recorded when it fired; returns
    /// them.
    func waitForDecisions(_ triggerID: UUID, count: Int) async throws -> [TriggerDecision] {
        var decisions: [TriggerDecision] = []
        try await waitUntil("\(count) decisions") {
            decisions = try self.decisions(triggerID)
            guard decisions.count >= count, let last = decisions.last else { return false }
            return last.outcome == .skipped || !last.writes.isEmpty
        }
        #expect(decisions.count == count, "\(decisions)")
        return decisions
    }

    /// The instant of a local date and time in the home's time zone.
    static func instant(
        _ timeZone: String,
        _ year: Int,
        _ month: Int,
        _ day: Int,
        _ hour: Int,
        _ minute: Int
    ) throws
        -> Date
    {
        let zone = try #require(TimeZone(identifier: timeZone))
        return HomeClock(timeZone: zone).instant(
            of: LocalDateTime(year: year, month: month, day: day, time: TimeOfDay(hour: hour, minute: minute))
        )
    }
}

/// The types the tests use.
enum AutomationType {
    static let lockCurrentState = HAPUUID(apple: 0x1D)
    static let motionDetected = HAPUUID(apple: 0x22)
    static let on = HAPUUID(apple: 0x25)
    static let programmableSwitchEvent = HAPUUID(apple: 0x73)
}

/// The issue's seed scenario and a programmable switch, end to end: hearth-sim accessories driven through their
/// control socket, the hub's automations on a manual clock, the lamp read back at the accessory.
@Suite(.serialized)
struct AutomationSimulatorTests {
    static let zone = "Europe/Berlin"

    /// Front door unlocks, before 18:00, motion in the hallway: Arrive Home turns the lamp on; at 18:30 it does not,
    /// nor without motion, and each decision says why with the values it saw.
    @Test func theFrontDoorRunsArriveHomeBefore18WithMotionOnly() async throws {
        let rig = try await SimulatedHome(
            presets: ["door-lock", "motion-sensor", "lightbulb"],
            timeZone: Self.zone,
            start: try SimulatedHome.instant(Self.zone, 2025, 3, 12, 17, 0)
        )
        try await rig.run { rig in
            let lock = try rig.characteristic(AutomationType.lockCurrentState, of: "Door Lock")
            let motion = try rig.characteristic(AutomationType.motionDetected, of: "Motion Sensor")
            let lamp = try rig.characteristic(AutomationType.on, of: "Lightbulb")
            let arriveHome = try await rig.scene(
                "Arrive Home",
                [Action(characteristicID: lamp.id, targetValue: .bool(true))]
            )
            let welcome = try await rig.trigger(
                "Welcome",
                runs: [arriveHome],
                TriggerDefinition(
                    events: [.characteristic(id: lock.id, value: .uint(0))],
                    condition: .all([
                        .time(after: nil, before: .clock(TimeOfDay(hour: 18, minute: 0))),
                        .characteristic(id: motion.id, comparison: .equal, value: .bool(true)),
                    ])
                )
            )
            try await rig.waitForHub(lock.id, .uint(1))
            #expect(try await rig.accessoryValue("Lightbulb", "on") == "false")

            // 17:00, motion: the door unlocks and Arrive Home turns the lamp on, at the accessory.
            try await rig.sim("trigger", "Motion Sensor", "motion")
            try await rig.waitForHub(motion.id, .bool(true))
            try await rig.sim("trigger", "Door Lock", "unlock")
            var decisions = try await rig.waitForDecisions(welcome, count: 1)
            try await rig.waitForAccessory("Lightbulb", "on", "true")
            let fired = try #require(decisions.last)
            #expect(fired.outcome == .fired, "\(fired)")
            #expect(fired.cause.contains("became 0"), "\(fired.cause)")
            #expect(fired.conditions.count == 2 && fired.conditions.allSatisfy { $0.holds }, "\(fired.conditions)")
            #expect(fired.conditions.contains { $0.condition == "before 18:00" && $0.observed.hasPrefix("17:00") })
            #expect(fired.conditions.contains { $0.condition.hasSuffix("== true") && $0.observed == "true" })
            #expect(fired.writes.map(\.characteristicID) == [lamp.id] && fired.writes.allSatisfy { $0.error == nil })

            // 18:30, motion: the door unlocks, nothing runs; the decision names the time it saw.
            try await rig.sim("set", "Lightbulb", "on", "false")
            try await rig.waitForHub(lamp.id, .bool(false))
            try await rig.sim("trigger", "Door Lock", "lock")
            try await rig.waitForHub(lock.id, .uint(1))
            rig.clock.advance(to: try SimulatedHome.instant(Self.zone, 2025, 3, 12, 18, 30))
            try await rig.sim("trigger", "Door Lock", "unlock")
            decisions = try await rig.waitForDecisions(welcome, count: 2)
            let late = try #require(decisions.last)
            #expect(late.outcome == .skipped, "\(late)")
            #expect(late.reason?.contains("before 18:00 (saw 18:30") == true, "\(late.reason ?? "")")
            #expect(late.conditions.contains { $0.condition == "before 18:00" && !$0.holds })
            #expect(late.conditions.contains { $0.condition.hasSuffix("== true") && $0.holds })
            #expect(late.writes.isEmpty)
            #expect(try await rig.accessoryValue("Lightbulb", "on") == "false")

            // The next day at 17:00 without motion: nothing runs; the decision says motion was false.
            try await rig.sim("trigger", "Door Lock", "lock")
            try await rig.waitForHub(lock.id, .uint(1))
            rig.clock.advance(to: try SimulatedHome.instant(Self.zone, 2025, 3, 13, 17, 0))
            try await rig.sim("trigger", "Motion Sensor", "still")
            try await rig.waitForHub(motion.id, .bool(false))
            try await rig.sim("trigger", "Door Lock", "unlock")
            decisions = try await rig.waitForDecisions(welcome, count: 3)
            let still = try #require(decisions.last)
            #expect(still.outcome == .skipped, "\(still)")
            #expect(still.reason?.contains("== true (saw false)") == true, "\(still.reason ?? "")")
            #expect(still.conditions.contains { $0.condition == "before 18:00" && $0.holds })
            #expect(
                still.conditions.contains { $0.condition.hasSuffix("== true") && $0.observed == "false" && !$0.holds }
            )
            #expect(try await rig.accessoryValue("Lightbulb", "on") == "false")
            #expect(try rig.decisions(welcome).filter { $0.outcome == .fired }.count == 1)
        }
    }

    /// The same with "after 30 minutes before sunset" in Berlin: an hour before sunset the door does nothing, ten
    /// minutes after sunset-30m it runs Arrive Home.
    @Test func theFrontDoorRunsArriveHomeFromThirtyMinutesBeforeSunset() async throws {
        let berlin = Location(latitude: 52.52, longitude: 13.405)
        let zone = try #require(TimeZone(identifier: Self.zone))
        let noon = try SimulatedHome.instant(Self.zone, 2025, 3, 12, 12, 0)
        let sunTime = HomeClock(timeZone: zone).sunTime(
            .sunset,
            offsetSeconds: 0,
            latitude: berlin.latitude,
            longitude: berlin.longitude,
            onDayOf: noon
        )
        guard case .at(let sunset) = sunTime else {
            Issue.record("Berlin has a sunset on 12 March: \(sunTime)")
            return
        }
        // Published for Berlin on 12 March 2025: sunset 18:05 CET.
        #expect(abs(sunset.timeIntervalSince(try SimulatedHome.instant(Self.zone, 2025, 3, 12, 18, 5))) < 120)
        let rig = try await SimulatedHome(
            presets: ["door-lock", "motion-sensor", "lightbulb"],
            timeZone: Self.zone,
            start: sunset.addingTimeInterval(-3600)
        )
        try await rig.run { rig in
            _ = try await rig.hub.perform(.setLocation(home: rig.homeID, location: berlin), as: .user(rig.owner))
            let lock = try rig.characteristic(AutomationType.lockCurrentState, of: "Door Lock")
            let motion = try rig.characteristic(AutomationType.motionDetected, of: "Motion Sensor")
            let lamp = try rig.characteristic(AutomationType.on, of: "Lightbulb")
            let arriveHome = try await rig.scene(
                "Arrive Home",
                [Action(characteristicID: lamp.id, targetValue: .bool(true))]
            )
            let welcome = try await rig.trigger(
                "Welcome",
                runs: [arriveHome],
                TriggerDefinition(
                    events: [.characteristic(id: lock.id, value: .uint(0))],
                    condition: .all([
                        .time(after: .sun(.sunset, offsetSeconds: -1800), before: nil),
                        .characteristic(id: motion.id, comparison: .equal, value: .bool(true)),
                    ])
                )
            )
            try await rig.sim("trigger", "Motion Sensor", "motion")
            try await rig.waitForHub(motion.id, .bool(true))
            try await rig.waitForHub(lock.id, .uint(1))

            // An hour before sunset: 30 minutes too early.
            try await rig.sim("trigger", "Door Lock", "unlock")
            var decisions = try await rig.waitForDecisions(welcome, count: 1)
            let early = try #require(decisions.last)
            #expect(early.outcome == .skipped, "\(early)")
            #expect(early.reason?.contains("after sunset-30m") == true, "\(early.reason ?? "")")
            let timeCheck = try #require(early.conditions.first { $0.condition == "after sunset-30m" })
            let from = HomeClock(timeZone: zone).local(sunset.addingTimeInterval(-1800)).time
            #expect(!timeCheck.holds && timeCheck.observed.contains("from \(from)"), "\(timeCheck)")
            #expect(try await rig.accessoryValue("Lightbulb", "on") == "false")

            // Ten minutes after sunset-30m: it runs, the lamp comes on at the accessory.
            try await rig.sim("trigger", "Door Lock", "lock")
            try await rig.waitForHub(lock.id, .uint(1))
            rig.clock.advance(to: sunset.addingTimeInterval(-1200))
            try await rig.sim("trigger", "Door Lock", "unlock")
            decisions = try await rig.waitForDecisions(welcome, count: 2)
            let fired = try #require(decisions.last)
            #expect(fired.outcome == .fired, "\(fired)")
            #expect(fired.conditions.allSatisfy { $0.holds }, "\(fired.conditions)")
            try await rig.waitForAccessory("Lightbulb", "on", "true")
        }
    }

    /// A stateless programmable switch: a single press runs one scene, a long press another; pressing single twice
    /// runs its scene twice (a press is an event, not a state), and a double press runs neither.
    @Test func aProgrammableSwitchRunsOneSceneOnSinglePressAndAnotherOnLongPress() async throws {
        let rig = try await SimulatedHome(
            presets: ["programmable-switch", "lightbulb"],
            timeZone: Self.zone,
            start: try SimulatedHome.instant(Self.zone, 2025, 3, 12, 12, 0)
        )
        try await rig.run { rig in
            let button = try rig.characteristic(AutomationType.programmableSwitchEvent, of: "Programmable Switch")
            let lamp = try rig.characteristic(AutomationType.on, of: "Lightbulb")
            let lampOn = try await rig.scene("Lamp On", [Action(characteristicID: lamp.id, targetValue: .bool(true))])
            let lampOff = try await rig.scene(
                "Lamp Off",
                [Action(characteristicID: lamp.id, targetValue: .bool(false))]
            )
            let single = try await rig.trigger(
                "Single Press",
                runs: [lampOn],
                TriggerDefinition(events: [.characteristic(id: button.id, value: .uint(0))])
            )
            let long = try await rig.trigger(
                "Long Press",
                runs: [lampOff],
                TriggerDefinition(events: [.characteristic(id: button.id, value: .uint(2))])
            )

            try await rig.sim("press", "Programmable Switch", "single")
            _ = try await rig.waitForDecisions(single, count: 1)
            try await rig.waitForAccessory("Lightbulb", "on", "true")
            #expect(try rig.decisions(long).isEmpty)

            // The same press again is a new event, though the value is the one the switch sent last.
            try await rig.sim("set", "Lightbulb", "on", "false")
            try await rig.waitForHub(lamp.id, .bool(false))
            try await rig.sim("press", "Programmable Switch", "single")
            _ = try await rig.waitForDecisions(single, count: 2)
            try await rig.waitForAccessory("Lightbulb", "on", "true")

            try await rig.sim("press", "Programmable Switch", "long")
            _ = try await rig.waitForDecisions(long, count: 1)
            try await rig.waitForAccessory("Lightbulb", "on", "false")

            // A double press runs neither; the single press after it runs its scene.
            try await rig.sim("press", "Programmable Switch", "double")
            try await rig.sim("press", "Programmable Switch", "single")
            let singles = try await rig.waitForDecisions(single, count: 3)
            try await rig.waitForAccessory("Lightbulb", "on", "true")
            #expect(singles.allSatisfy { $0.outcome == .fired && $0.writes.allSatisfy { $0.error == nil } })
            let longs = try rig.decisions(long)
            #expect(longs.count == 1 && longs.first?.outcome == .fired, "\(longs)")
        }
    }
}
