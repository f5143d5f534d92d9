import Foundation
import HomeGraph

import enum HAPTypes.HAPValue

extension HomeStore {
    /// The JSON of a `setTriggerState` operation, written directly in the shape `JSONEncoder()` gives it
    /// (`{"setTriggerState": {"home": …, "trigger": …, "state": {…}}}`), read back by the same decoder; `nil` when a
    /// value in it is not a Boolean or a whole number, or a time is not finite, which then goes through the encoder.
    ///
    /// Every decision a trigger makes is stored this way (a firing's state and the record of why it did or did not
    /// fire), on the path of every automation, so it skips the encoder's boxing of each field.
    static func directTriggerStateJSON(home: UUID, trigger: UUID, state: TriggerState) -> String? {
        var json = PlainJSON()
        json.text += "{\"setTriggerState\":{\"home\":\"\(home.canonicalString)\",\"trigger\":\""
        json.text += trigger.canonicalString
        json.text += "\",\"state\":"
        guard json.append(state) else { return nil }
        json.text += "}}"
        return json.text
    }
}

/// JSON text built by hand, field for field as the synthesized `Codable` conformances name them; each `append`
/// says whether it could write its value (a value it cannot write leaves the text unfinished).
private struct PlainJSON {
    var text = ""

    init() { text.reserveCapacity(512) }

    mutating func append(_ state: TriggerState) -> Bool {
        text += "{"
        var first = true
        if let lastFired = state.lastFired {
            field("lastFired", &first)
            guard append(lastFired) else { return false }
        }
        if let nextFire = state.nextFire {
            field("nextFire", &first)
            guard append(nextFire) else { return false }
        }
        if let pendingEnd = state.pendingEnd {
            field("pendingEnd", &first)
            guard append(pendingEnd) else { return false }
        }
        field("holdingSince", &first)
        text += "{"
        for (index, (event, since)) in state.holdingSince.enumerated() {
            if index > 0 { text += "," }
            text += "\"\(event)\":"
            guard append(since) else { return false }
        }
        text += "}"
        field("firedDurations", &first)
        text += "[" + state.firedDurations.map { String($0) }.joined(separator: ",") + "]"
        field("decisions", &first)
        text += "["
        for (index, decision) in state.decisions.enumerated() {
            if index > 0 { text += "," }
            guard append(decision) else { return false }
        }
        text += "]}"
        return true
    }

    /// A value change or a trigger's state, as `HomeEvent` and `HomeChange` encode themselves; `false` for any
    /// other change.
    mutating func append(_ event: HomeEvent) -> Bool {
        text += "{\"homeID\":\"\(event.homeID.canonicalString)\",\"sequence\":\(event.sequence),\"change\":"
        switch event.change {
        case .characteristicValueChanged(let characteristic, let accessory, let value):
            guard let value = value.plainJSON else { return false }
            text += "{\"type\":\"characteristicValueChanged\",\"characteristicID\":\""
            text += characteristic.canonicalString + "\""
            text += ",\"accessoryID\":\"\(accessory.canonicalString)\",\"value\":\(value)}"
        case .triggerStateChanged(let trigger, let state):
            text += "{\"type\":\"triggerStateChanged\",\"triggerID\":\"\(trigger.canonicalString)\",\"state\":"
            guard append(state) else { return false }
            text += "}"
        default:
            return false
        }
        if let by = event.by { text += ",\"by\":" + by.plainJSON }
        if let at = event.at {
            text += ",\"at\":"
            guard append(at) else { return false }
        }
        text += "}"
        return true
    }

    mutating func append(_ end: PendingEnd) -> Bool {
        text += "{\"firedAt\":"
        guard append(end.firedAt) else { return false }
        if let due = end.due {
            text += ",\"due\":"
            guard append(due) else { return false }
        }
        text += ",\"restore\":["
        for (index, action) in end.restore.enumerated() {
            guard let value = action.targetValue.plainJSON else { return false }
            if index > 0 { text += "," }
            text += "{\"characteristicID\":\"\(action.characteristicID.canonicalString)\",\"targetValue\":\(value)}"
        }
        text += "]}"
        return true
    }

