/// A home's recent changes, oldest first, kept in chunks.
///
/// The hub keeps a copy of the store's graph, so the two share their storage: appending to one flat array would
/// copy every event in it. With chunks, an append copies the list of chunks and the last chunk only.
struct EventLog: Sendable {
    private var chunks: [[HomeEvent]] = []
    /// The most events in one chunk.
    private let chunkSize: Int
    /// How many events the log holds.
    private(set) var count = 0

    /// Makes an empty log whose chunks suit a history of at least `limit` events.
    init(limit: Int) {
        chunkSize = max(1, min(64, limit / 2))
    }

    /// Makes a log of `events`, oldest first.
    init(_ events: [HomeEvent], limit: Int) {
        self.init(limit: limit)
        for event in events { append(event) }
    }

    /// The oldest event kept.
    var first: HomeEvent? { chunks.first?.first }

    /// The newest event kept.
    var last: HomeEvent? { chunks.last?.last }

    /// Every event, oldest first.
    var events: [HomeEvent] { chunks.flatMap { $0 } }

    /// Adds the newest event.
    mutating func append(_ event: HomeEvent) {
        if let last = chunks.indices.last, chunks[last].count < chunkSize {
            chunks[last].append(event)
        } else {
            chunks.append([event])
        }
        count += 1
    }

    /// Drops the oldest chunks while at least `limit` events remain.
    mutating func trim(keeping limit: Int) {
        while let oldest = chunks.first, count - oldest.count >= limit {
            chunks.removeFirst()
            count -= oldest.count
        }
    }

    /// The events from position `offset` (0 is the oldest) to the newest.
    func events(from offset: Int) -> [HomeEvent] {
        var result: [HomeEvent] = []
        result.reserveCapacity(max(0, count - offset))
        var skipped = 0
        for chunk in chunks {
            if skipped + chunk.count <= offset {
                skipped += chunk.count
                continue
            }
            result.append(contentsOf: chunk[max(0, offset - skipped)...])
            skipped += chunk.count
        }
        return result
    }

    /// The same log with each event changed by `transform`.
    func map(_ transform: (HomeEvent) -> HomeEvent) -> EventLog {
        var copy = self
        copy.chunks = chunks.map { $0.map(transform) }
        return copy
    }
}

extension EventLog: Equatable {
    /// Logs are equal when they hold the same events, however they are chunked.
    static func == (lhs: EventLog, rhs: EventLog) -> Bool {
        lhs.count == rhs.count && lhs.events == rhs.events
    }
}
