/// An mDNS record cache with TTL expiry (RFC 6762 §10); pure, so tests pass the time in.
///
/// Times are durations since any fixed start: the browser uses its clock, tests use plain numbers.
struct RecordCache: Sendable {
    /// RFC 6762 §10.2: a cache-flush record keeps peers' records received in the last second.
    static let cacheFlushGrace = Duration.seconds(1)

    struct Entry: Sendable, Equatable {
        var record: DNSResourceRecord
        var receivedAt: Duration
        var expiresAt: Duration
        /// Whether the refresh query at 80 % of the lifetime (RFC 6762 §5.2) has been sent.
        var isRefreshRequested = false
    }

    private struct Key: Hashable, Sendable {
        var name: DNSName
        var type: DNSRecordType
    }

    private var entries: [Key: [Entry]] = [:]

    /// Every record in the cache.
    var records: [DNSResourceRecord] { entries.values.flatMap { $0.map(\.record) } }

    /// Adds or refreshes a record received at `now`.
    ///
    /// A TTL of 0 (a goodbye) removes the record at once rather than after RFC 6762 §10.1's one second, so a
    /// departed service is reported without delay. A cache-flush record drops other data for its name and type
    /// received more than a second ago.
    mutating func insert(_ record: DNSResourceRecord, now: Duration) {
        let key = Key(name: record.name, type: record.type)
        var list = entries[key] ?? []
        if record.ttl == 0 {
            list.removeAll { $0.record.data == record.data }
        } else {
            if record.isCacheFlush {
                list.removeAll { $0.record.data != record.data && now - $0.receivedAt > Self.cacheFlushGrace }
            }
            let entry = Entry(record: record, receivedAt: now, expiresAt: now + .seconds(Int64(record.ttl)))
            if let index = list.firstIndex(where: { $0.record.data == record.data }) {
                list[index] = entry
            } else {
                list.append(entry)
            }
        }
        entries[key] = list.isEmpty ? nil : list
    }

    /// Removes records whose TTL has run out by `now` and returns them.
    @discardableResult
    mutating func expire(now: Duration) -> [DNSResourceRecord] {
        var removed: [DNSResourceRecord] = []
        for (key, list) in entries {
            let kept = list.filter { $0.expiresAt > now }
            removed += list.filter { $0.expiresAt <= now }.map(\.record)
            entries[key] = kept.isEmpty ? nil : kept
        }
        return removed
    }

    /// Records past 80 % of their lifetime not yet asked about; each is returned once (RFC 6762 §5.2).
    mutating func recordsDueForRefresh(now: Duration) -> [DNSResourceRecord] {
        var due: [DNSResourceRecord] = []
        for (key, list) in entries {
            var list = list
            for index in list.indices where !list[index].isRefreshRequested {
                let lifetime = list[index].expiresAt - list[index].receivedAt
                if now >= list[index].receivedAt + lifetime * 0.8 {
                    list[index].isRefreshRequested = true
                    due.append(list[index].record)
                }
            }
            entries[key] = list
        }
        return due
    }

    /// The live records for a name and type, newest first, with TTLs reduced to what remains at `now`.
    func records(named name: DNSName, type: DNSRecordType, now: Duration) -> [DNSResourceRecord] {
        // Newest first: while a cache-flush record's one-second grace keeps the data it replaces (a TXT record's old
        // `sf` right after pairing), the record received last is the service's truth.
        (entries[Key(name: name, type: type)] ?? []).sorted { $0.receivedAt > $1.receivedAt }.compactMap { entry in
            guard entry.expiresAt > now else { return nil }
            var record = entry.record
            record.ttl = UInt32((entry.expiresAt - now).components.seconds)
            return record
        }
    }
}
