import Foundation
import HomeGraph

extension Trigger {
    /// A trigger that fires every day at 07:30: valid in any home, for tests about names, ids and action sets.
    static func make(id: UUID, name: String, isEnabled: Bool = true, actionSetIDs: [UUID] = []) -> Trigger {
        Trigger(
            id: id,
            name: name,
            isEnabled: isEnabled,
            actionSetIDs: actionSetIDs,
            definition: TriggerDefinition(events: [.calendar(time: TimeOfDay(hour: 7, minute: 30), weekdays: [])])
        )
    }
}
