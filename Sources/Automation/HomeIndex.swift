import Foundation
import HAPTypes
import HomeGraph

/// Where a characteristic sits in a home's accessories.
struct CharacteristicPlace: Sendable {
    var accessory: Int
    var service: Int
    var characteristic: Int
}

/// A home's triggers indexed by what they listen to, so an event reaches only its listeners (no scan).
struct HomeIndex: Sendable {
    /// Characteristic id → the triggers that listen to it (events, thresholds, durations, end events).
    private(set) var listeners: [UUID: [UUID]] = [:]
    /// Triggers with presence or location events (or presence in a duration or an end event).
    ///
    /// What waits for a time is not indexed here: the engine keeps each trigger's next deadline.
    private(set) var presenceListeners: [UUID] = []
    /// Position of each trigger in `home.triggers`.
    private(set) var positions: [UUID: Int] = [:]
    /// Every characteristic of the home.
    private(set) var places: [UUID: CharacteristicPlace] = [:]

    /// Indexes `home`'s triggers that are on or still have an end to carry out (per `states`).
    init(_ home: Home, states: [UUID: TriggerState]) {
        for (a, accessory) in home.accessories.enumerated() {
            for (s, service) in accessory.services.enumerated() {
                for (c, characteristic) in service.characteristics.enumerated() {
                    places[characteristic.id] = CharacteristicPlace(accessory: a, service: s, characteristic: c)
                }
            }
        }
        for (position, trigger) in home.triggers.enumerated() {
            positions[trigger.id] = position
            let pendingEnd = states[trigger.id]?.pendingEnd ?? trigger.state.pendingEnd
            guard trigger.isEnabled || pendingEnd != nil else { continue }
            var characteristics = Set<UUID>()
            var presence = false
            let events = (trigger.isEnabled ? trigger.definition.events : []) + (trigger.definition.end?.events ?? [])
            for event in events {
                switch event {
                case .characteristic(let id, _), .threshold(let id, _, _): characteristics.insert(id)
                case .calendar, .significantTime: continue
                case .presence, .location: presence = true
                case .duration(let condition, _):
                    for part in condition.flattened {
                        switch part {
                        case .characteristic(let id, _, _): characteristics.insert(id)
                        case .presence: presence = true
                        default: break
                        }
                    }
                }
            }
            for id in characteristics { listeners[id, default: []].append(trigger.id) }
            if presence { presenceListeners.append(trigger.id) }
        }
    }

    /// The characteristic with `id`, if the home has it.
    func characteristic(_ id: UUID, in home: Home) -> Characteristic? {
        guard let place = places[id], place.accessory < home.accessories.count else { return nil }
        let accessory = home.accessories[place.accessory]
        guard place.service < accessory.services.count,
            place.characteristic < accessory.services[place.service].characteristics.count
        else { return nil }
        let characteristic = accessory.services[place.service].characteristics[place.characteristic]
        return characteristic.id == id ? characteristic : nil
    }

    /// "Front Door Lock Current State": the accessory's name and the characteristic's, for people.
    func name(of id: UUID, in home: Home) -> String {
        guard let place = places[id], place.accessory < home.accessories.count,
            let characteristic = characteristic(id, in: home)
        else { return "a removed characteristic" }
        let type = ValueError.displayName(of: characteristic.type) ?? characteristic.type.description
        return "\(home.accessories[place.accessory].name) \(type)"
    }

    /// The trigger with `id`.
    func trigger(_ id: UUID, in home: Home) -> Trigger? {
        guard let position = positions[id], position < home.triggers.count else { return nil }
        let trigger = home.triggers[position]
        return trigger.id == id ? trigger : nil
    }
}
