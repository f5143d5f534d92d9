import Foundation
import Testing

import enum HAPTypes.ValueError

@testable import HomeGraph

@Suite struct AccessoryTests {
    @Test func identityStaysThroughRenamesMovesAndUpdates() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let kitchen = try fixture.addRoom("Kitchen")
        let hall = try fixture.addRoom("Hall")
        let lamp = try fixture.addLamp("Lamp", room: kitchen)
        let zone = try fixture.addZone("Downstairs", rooms: [kitchen])
        try fixture.apply(.renameAccessory(home: home, accessory: lamp.id, name: "Ceiling Lamp"))
        try fixture.apply(.moveAccessory(home: home, accessory: lamp.id, room: hall))
        try fixture.apply(.renameService(home: home, service: lamp.services[0].id, name: "Bulb"))
        try fixture.apply(.setReachability(home: home, accessory: lamp.id, isReachable: false))
        try fixture.apply(.updateCharacteristicValue(home: home, characteristic: lamp.brightness.id, value: .int(40)))
        try fixture.apply(.renameRoom(home: home, room: kitchen, name: "Cookery"))
        try fixture.apply(.renameZone(home: home, zone: zone, name: "Ground Floor"))
        try fixture.apply(.renameHome(home, name: "Elm Street"))
        let after = try #require(try fixture.home.accessory(withID: lamp.id))
        #expect(after.id == lamp.id)
        #expect(after.services.map(\.id) == lamp.services.map(\.id))
        #expect(after.characteristics.map(\.id) == lamp.characteristics.map(\.id))
        #expect(after.name == "Ceiling Lamp")
        #expect(after.roomID == hall)
        #expect(after.services[0].name == "Bulb")
        #expect(!after.isReachable)
        #expect(after.brightness.value == .int(40))
        #expect(try fixture.home.room(withID: kitchen)?.name == "Cookery")
        #expect(try fixture.home.zones.first?.id == zone)
        #expect(try fixture.home.id == home)
    }

    @Test func addingAnAccessoryReportsItWhole() throws {
        var fixture = try Fixture()
        let lamp = fixture.makeLamp("  Lamp ")
        let changes = try fixture.changes(.addAccessory(home: fixture.homeID, accessory: lamp))
        var stored = lamp
        stored.name = "Lamp"
        stored.services[0].name = "Lamp"  // service names are trimmed too
        #expect(changes == [.accessoryAdded(stored)])
        #expect(try fixture.home.accessories == [stored])
    }

    @Test func anAccessoryMustBeAddedToARoomOfItsHome() throws {
        var fixture = try Fixture()
        let stray = fixture.ids.makeID()
        fixture.expectFailure(
            .addAccessory(home: fixture.homeID, accessory: fixture.makeLamp("Lamp", room: stray)),
            .notFound(.room, stray)
        )
    }

    @Test func removingABridgeRemovesTheAccessoriesBehindIt() throws {
        var fixture = try Fixture()
        let bridge = try fixture.addLamp("Bridge")
        let first = try fixture.addLamp("Behind 1", bridge: bridge.id)
        let second = try fixture.addLamp("Behind 2", bridge: bridge.id)
        let alone = try fixture.addLamp("Alone")
        #expect(first.isBridged && !bridge.isBridged)
        let changes = try fixture.changes(.removeAccessory(home: fixture.homeID, accessory: bridge.id))
        #expect(
            changes == [
                .accessoryRemoved(accessory: first.id),
                .accessoryRemoved(accessory: second.id),
                .accessoryRemoved(accessory: bridge.id),
            ]
        )
        #expect(try fixture.home.accessories.map(\.id) == [alone.id])
    }

    @Test func anAccessoryCannotSitBehindABridgedAccessoryOrItself() throws {
        var fixture = try Fixture()
        let bridge = try fixture.addLamp("Bridge")
        let behind = try fixture.addLamp("Behind", bridge: bridge.id)
        fixture.expectFailure(
            .addAccessory(home: fixture.homeID, accessory: fixture.makeLamp("Deep", bridge: behind.id)),
            .invalidBridge(behind.id)
        )
        var selfBridged = fixture.makeLamp("Loop")
        selfBridged.bridgeID = selfBridged.id
        fixture.expectFailure(
            .addAccessory(home: fixture.homeID, accessory: selfBridged),
            .invalidBridge(selfBridged.id)
        )
        let stray = fixture.ids.makeID()
        fixture.expectFailure(
            .addAccessory(home: fixture.homeID, accessory: fixture.makeLamp("Lost", bridge: stray)),
            .notFound(.accessory, stray)
        )
    }

    @Test func removingAnAccessoryTakesItOutOfGroupsAndActionSets() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let lamp = try fixture.addLamp("Lamp")
        let other = try fixture.addLamp("Other")
        let group = fixture.ids.makeID()
        let groupServices = [lamp.services[0].id, other.services[0].id]
        try fixture.apply(.addServiceGroup(home: home, id: group, name: "Lamps", serviceIDs: groupServices))
        let scene = fixture.ids.makeID()
        let actions = [
            Action(characteristicID: lamp.on.id, targetValue: .bool(true)),
            Action(characteristicID: other.on.id, targetValue: .bool(true)),
        ]
        try fixture.apply(.addActionSet(home: home, id: scene, name: "Evening", actions: actions))
        let changes = try fixture.changes(.removeAccessory(home: home, accessory: lamp.id))
        #expect(
            changes == [
                .serviceRemovedFromGroup(service: lamp.services[0].id, group: group),
                .actionSetActionsChanged(actionSet: scene, actions: [actions[1]]),
                .accessoryRemoved(accessory: lamp.id),
            ]
        )
        #expect(try fixture.home.serviceGroups.first?.serviceIDs == [other.services[0].id])
        #expect(try fixture.home.actionSets.first?.actions == [actions[1]])
    }

    @Test func reachabilityChangesAreReportedOnce() throws {
        var fixture = try Fixture()
        let lamp = try fixture.addLamp("Lamp")
        let operation = HomeOperation.setReachability(home: fixture.homeID, accessory: lamp.id, isReachable: false)
        #expect(
            try fixture.changes(operation) == [.accessoryReachabilityChanged(accessory: lamp.id, isReachable: false)]
        )
        #expect(try fixture.changes(operation).isEmpty)
    }
}

