import Foundation
import HAP
import HAPTypes

/// The event coalescing check (hap-protocol.md §7.8, §12.3, §14 item 5).
extension HAPTester {
    /// How many writes the burst makes, and how far apart.
    static let burstWrites = 30
    static let burstSpacing = 0.05
    /// Event messages closer than this were not coalesced: the shortest window any source uses is NODE's 250 ms
    /// (hap-protocol.md §7.8), less slack for the time the tester spends in its own writes.
    static let shortestGap = 0.15

    /// A readable, writable characteristic with events and another valid value, with that value.
    func eventCandidate() -> (id: CharacteristicID, old: HAPValue, new: HAPValue)? {
        for (id, characteristic) in characteristics
        where characteristic.has(.notify) && characteristic.has(.write) && characteristic.has(.read)
            && !characteristic.has(.timedWrite)
        {
            if let old = characteristic.value, let new = alternative(to: characteristic) { return (id, old, new) }
        }
        return nil
    }

    /// A characteristic for an event check and two sessions, one to listen and one to write; `nil` (the check
    /// recorded as skipped, or failed by ``session(for:)``) when there is no such characteristic or session.
    func eventSessions(
        for check: CheckDefinition
    ) -> (id: CharacteristicID, old: HAPValue, new: HAPValue, listener: WireConnection, writer: WireConnection)? {
        guard let (id, old, new) = eventCandidate() else {
            record(check, .skipped, ["no readable, writable characteristic with events and another valid value"])
            return nil
        }
        guard let listener = session(for: check) else { return nil }
        guard let writer = session(for: check) else {
            listener.close()
            return nil
        }
        return (id, old, new, listener, writer)
    }

    /// Writes one characteristic 30 times in 1.5 s from one session and times the events another session gets:
    /// fails when the last value never arrives, warns when messages come closer than any source's window.
    func checkCoalescing() {
        guard let (id, old, new, listener, writer) = eventSessions(for: Checks.coalescing) else { return }
        defer {
            listener.close()
            writer.close()
        }
        var arrivals: [(time: Date, value: HAPValue?)] = []
        /// Reads events on the listener until `deadline`, noting when each arrived and the value it carried.
        func collect(until deadline: Date) throws(WireError) {
            while Date() < deadline, let event = try listener.nextEvent(within: deadline.timeIntervalSinceNow) {
                let items = (try? HAPJSON.decodeReadResponse(event.body))?.characteristics ?? []
                if let item = items.first(where: { $0.id == id }) { arrivals.append((Date(), item.value)) }
            }
        }
        var problems: [String] = []
        var lastWrite = Date()
        do {
            let subscribe = CharacteristicWriteRequest.Item(
                accessoryID: id.accessoryID,
                instanceID: id.instanceID,
                events: true
            )
            let subscribed = try write([subscribe], on: listener)
            if subscribed.status(id) != 0 {
                problems.append(
                    "subscribing to \(id) answered status \(subscribed.status(id).map(String.init) ?? "none")"
                )
            }
            // Alternate new and old; the last write (an odd count) puts the old value back.
            for index in 0..<Self.burstWrites {
                let started = Date()
                let value = index.isMultiple(of: 2) ? new : old
                let written = try write([item(id, value)], on: writer)
                if written.status(id) != 0 {
                    problems.append(
                        "writing \(value) to \(id) answered status \(written.status(id).map(String.init) ?? "none")"
                    )
                    break
                }
                lastWrite = Date()
                try collect(until: started.addingTimeInterval(Self.burstSpacing))
            }
            // Wait for the last value: up to 2 s, and then until 1.1 s pass without an event.
            let giveUp = lastWrite.addingTimeInterval(2)
            while Date() < giveUp, !(arrivals.last.map { same($0.value, old) } ?? false) {
                try collect(until: min(giveUp, Date().addingTimeInterval(0.1)))
            }
            var count = arrivals.count
            repeat {
                count = arrivals.count
                try collect(until: Date().addingTimeInterval(1.1))
            } while arrivals.count > count && arrivals.count < 200
        } catch {
            problems.append(error.description)
        }
        _ = try? write([item(id, old)], on: writer)
        let gaps = zip(arrivals.dropFirst(), arrivals).map { $0.time.timeIntervalSince($1.time) }
        let shortest = gaps.min()
        let summary =
            "\(arrivals.count) event messages for \(Self.burstWrites) writes of \(id) 50 ms apart"
            + (shortest.map { String(format: "; shortest gap %.0f ms", $0 * 1000) } ?? "")
        if arrivals.isEmpty {
            problems.append("no event for \(id) arrived while another session wrote it \(Self.burstWrites) times")
        } else if let last = arrivals.last, !same(last.value, old) {
            problems.append(
                "the last event for \(id) carried \(last.value?.description ?? "null"); the last value written was \(old) (\(summary))"
            )
        }
        guard problems.isEmpty else {
            record(Checks.coalescing, .fail, problems)
            return
        }
        if let shortest, shortest < Self.shortestGap {
            let close = gaps.filter { $0 < Self.shortestGap }.count
            record(
                Checks.coalescing,
                .warning,
                [
                    summary,
                    "\(close) gaps under \(Int(Self.shortestGap * 1000)) ms: changes were not coalesced (ADK sends at most one event message per second per connection, NODE one per 250 ms; the spec text is unconfirmed, §14 item 5)",
                ]
            )
            return
        }
        var details = [summary]
        if let shortest, shortest < 0.95 {
            details.append("more often than ADK's one per second (NODE's 250 ms and PY's 0.5 s windows allow it)")
        }
        record(Checks.coalescing, .pass, details)
    }
}
