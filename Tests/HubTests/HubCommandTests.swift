import Commands
import Foundation
import HAP
import HAPTypes
import HomeGraph
import Hub
import Simulator
import TestFixtures
import TestSupport
import Testing

/// Plain language through the hub: sentences carried out against a simulated bridge with the speaker's rights,
/// and the name index built once per version of the home's structure.
@Suite(.serialized)
struct HubCommandTests {
    let owner = UUID()
    let guest = UUID()

    /// A started hub with one home (owner and a shared user), a room "Study", and the test bridge paired into it.
    func pairedHub() async throws -> (hub: Hub, bridge: SimulatedBridge, home: UUID) {
        let bridge = try await SimulatedBridge.start()
        let hub = try await Hub(configuration: testConfiguration(folder: temporaryFolder()))
        try await hub.start()
        let home = try await hub.addHome(name: "Maple Street", ownerName: "Ada", as: .user(owner))
        try await hub.perform(.addUser(home: home.id, id: guest, name: "Cy", role: .shared), as: .user(owner))
        try await hub.perform(.addRoom(home: home.id, id: UUID(), name: "Study"), as: .user(owner))
        _ = try await hub.pairAccessory(
            home: home.id,
            host: "127.0.0.1",
            port: bridge.port,
            setupCode: try SetupCode(SimulatedBridge.setupCode),
            as: .user(owner)
        )
        return (hub, bridge, home.id)
    }

    /// The first light of the home and its `on` characteristic.
    func light(_ hub: Hub, _ homeID: UUID) throws -> (accessory: Accessory, on: Characteristic) {
        let home = try #require(hub.graph.home(withID: homeID))
        let lamp = try #require(home.accessories.first { $0.category == .lightbulb })
        return (lamp, try home.characteristic(ShortType.on, ofAccessoryNamed: lamp.name))
    }

    /// The value the simulated accessory itself has now (not the hub's cache).
    func simulated(
        _ bridge: SimulatedBridge,
        _ accessory: Accessory,
        _ characteristic: Characteristic
    ) async
        -> HAPValue?
    {
        let id = CharacteristicID(accessoryID: accessory.accessoryInstanceID, instanceID: characteristic.instanceID)
        guard case .success(let value) = await bridge.simulator.read([id])[id] else { return nil }
        return value
    }

    @Test func aSentenceTurnsOnALightAtTheAccessoryAndADryRunChangesNothing() async throws {
        let (hub, bridge, homeID) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let (lamp, on) = try light(hub, homeID)
        _ = try await hub.writeCharacteristics(home: homeID, [(on.id, .bool(false))], as: .user(owner))
        #expect(await simulated(bridge, lamp, on) == .bool(false))

        // A shared user controls: a dry run resolves, nothing reaches the accessory.
        let before = hub.graph
        let resolved = try await hub.perform(
            command: "turn on \(lamp.name)",
            home: homeID,
            room: nil,
            dryRun: true,
            as: .user(guest)
        )
        #expect(resolved.outcome == .control, "\(resolved.message)")
        #expect(resolved.dryRun && resolved.results == nil)
        #expect(resolved.actions?.map(\.characteristicID) == [on.id])
        #expect(await simulated(bridge, lamp, on) == .bool(false))
        #expect(hub.graph == before)

        // Carried out: the accessory itself is on, and each write is reported.
        let done = try await hub.perform(
            command: "turn on \(lamp.name)",
            home: homeID,
            room: nil,
            dryRun: false,
            as: .user(guest)
        )
        #expect(done.outcome == .control, "\(done.message)")
        #expect(!done.dryRun)
        #expect(done.results == [CommandActionResult(characteristicID: on.id, ok: true, value: .bool(true))])
        #expect(await simulated(bridge, lamp, on) == .bool(true))
        await hub.stop()
    }

    @Test func aSceneRunsAndAQuestionIsAnsweredFromCurrentValues() async throws {
        let (hub, bridge, homeID) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let (lamp, on) = try light(hub, homeID)
        _ = try await hub.writeCharacteristics(home: homeID, [(on.id, .bool(false))], as: .user(owner))
        let scene = UUID()
        try await hub.perform(
            .addActionSet(
                home: homeID,
                id: scene,
                name: "Movie Time",
                kind: .userDefined,
                actions: [Action(characteristicID: on.id, targetValue: .bool(true))]
            ),
            as: .user(owner)
        )
        let ran = try await hub.perform(
            command: "movie time",
            home: homeID,
            room: nil,
            dryRun: false,
            as: .user(guest)
        )
        #expect(ran.outcome == .scene, "\(ran.message)")
        #expect(ran.scene?.id == scene)
        #expect(ran.results?.map(\.ok) == [true])
        #expect(await simulated(bridge, lamp, on) == .bool(true))

        let answer = try await hub.perform(
            command: "is \(lamp.name) on?",
            home: homeID,
            room: nil,
            dryRun: false,
            as: .user(guest)
        )
        #expect(answer.outcome == .query, "\(answer.message)")
        #expect(answer.query?.targets.first?.value == .bool(true))
        await hub.stop()
    }

