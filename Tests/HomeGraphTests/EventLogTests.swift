import Foundation
import Testing

@testable import HomeGraph

/// The chunked log of recent changes keeps what a flat array trimmed the same way would, in order.
@Suite struct EventLogTests {
    @Test func holdsTheSameEventsAsAFlatArrayThroughAppendsTrimsAndCopies() {
        let home = UUID()
        for limit in [1, 2, 3, 4, 7, 50, 130, 1000] {
            var log = EventLog(limit: limit)
            var flat: [HomeEvent] = []
            var kept: [(log: EventLog, events: [HomeEvent])] = []
            for sequence in 1...UInt64(3 * limit + 17) {
                let event = HomeEvent(
                    homeID: home,
                    sequence: sequence,
                    change: .homeRenamed(old: "a", new: "\(sequence)")
                )
                log.append(event)
                flat.append(event)
                if log.count >= 2 * limit {
                    log.trim(keeping: limit)
                    // What trimming keeps: at least `limit`, the newest ones, oldest first.
                    #expect(log.count >= limit && log.count < 2 * limit, "limit \(limit)")
                    flat = Array(flat.suffix(log.count))
                }
                #expect(log.count == flat.count)
                if sequence % 5 == 0 { kept.append((log, flat)) }  // a copy sharing storage, as the hub's graph does
            }
            #expect(log.events == flat, "limit \(limit)")
            #expect(log.first == flat.first)
            for offset in [0, 1, flat.count / 2, flat.count - 1, flat.count] {
                #expect(log.events(from: offset) == Array(flat[offset...]), "limit \(limit), offset \(offset)")
            }
            // Copies taken along the way were not changed by later appends.
            for copy in kept {
                #expect(copy.log.events == copy.events && copy.log.count == copy.events.count, "limit \(limit)")
            }
            #expect(EventLog(flat, limit: limit) == log, "equal however chunked")
        }
    }
}
