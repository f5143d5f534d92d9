import Foundation
import HAPTypes
import HearthKit
import HomeGraph
import Testing

/// The HomeKit-style types build the issue's seed trigger and save it through a real hub over HTTP.
@Suite struct HomeKitStyleTests {
    /// "When the front door unlocks, and it is after sunset, and someone is home, run Arrive Home", written the
    /// HomeKit way (HMEventTrigger, HMCharacteristicEvent, predicates, HMActionSet).
    @Test func theSeedTriggerIsSavedThroughAHub() async throws {
        let fixture = try await KitFixture()
        let homeID = fixture.homeID
        let lockCurrentState = Characteristic(
            id: UUID(),
            type: HAPUUID(apple: 0x1D),
            instanceID: 11,
            format: .uint8,
            permissions: [.read, .notify],
            metadata: CharacteristicMetadata(minValue: 0, maxValue: 3, minStep: 1),
            value: .uint(1)
        )
        let door = Accessory(
            id: UUID(),
            name: "Front Door",
            roomID: try #require(fixture.hub.graph.home(withID: homeID)).roomForEntireHome.id,
            category: .doorLock,
            services: [
                Service(
                    id: UUID(),
                    name: "Front Door",
                    type: HAPUUID(apple: 0x45),
                    instanceID: 10,
                    isPrimary: true,
                    characteristics: [lockCurrentState]
                )
            ]
        )
        try await fixture.hub.perform(.addAccessory(home: homeID, accessory: door), as: .hub)
        try await fixture.withServer { url, _ in
            let owner = fixture.client(url, fixture.owner)
            let arriveHome: HMActionSet = try await owner.builtInActionSet(ofKind: .homeArrival, inHome: homeID)
            let unlocks = HMCharacteristicEvent(characteristic: lockCurrentState, triggerValue: .uint(0))
            let sunset = HMSignificantTimeEvent(significantEvent: .sunset)
            let trigger = HMEventTrigger(
                name: "Welcome",
                events: [unlocks],
                predicate: .and([
                    HMEventTrigger.predicateForEvaluatingTrigger(occurringAfter: sunset),
                    HMEventTrigger.predicateForEvaluatingTriggerWithPresence(.anyone),
                ]),
                actionSets: [arriveHome]
            )
            let saved = try await owner.addTrigger(trigger, toHome: homeID).object
            let read = try await owner.trigger(saved.id, inHome: homeID)
            #expect(read.name == "Welcome")
            #expect(read.actionSetIDs == [arriveHome.id])
            // The value comes back as the number 0 (JSON keeps no unsigned kind).
            let event = try #require(read.definition.events.first)
            guard case .characteristic(let id, let value?) = event else {
                Issue.record("not a characteristic event with a value: \(event)")
                return
            }
            #expect(id == lockCurrentState.id && "\(value)" == "0" && read.definition.events.count == 1)
            #expect(
                read.definition.condition
                    == .all([.time(after: .sun(.sunset, offsetSeconds: 0), before: nil), .presence(.anyone)])
            )
            #expect(fixture.hub.graph.home(withID: homeID)?.triggers.map(\.name) == ["Welcome"])
        }
    }
}
