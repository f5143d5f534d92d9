import Foundation
import TestSupport
import Testing

import enum HAPTypes.HAPValue

@testable import HomeGraph

/// Random operation sequences: a failure never changes the graph, a success reports exactly what it changed, and
/// the graph's rules hold after every step.
@Suite struct PropertyTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomOperationsKeepTheRules(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var maker = OperationMaker(ids: SeededIDGenerator(seed: seed))
        var graph = HomeGraph(historyLimit: 50)
        var successes = 0
        for step in 0..<400 {
            let operation = maker.make(for: graph, using: &random)
            let before = graph
            do {
                let events = try graph.apply(operation)
                successes += 1
                #expect(
                    (graph != before) == !events.isEmpty,
                    "seed \(seed) step \(step): \(operation) changed the graph without reporting it, or the reverse"
                )
                var expected = before.lastSequences
                for event in events {
                    let next = (expected[event.homeID] ?? 0) + 1
                    #expect(event.sequence == next, "seed \(seed) step \(step): sequence \(event.sequence)")
                    expected[event.homeID] = next
                }
                for event in events where event.change != .homeRemoved {
                    let history = try graph.changes(after: event.sequence - 1, inHome: event.homeID)
                    #expect(history.events?.first == event, "seed \(seed) step \(step): history lost \(event)")
                }
            } catch {
                #expect(graph == before, "seed \(seed) step \(step): failed \(operation) changed the graph")
            }
            checkRules(graph, seed: seed, step: step)
        }
        #expect(successes > 50, "seed \(seed): too few operations succeeded to mean much")
    }

    private func checkRules(_ graph: HomeGraph, seed: UInt64, step: Int) {
        let context = "seed \(seed) step \(step)"
        #expect(graph.homes.isEmpty || graph.homes.filter(\.isPrimary).count == 1, "\(context): primary homes")
        #expect(Set(graph.homes.map { Names.key($0.name) }).count == graph.homes.count, "\(context): home names")
        for home in graph.homes {
            // A service may carry its own accessory's name (once); every other name is the only one of its kind.
            var ownNames: Set<UUID> = []
            for accessory in home.accessories {
                let key = Names.key(accessory.name)
                if let own = accessory.services.first(where: { !$0.isHiddenFromPeople && Names.key($0.name) == key }) {
                    ownNames.insert(own.id)
                }
            }
            let names = home.uniquelyNamedObjects.filter { !ownNames.contains($0.reference.id) }.map {
                Names.key($0.name)
            }
            #expect(Set(names).count == names.count, "\(context): names in \(home.name)")
            let rooms = Set(home.allRooms.map(\.id))
            let services = Set(home.accessories.flatMap { $0.services.map(\.id) })
            let characteristics = Set(home.accessories.flatMap { $0.characteristics.map(\.id) })
            let actionSets = Set(home.actionSets.map(\.id))
            #expect(home.accessories.allSatisfy { rooms.contains($0.roomID) }, "\(context): accessory rooms")
            #expect(
                home.zones.allSatisfy {
                    $0.roomIDs.allSatisfy { $0 != home.roomForEntireHome.id && rooms.contains($0) }
                },
                "\(context): zone rooms"
            )
            #expect(
                home.serviceGroups.allSatisfy { $0.serviceIDs.allSatisfy(services.contains) },
                "\(context): group services"
            )
            #expect(
                home.actionSets.allSatisfy { $0.actions.allSatisfy { characteristics.contains($0.characteristicID) } },
                "\(context): actions"
            )
            #expect(
                home.triggers.allSatisfy { $0.actionSetIDs.allSatisfy(actionSets.contains) },
                "\(context): trigger action sets"
            )
            #expect(home.users.filter { $0.role == .owner }.count <= 1, "\(context): owners")
        }
    }
}

/// Makes random operations that often name real objects and often clash, so both outcomes are common.
struct OperationMaker {
    var ids: SeededIDGenerator
    let names = ["Kitchen", "kitchen ", "Küche", "KUCHE", "Hall", "Lamp", "lamp", "Upstairs", "Night", " ", "東京"]

