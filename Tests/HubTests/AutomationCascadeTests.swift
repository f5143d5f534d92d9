import Automation
import Foundation
import HAPTypes
import HomeGraph
import Hub
import TestSupport
import Testing

/// Writes an automation makes set off other triggers at most four deep: a chain of six lamps, each trigger turning
/// on the next when its lamp turns on, stops after the fourth automation's writes.
@Suite(.serialized)
struct AutomationCascadeTests {
    @Test func aChainOfTriggersStopsFourDeep() async throws {
        let rig = try await SimulatedHome(
            presets: Array(repeating: "lightbulb", count: 6),
            timeZone: "Europe/Berlin",
            start: try SimulatedHome.instant("Europe/Berlin", 2025, 3, 12, 12, 0)
        )
        try await rig.run { rig in
            let names = (1...6).map { "Lightbulb \($0)" }
            let lamps = try names.map { try rig.characteristic(AutomationType.on, of: $0) }
            var triggers: [UUID] = []
            for step in 0..<5 {
                let scene = try await rig.scene(
                    "Next \(step + 2)",
                    [Action(characteristicID: lamps[step + 1].id, targetValue: .bool(true))]
                )
                triggers.append(
                    try await rig.trigger(
                        "Chain \(step + 1)",
                        runs: [scene],
                        TriggerDefinition(events: [.characteristic(id: lamps[step].id, value: .bool(true))])
                    )
                )
            }
            // A person turns the first lamp on (cascade 0); four automations follow, each a level deeper.
            let written = try await rig.hub.writeCharacteristics(
                home: rig.homeID,
                [(characteristic: lamps[0].id, value: .bool(true))],
                as: .user(rig.owner)
            )
            #expect((try? written[lamps[0].id]?.get()) == .bool(true))
            for lamp in names[1...4] { try await rig.waitForAccessory(lamp, "on", "true") }
            for trigger in triggers[0..<4] { _ = try await rig.waitForDecisions(trigger, count: 1) }
            // The fifth trigger heard nothing: the fourth automation's writes reach no further.
            try await Task.sleep(for: .seconds(1))
            #expect(try rig.decisions(triggers[4]).isEmpty)
            #expect(try await rig.accessoryValue("Lightbulb 6", "on") == "false")
            // The limit is per chain, not per trigger: a person's write to lamp 5 still fires the fifth.
            _ = try await rig.hub.writeCharacteristics(
                home: rig.homeID,
                [(characteristic: lamps[4].id, value: .bool(false))],
                as: .user(rig.owner)
            )
            _ = try await rig.hub.writeCharacteristics(
                home: rig.homeID,
                [(characteristic: lamps[4].id, value: .bool(true))],
                as: .user(rig.owner)
            )
            try await rig.waitForAccessory("Lightbulb 6", "on", "true")
        }
    }
}