    @Test func theNameIndexIsBuiltOncePerStructureAndANewNameWorks() async throws {
        let (hub, bridge, homeID) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let (lamp, on) = try light(hub, homeID)
        let builds = await hub.commandIndexBuilds
        for text in ["turn on \(lamp.name)", "is \(lamp.name) on?", "turn off \(lamp.name)"] {
            _ = try await hub.perform(command: text, home: homeID, room: nil, dryRun: true, as: .hub)
        }
        #expect(await hub.commandIndexBuilds == builds + 1, "one index for three sentences")

        // Values change (through the hub and at the accessory): the index stays.
        _ = try await hub.writeCharacteristics(home: homeID, [(on.id, .bool(true))], as: .user(owner))
        try await bridge.simulator.set(
            accessory: "\(lamp.accessoryInstanceID)",
            characteristic: "\(on.instanceID)",
            value: .bool(false)
        )
        #expect(
            await eventually {
                (try? hub.graph.characteristic(withID: on.id, inHome: homeID).characteristic.value) == .bool(false)
            }
        )
        _ = try await hub.perform(command: "turn on the lights", home: homeID, room: nil, dryRun: true, as: .hub)
        #expect(await hub.commandIndexBuilds == builds + 1, "value changes do not rebuild the index")

        // A rename changes the structure: the index is rebuilt once, and the new name is understood.
        try await hub.perform(.renameAccessory(home: homeID, accessory: lamp.id, name: "Reading Lamp"), as: .hub)
        let renamed = try await hub.perform(
            command: "turn on reading lamp",
            home: homeID,
            room: nil,
            dryRun: true,
            as: .hub
        )
        #expect(await hub.commandIndexBuilds == builds + 2)
        _ = try await hub.perform(command: "turn off reading lamp", home: homeID, room: nil, dryRun: true, as: .hub)
        #expect(await hub.commandIndexBuilds == builds + 2)
        #expect(renamed.outcome == .control, "\(renamed.message)")
        #expect(renamed.actions?.map(\.accessoryID) == [lamp.id])
        await hub.stop()
    }

    @Test func hostileTextAndUnknownRoomsAreInvalidRequestsNamingTheField() async throws {
        let hub = try await Hub(configuration: testConfiguration(folder: temporaryFolder()))
        let home = try await hub.addHome(name: "Maple Street", ownerName: "Ada", as: .user(owner))
        try await hub.perform(.addRoom(home: home.id, id: UUID(), name: "Study"), as: .user(owner))
        for text in ["", "   ", String(repeating: "a", count: 1001), "turn on\nthe lamp", "lamp\u{0}", "\u{1B}[2J"] {
            await #expect(throws: HubError.self, "\(text.debugDescription)") {
                _ = try await hub.perform(command: text, home: home.id, room: nil, dryRun: true, as: .user(owner))
            }
            do {
                _ = try await hub.perform(command: text, home: home.id, room: nil, dryRun: true, as: .user(owner))
            } catch {
                guard case .invalidRequest(let message) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(message.hasPrefix("field 'text'"), "\(message)")
            }
        }
        // 1000 characters are fine; the room is found in any case.
        let long = String(repeating: "a", count: 1000)
        let answer = try await hub.perform(command: long, home: home.id, room: "study", dryRun: true, as: .hub)
        #expect(answer.text == long)
        do {
            _ = try await hub.perform(command: "lights on", home: home.id, room: "Attic", dryRun: true, as: .hub)
            Issue.record("an unknown room was accepted")
        } catch {
            #expect(error.code == "invalidRequest")
            #expect(error.sentence.hasPrefix("field 'room'"), "\(error.sentence)")
            #expect(error.sentence.contains("'Study'"), "\(error.sentence)")
        }
        // Someone who is not a user of the home finds no home.
        await #expect(throws: HubError.homeNotFound(home.id)) {
            _ = try await hub.perform(command: "lights on", home: home.id, room: nil, dryRun: true, as: .user(UUID()))
        }
        await hub.stop()
    }

    @Test func aSharedUserIsNotPermittedAConfigurationChangeAndNothingIsRenamed() async throws {
        let (hub, bridge, homeID) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let (lamp, _) = try light(hub, homeID)
        let before = hub.graph
        let refused = try await hub.perform(
            command: "rename \(lamp.name) to Desk Lamp",
            home: homeID,
            room: nil,
            dryRun: false,
            as: .user(guest)
        )
        #expect(refused.outcome == .notPermitted, "\(refused.message)")
        #expect(hub.graph == before, "nothing renamed")
        let renamed = try await hub.perform(
            command: "rename \(lamp.name) to Desk Lamp",
            home: homeID,
            room: nil,
            dryRun: false,
            as: .user(owner)
        )
        #expect(renamed.outcome == .configure, "\(renamed.message)")
        #expect(hub.graph.home(withID: homeID)?.accessory(lamp.id)?.name == "Desk Lamp")
        // A name the home already has is the sentence's wrong value, said as such; nothing changes.
        let room = try #require(hub.graph.home(withID: homeID)?.rooms.first)
        let unchanged = hub.graph
        let clash = try await hub.perform(
            command: "rename Desk Lamp to \(room.name)",
            home: homeID,
            room: nil,
            dryRun: false,
            as: .user(owner)
        )
        #expect(clash.outcome == .invalidValue, "\(clash.message)")
        #expect(clash.message.contains("taken"), "\(clash.message)")
        #expect(hub.graph == unchanged)
        await hub.stop()
    }
}