    mutating func make(for graph: HomeGraph, using random: inout SplitMix64) -> HomeOperation {
        let name = names.randomElement(using: &random) ?? "Hall"
        guard let home = graph.homes.randomElement(using: &random), Int.random(in: 0..<20, using: &random) > 0 else {
            return .addHome(id: ids.makeID(), name: name, roomForEntireHomeID: ids.makeID())
        }
        func pick(_ candidates: [UUID], _ random: inout SplitMix64) -> UUID {
            // One time in eight, an id nobody has.
            if candidates.isEmpty || Int.random(in: 0..<8, using: &random) == 0 { return UUID() }
            return candidates.randomElement(using: &random) ?? UUID()
        }
        let h = home.id
        let room = pick(home.allRooms.map(\.id), &random)
        let zone = pick(home.zones.map(\.id), &random)
        let accessory = pick(home.accessories.map(\.id), &random)
        let service = pick(home.accessories.flatMap { $0.services.map(\.id) }, &random)
        let characteristic = pick(home.accessories.flatMap { $0.characteristics.map(\.id) }, &random)
        let group = pick(home.serviceGroups.map(\.id), &random)
        let actionSet = pick(home.actionSets.map(\.id), &random)
        let trigger = pick(home.triggers.map(\.id), &random)
        let user = pick(home.users.map(\.id), &random)
        let value: HAPValue =
            [.bool(true), .int(50), .int(150), .float(20.5), .string("x")].randomElement(using: &random)
            ?? .bool(true)
        let flag = Bool.random(using: &random)
        let role = UserRole.allCases.randomElement(using: &random) ?? .shared
        let kind = ActionSetKind.allCases.randomElement(using: &random) ?? .userDefined
        let lamp = Fixture.makeLamp(name, room: room, bridge: flag ? nil : accessory, ids: &ids)
        let operations: [HomeOperation] = [
            .removeHome(h), .setPrimaryHome(h), .renameHome(h, name: name),
            .setLocation(home: h, location: Location(latitude: flag ? 45 : 100, longitude: 7)),
            .setTimeZone(home: h, identifier: flag ? "Europe/Paris" : "Nowhere/None"),
            .setTemperatureUnit(home: h, unit: flag ? .fahrenheit : .celsius),
            .addRoom(home: h, id: ids.makeID(), name: name), .addRoom(home: h, id: ids.makeID(), name: name),
            .renameRoom(home: h, room: room, name: name), .removeRoom(home: h, room: room),
            .addZone(home: h, id: ids.makeID(), name: name, roomIDs: [room]),
            .renameZone(home: h, zone: zone, name: name), .removeZone(home: h, zone: zone),
            .addRoomToZone(home: h, room: room, zone: zone), .removeRoomFromZone(home: h, room: room, zone: zone),
            .addAccessory(home: h, accessory: lamp), .addAccessory(home: h, accessory: lamp),
            .renameAccessory(home: h, accessory: accessory, name: name),
            .moveAccessory(home: h, accessory: accessory, room: room),
            .removeAccessory(home: h, accessory: accessory),
            .setReachability(home: h, accessory: accessory, isReachable: flag),
            .renameService(home: h, service: service, name: name),
            .updateCharacteristicValue(home: h, characteristic: characteristic, value: value),
            .writeCharacteristicValue(home: h, characteristic: characteristic, value: value),
            .setNotifications(home: h, characteristic: characteristic, isEnabled: flag),
            .addServiceGroup(home: h, id: ids.makeID(), name: name, serviceIDs: [service]),
            .renameServiceGroup(home: h, group: group, name: name), .removeServiceGroup(home: h, group: group),
            .addServiceToGroup(home: h, service: service, group: group),
            .removeServiceFromGroup(home: h, service: service, group: group),
            .addActionSet(
                home: h,
                id: ids.makeID(),
                name: name,
                kind: kind,
                actions: [Action(characteristicID: characteristic, targetValue: value)]
            ),
            .renameActionSet(home: h, actionSet: actionSet, name: name),
            .removeActionSet(home: h, actionSet: actionSet),
            .setActions(
                home: h,
                actionSet: actionSet,
                actions: [Action(characteristicID: characteristic, targetValue: value)]
            ),
            .addTrigger(home: h, trigger: Trigger.make(id: ids.makeID(), name: name, actionSetIDs: [actionSet])),
            .renameTrigger(home: h, trigger: trigger, name: name), .removeTrigger(home: h, trigger: trigger),
            .enableTrigger(home: h, trigger: trigger, isEnabled: flag),
            .addUser(home: h, id: ids.makeID(), name: name, role: role), .removeUser(home: h, user: user),
            .setRole(home: h, user: user, role: role),
        ]
        return operations.randomElement(using: &random) ?? .removeHome(h)
    }
}
