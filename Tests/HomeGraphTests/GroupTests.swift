import Foundation
import Testing

@testable import HomeGraph

@Suite struct GroupTests {
    @Test func aServiceGroupGathersServicesAcrossAccessories() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let desk = try fixture.addLamp("Desk Lamp")
        let floor = try fixture.addLamp("Floor Lamp")
        let group = fixture.ids.makeID()
        try fixture.apply(.addServiceGroup(home: home, id: group, name: "Reading Lamps"))
        for service in [desk.services[0].id, floor.services[0].id] {
            #expect(
                try fixture.changes(.addServiceToGroup(home: home, service: service, group: group))
                    == [.serviceAddedToGroup(service: service, group: group)]
            )
        }
        #expect(try fixture.changes(.addServiceToGroup(home: home, service: desk.services[0].id, group: group)).isEmpty)
        #expect(try fixture.home.serviceGroups.first?.serviceIDs == [desk.services[0].id, floor.services[0].id])
        try fixture.apply(.removeServiceFromGroup(home: home, service: desk.services[0].id, group: group))
        #expect(try fixture.home.serviceGroups.first?.serviceIDs == [floor.services[0].id])
        try fixture.apply(.renameServiceGroup(home: home, group: group, name: "Lamps"))
        #expect(
            try fixture.changes(.removeServiceGroup(home: home, group: group)) == [.serviceGroupRemoved(group: group)]
        )
        #expect(try fixture.home.accessories.count == 2)
    }

    @Test func actionsMustWriteWritableCharacteristicsWithValidValues() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let lamp = try fixture.addLamp("Lamp")
        let scene = fixture.ids.makeID()
        fixture.expectFailure(
            .addActionSet(
                home: home,
                id: scene,
                name: "Bright",
                actions: [Action(characteristicID: lamp.brightness.id, targetValue: .int(200))]
            ),
            .invalidValue(.aboveMaximum(value: 200, minimum: 0, maximum: 100), characteristicType: lamp.brightness.type)
        )
        fixture.expectFailure(
            .addActionSet(
                home: home,
                id: scene,
                name: "Warm",
                actions: [Action(characteristicID: lamp.temperature.id, targetValue: .float(25))]
            ),
            .invalidValue(.notWritable(lamp.temperature.type), characteristicType: lamp.temperature.type)
        )
        let twice = [
            Action(characteristicID: lamp.on.id, targetValue: .bool(true)),
            Action(characteristicID: lamp.on.id, targetValue: .bool(false)),
        ]
        fixture.expectFailure(
            .addActionSet(home: home, id: scene, name: "Twice", actions: twice),
            .duplicateAction(characteristicID: lamp.on.id)
        )
        try fixture.apply(.addActionSet(home: home, id: scene, name: "Evening"))
        let actions = [Action(characteristicID: lamp.on.id, targetValue: .int(1))]
        #expect(
            try fixture.changes(.setActions(home: home, actionSet: scene, actions: actions))
                == [
                    .actionSetActionsChanged(
                        actionSet: scene,
                        actions: [Action(characteristicID: lamp.on.id, targetValue: .bool(true))]
                    )
                ]
        )
    }

    @Test func aHomeHasAtMostOneActionSetOfEachBuiltInKind() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let wakeUp = fixture.ids.makeID()
        try fixture.apply(.addActionSet(home: home, id: wakeUp, name: "Good Morning", kind: .wakeUp))
        fixture.expectFailure(
            .addActionSet(home: home, id: fixture.ids.makeID(), name: "Rise", kind: .wakeUp),
            .builtInActionSetExists(.wakeUp, existing: wakeUp)
        )
        for kind in [ActionSetKind.sleep, .homeArrival, .homeDeparture, .userDefined, .userDefined] {
            try fixture.apply(
                .addActionSet(home: home, id: fixture.ids.makeID(), name: "\(kind) \(UUID())", kind: kind)
            )
        }
        #expect(try fixture.home.actionSets.count == 6)
    }

    @Test func removingAnActionSetTakesItOutOfTriggers() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let evening = fixture.ids.makeID()
        let night = fixture.ids.makeID()
        try fixture.apply(.addActionSet(home: home, id: evening, name: "Evening"))
        try fixture.apply(.addActionSet(home: home, id: night, name: "Night"))
        let trigger = Trigger.make(id: fixture.ids.makeID(), name: "Sunset", actionSetIDs: [evening, night])
        #expect(try fixture.changes(.addTrigger(home: home, trigger: trigger)) == [.triggerAdded(trigger)])
        #expect(
            try fixture.changes(.removeActionSet(home: home, actionSet: evening))
                == [
                    .triggerActionSetsChanged(trigger: trigger.id, actionSetIDs: [night]),
                    .actionSetRemoved(actionSet: evening),
                ]
        )
    }

    @Test func triggersNameExistingActionSetsAndCanBeTurnedOff() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let stray = fixture.ids.makeID()
        fixture.expectFailure(
            .addTrigger(
                home: home,
                trigger: Trigger.make(id: fixture.ids.makeID(), name: "Dusk", actionSetIDs: [stray])
            ),
            .notFound(.actionSet, stray)
        )
        let trigger = fixture.ids.makeID()
        try fixture.apply(.addTrigger(home: home, trigger: Trigger.make(id: trigger, name: "Dusk")))
        #expect(
            try fixture.changes(.enableTrigger(home: home, trigger: trigger, isEnabled: false))
                == [.triggerEnabledChanged(trigger: trigger, isEnabled: false)]
        )
        #expect(try fixture.changes(.enableTrigger(home: home, trigger: trigger, isEnabled: false)).isEmpty)
        #expect(
            try fixture.changes(.renameTrigger(home: home, trigger: trigger, name: "Sunset"))
                == [.triggerRenamed(trigger: trigger, old: "Dusk", new: "Sunset")]
        )
        #expect(
            try fixture.changes(.removeTrigger(home: home, trigger: trigger)) == [.triggerRemoved(trigger: trigger)]
        )
    }

    @Test func aHomeHasAtMostOneOwner() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let owner = fixture.ids.makeID()
        let admin = fixture.ids.makeID()
        try fixture.apply(.addUser(home: home, id: owner, name: "Alex", role: .owner))
        try fixture.apply(.addUser(home: home, id: admin, name: "Sam", role: .administrator))
        fixture.expectFailure(
            .addUser(home: home, id: fixture.ids.makeID(), name: "Kim", role: .owner),
            .ownerExists(owner)
        )
        fixture.expectFailure(.setRole(home: home, user: admin, role: .owner), .ownerExists(owner))
        #expect(
            try fixture.changes(.setRole(home: home, user: admin, role: .shared))
                == [.userRoleChanged(user: admin, old: .administrator, new: .shared)]
        )
        #expect(try fixture.changes(.removeUser(home: home, user: owner)) == [.userRemoved(user: owner)])
        try fixture.apply(.setRole(home: home, user: admin, role: .owner))
        #expect(UserRole.owner.mayConfigure && UserRole.administrator.mayConfigure && !UserRole.shared.mayConfigure)
    }
}