@Suite struct CharacteristicValueTests {
    @Test func aValueIsCheckedAgainstTheCharacteristicsMetadata() throws {
        var fixture = try Fixture()
        let lamp = try fixture.addLamp("Lamp")
        let home = fixture.homeID
        let brightness = lamp.brightness.id
        fixture.expectFailure(
            .updateCharacteristicValue(home: home, characteristic: brightness, value: .int(101)),
            .invalidValue(.aboveMaximum(value: 101, minimum: 0, maximum: 100), characteristicType: lamp.brightness.type)
        )
        fixture.expectFailure(
            .writeCharacteristicValue(home: home, characteristic: brightness, value: .int(-1)),
            .invalidValue(.belowMinimum(value: -1, minimum: 0, maximum: 100), characteristicType: lamp.brightness.type)
        )
        fixture.expectFailure(
            .writeCharacteristicValue(home: home, characteristic: brightness, value: .string("bright")),
            .invalidValue(
                .typeMismatch(format: .int, value: .string("bright")),
                characteristicType: lamp.brightness.type
            )
        )
        fixture.expectFailure(
            .updateCharacteristicValue(home: home, characteristic: lamp.temperature.id, value: .float(20.05)),
            .invalidValue(.offStep(value: 20.05, base: -50, step: 0.1), characteristicType: lamp.temperature.type)
        )
        #expect(
            try fixture.changes(.writeCharacteristicValue(home: home, characteristic: brightness, value: .int(80)))
                == [.characteristicValueChanged(characteristic: brightness, accessory: lamp.id, value: .int(80))]
        )
    }

    @Test func aValueIsStoredInTheCharacteristicsFormat() throws {
        var fixture = try Fixture()
        let lamp = try fixture.addLamp("Lamp")
        let changes = try fixture.changes(
            .writeCharacteristicValue(home: fixture.homeID, characteristic: lamp.on.id, value: .int(1))
        )
        #expect(
            changes == [.characteristicValueChanged(characteristic: lamp.on.id, accessory: lamp.id, value: .bool(true))]
        )
        #expect(try fixture.home.accessory(withID: lamp.id)?.on.value == .bool(true))
        // The same value again, in another representation, changes nothing.
        #expect(
            try fixture.changes(
                .updateCharacteristicValue(home: fixture.homeID, characteristic: lamp.on.id, value: .bool(true))
            ).isEmpty
        )
    }

    @Test func aReadOnlyCharacteristicTakesReportsButNotWrites() throws {
        var fixture = try Fixture()
        let lamp = try fixture.addLamp("Lamp")
        let temperature = lamp.temperature
        fixture.expectFailure(
            .writeCharacteristicValue(home: fixture.homeID, characteristic: temperature.id, value: .float(21)),
            .invalidValue(.notWritable(temperature.type), characteristicType: temperature.type)
        )
        try fixture.apply(
            .updateCharacteristicValue(home: fixture.homeID, characteristic: temperature.id, value: .float(21.5))
        )
        #expect(try fixture.home.accessory(withID: lamp.id)?.temperature.value == .float(21.5))
    }

    @Test func notificationsNeedTheNotifyPermission() throws {
        var fixture = try Fixture()
        var lamp = fixture.makeLamp("Lamp")
        lamp.services[0].characteristics[0].permissions = [.read, .write]
        try fixture.apply(.addAccessory(home: fixture.homeID, accessory: lamp))
        fixture.expectFailure(
            .setNotifications(home: fixture.homeID, characteristic: lamp.on.id, isEnabled: true),
            .invalidValue(.notificationNotSupported(lamp.on.type), characteristicType: lamp.on.type)
        )
        let brightness = lamp.brightness.id
        #expect(
            try fixture.changes(.setNotifications(home: fixture.homeID, characteristic: brightness, isEnabled: true))
                == [
                    .characteristicNotificationsChanged(characteristic: brightness, accessory: lamp.id, isEnabled: true)
                ]
        )
        #expect(try fixture.home.accessory(withID: lamp.id)?.brightness.isNotificationEnabled == true)
        // Turning events off never needs a permission.
        try fixture.apply(.setNotifications(home: fixture.homeID, characteristic: lamp.on.id, isEnabled: false))
    }
}