    mutating func append(_ decision: TriggerDecision) -> Bool {
        text += "{\"at\":"
        guard append(decision.at) else { return false }
        text += ",\"cause\":"
        append(decision.cause)
        text += ",\"outcome\":"
        append(decision.outcome.rawValue)
        if let reason = decision.reason {
            text += ",\"reason\":"
            append(reason)
        }
        text += decision.isCatchUp ? ",\"isCatchUp\":true,\"conditions\":[" : ",\"isCatchUp\":false,\"conditions\":["
        for (index, check) in decision.conditions.enumerated() {
            text += index > 0 ? ",{\"condition\":" : "{\"condition\":"
            append(check.condition)
            text += ",\"observed\":"
            append(check.observed)
            text += check.holds ? ",\"holds\":true}" : ",\"holds\":false}"
        }
        text += "],\"writes\":["
        for (index, write) in decision.writes.enumerated() {
            guard let value = write.value.plainJSON else { return false }
            if index > 0 { text += "," }
            text += "{\"characteristicID\":\"\(write.characteristicID.canonicalString)\",\"value\":\(value)"
            if let error = write.error {
                text += ",\"error\":"
                append(error)
            }
            text += "}"
        }
        text += "]}"
        return true
    }

    /// A time as `Date` encodes itself: seconds since 2001 as a number (the shortest text that reads back as the
    /// same `Double`); `false` for a time that is not finite, which JSON cannot hold.
    mutating func append(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite else { return false }
        if seconds.rounded(.towardZero) == seconds, abs(seconds) < 1e15 {
            text += String(Int64(seconds))
        } else {
            text += seconds.description
        }
        return true
    }

    /// A string in quotes, escaped as `JSONEncoder` escapes it (quote, backslash, slash and control characters).
    mutating func append(_ string: String) {
        text += "\""
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x2F }) {
            text += string
        } else {
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "/": text += "\\/"
                case "\u{08}": text += "\\b"
                case "\u{0C}": text += "\\f"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }

    /// `,"name":` (without the comma for the first field).
    mutating func field(_ name: String, _ first: inout Bool) {
        text += first ? "\"\(name)\":" : ",\"\(name)\":"
        first = false
    }
}

extension HomeStore {
    /// The JSON of a snapshot of `graph`, read back by the decoder as `JSONEncoder()`'s JSON of it is: the homes
    /// through the encoder, the recent changes written directly (value changes and trigger states; any other change
    /// through the encoder, one at a time).
    ///
    /// The recent changes are most of a snapshot, and a snapshot is taken every few thousand operations.
    static func snapshotJSON(of graph: HomeGraph) throws -> Data {
        let encoder = JSONEncoder()
        var data = Data("{\"homes\":".utf8)
        data.append(try encoder.encode(graph.homes))
        data.append(contentsOf: ",\"lastSequences\":".utf8)
        data.append(try encoder.encode(graph.lastSequences))
        data.append(contentsOf: ",\"sequenceFloor\":\(graph.sequenceFloor)".utf8)
        // A dictionary keyed by UUID is an array of keys and values, as the encoder writes it.
        data.append(contentsOf: ",\"history\":[".utf8)
        var json = PlainJSON()
        for (index, (homeID, events)) in graph.recentChanges.enumerated() {
            json.text = index > 0 ? ",\"\(homeID.canonicalString)\",[" : "\"\(homeID.canonicalString)\",["
            for (position, event) in events.enumerated() {
                if position > 0 { json.text += "," }
                let start = json.text.endIndex
                if !json.append(event) {
                    json.text.removeSubrange(start...)
                    json.text += String(decoding: try encoder.encode(event), as: UTF8.self)
                }
            }
            json.text += "]"
            data.append(contentsOf: json.text.utf8)
        }
        data.append(contentsOf: "],\"historyLimit\":\(graph.historyLimit)}".utf8)
        return data
    }
}
