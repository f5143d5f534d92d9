import Foundation
import HAPTypes

// JSON has one kind of number, so a whole-number float value (20.0) reads back as an int wherever no format is at
// hand: change events and actions. These put each value back in its characteristic's format after decoding.

extension Home {
    /// The format of every characteristic of the home.
    var characteristicFormats: [UUID: Format] {
        var formats: [UUID: Format] = [:]
        for accessory in accessories {
            for characteristic in accessory.characteristics { formats[characteristic.id] = characteristic.format }
        }
        return formats
    }

    /// Puts every action's target value in its characteristic's format.
    mutating func restoreValueFormats(_ formats: [UUID: Format]) {
        for index in actionSets.indices {
            actionSets[index].actions = actionSets[index].actions.map { $0.inFormat(formats) }
        }
    }
}

extension Action {
    /// The action with its value in its characteristic's format, when that format is known and fits.
    func inFormat(_ formats: [UUID: Format]) -> Action {
        guard let format = formats[characteristicID], let value = try? targetValue.converted(to: format) else {
            return self
        }
        return Action(characteristicID: characteristicID, targetValue: value)
    }
}

extension HomeChange {
    /// The change with its values in their characteristics' formats, when known.
    func inFormat(_ formats: [UUID: Format]) -> HomeChange {
        switch self {
        case .characteristicValueChanged(let characteristic, let accessory, let value):
            guard let format = formats[characteristic], let converted = try? value.converted(to: format) else {
                return self
            }
            return .characteristicValueChanged(characteristic: characteristic, accessory: accessory, value: converted)
        case .actionSetAdded(var actionSet):
            actionSet.actions = actionSet.actions.map { $0.inFormat(formats) }
            return .actionSetAdded(actionSet)
        case .actionSetActionsChanged(let actionSet, let actions):
            return .actionSetActionsChanged(actionSet: actionSet, actions: actions.map { $0.inFormat(formats) })
        default:
            return self
        }
    }
}

extension HomeGraph {
    private enum CodingKeys: String, CodingKey {
        case homes, lastSequences, sequenceFloor, history, historyLimit
    }

    /// Reads a graph and puts the values of actions and recent changes back in their characteristics' formats.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        homes = try container.decode([Home].self, forKey: .homes)
        lastSequences = try container.decode([UUID: UInt64].self, forKey: .lastSequences)
        // Absent in graphs written before numbers were skipped after an unclean stop.
        sequenceFloor = try container.decodeIfPresent(UInt64.self, forKey: .sequenceFloor) ?? 0
        let events = try container.decode([UUID: [HomeEvent]].self, forKey: .history)
        let limit = try container.decode(Int.self, forKey: .historyLimit)
        historyLimit = limit
        history = events.mapValues { EventLog($0, limit: limit) }
        for index in homes.indices {
            let formats = homes[index].characteristicFormats
            homes[index].restoreValueFormats(formats)
            if let events = history[homes[index].id] {
                history[homes[index].id] = events.map { event in
                    var event = event
                    event.change = event.change.inFormat(formats)
                    return event
                }
            }
        }
    }

    /// Writes the graph.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(homes, forKey: .homes)
        try container.encode(lastSequences, forKey: .lastSequences)
        try container.encode(sequenceFloor, forKey: .sequenceFloor)
        try container.encode(history.mapValues(\.events), forKey: .history)
        try container.encode(historyLimit, forKey: .historyLimit)
    }
}
