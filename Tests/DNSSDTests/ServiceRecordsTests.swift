import Testing

@testable import DNSSD

@Suite struct ServiceRecordsTests {
    static let service = ServiceInstance(
        name: "Hearth Bridge 1A2B",
        hostName: "Hearth-1A2B",
        port: 51826,
        txt: [("c#", "1"), ("ff", "0"), ("id", "1A:2B:3C:4D:5E:6F"), ("md", "Bridge"), ("pv", "1.1"), ("s#", "1")],
        addresses: [IPv4Address(198, 18, 90, 1)]
    )

    @Test func answersABrowseWithSRVTXTAndAddressesAsAdditionals() {
        let records = ServiceRecords(service: Self.service)
        let query = DNSMessage(questions: [DNSQuestion(name: DNSName("_hap._tcp.local"), type: .ptr)])
        let (answers, additionals) = records.response(to: query)
        #expect(answers == [records.pointer])
        #expect(additionals.map(\.type) == [.srv, .txt, .a])
        #expect(records.hostName == DNSName("Hearth-1A2B.local"))
    }

    @Test func suppressesKnownAnswers() {
        let records = ServiceRecords(service: Self.service)
        var known = records.pointer
        known.ttl = 4000
        let query = DNSMessage(questions: [DNSQuestion(name: DNSName("_hap._tcp.local"), type: .ptr)], answers: [known])
        #expect(records.response(to: query).answers.isEmpty)
        known.ttl = 1000
        let stale = DNSMessage(questions: query.questions, answers: [known])
        #expect(records.response(to: stale).answers == [records.pointer])
    }

    @Test func answersAnAAAAQueryWithNSEC() {
        let records = ServiceRecords(service: Self.service)
        let query = DNSMessage(questions: [DNSQuestion(name: records.hostName, type: .aaaa)])
        let (answers, additionals) = records.response(to: query)
        #expect(answers.isEmpty)
        #expect(additionals.map(\.data) == [.nsec(next: records.hostName, types: [.a])])
    }

    @Test func seesAConflictOnlyInDifferentData() {
        let records = ServiceRecords(service: Self.service)
        let own = ServiceRecords.announcement(records.allRecords)
        #expect(!records.conflicts(with: own))
        var other = Self.service
        other.port = 1234
        let theirs = ServiceRecords.announcement(ServiceRecords(service: other).allRecords)
        #expect(records.conflicts(with: theirs))
    }

    @Test("our own announcement heard back after a TXT update is recognised, another's record is not (issue 20)")
    func recognisesOwnMessagesHeardBack() throws {
        let records = ServiceRecords(service: Self.service)
        let first = ServiceRecords.announcement(records.allRecords)
        var updated = Self.service
        updated.txt[0].value = "2"
        let current = ServiceRecords(service: updated)
        // The first announcement, heard back once the TXT changed, differs from our records now...
        let heard = try DNSMessage(bytes: try first.encoded())
        #expect(current.conflicts(with: heard))
        // ...but it is the message we sent, and no conflict.
        var log = SentMessageLog()
        let start = ContinuousClock.now
        log.record(first, at: start)
        log.record(ServiceRecords.announcement([current.text]), at: start)
        #expect(log.contains(heard, at: start + .milliseconds(5)))
        var other = Self.service
        other.port = 1234
        let theirs = try DNSMessage(
            bytes: try ServiceRecords.announcement(ServiceRecords(service: other).allRecords).encoded()
        )
        #expect(!log.contains(theirs, at: start + .milliseconds(5)))
        #expect(!log.contains(heard, at: start + SentMessageLog.window + .seconds(1)))
    }

    @Test func breaksProbeTiesByComparingRecords() {
        let records = ServiceRecords(service: Self.service)
        #expect(!records.losesTieBreak(against: records.probe(unicastResponseWanted: true)))
        var higher = Self.service
        higher.port = 60000
        var lower = Self.service
        lower.port = 1000
        #expect(records.losesTieBreak(against: ServiceRecords(service: higher).probe(unicastResponseWanted: false)))
        #expect(!records.losesTieBreak(against: ServiceRecords(service: lower).probe(unicastResponseWanted: false)))
    }

    @Test func readsTXTKeysLowerCasedFirstWins() {
        let strings: [[UInt8]] = [Array("C#=2".utf8), Array("c#=3".utf8), Array("flag".utf8), Array("=x".utf8), []]
        #expect(TXTCoding.dictionary(from: strings) == ["c#": "2", "flag": ""])
        #expect(TXTCoding.strings(from: []) == [[]])
    }
}

@Suite struct RecordCacheTests {
    static let record = DNSResourceRecord(
        name: DNSName("h.local"),
        ttl: 10,
        isCacheFlush: true,
        data: .a(IPv4Address(198, 18, 90, 1))
    )

    @Test func expiresRecordsWhenTheirTTLRunsOut() {
        var cache = RecordCache()
        cache.insert(Self.record, now: .seconds(100))
        #expect(cache.records(named: DNSName("H.LOCAL"), type: .a, now: .seconds(105)).map(\.ttl) == [5])
        #expect(cache.expire(now: .seconds(109)).isEmpty)
        #expect(cache.expire(now: .seconds(110)) == [Self.record])
        #expect(cache.records.isEmpty)
    }

    @Test func asksForARefreshOnceAtEightyPercent() {
        var cache = RecordCache()
        cache.insert(Self.record, now: .zero)
        #expect(cache.recordsDueForRefresh(now: .seconds(7)).isEmpty)
        #expect(cache.recordsDueForRefresh(now: .seconds(8)) == [Self.record])
        #expect(cache.recordsDueForRefresh(now: .seconds(9)).isEmpty)
        cache.insert(Self.record, now: .seconds(9))
        #expect(cache.expire(now: .seconds(18)).isEmpty)
    }

    @Test func removesARecordOnGoodbye() {
        var cache = RecordCache()
        cache.insert(Self.record, now: .zero)
        var goodbye = Self.record
        goodbye.ttl = 0
        cache.insert(goodbye, now: .seconds(1))
        #expect(cache.records.isEmpty)
    }

    /// A TXT record that replaces one received less than a second before (an accessory's `sf=0` right after
    /// pairing) is the one read: records come newest first.
    @Test func theNewestRecordComesFirstWhileTheGraceKeepsTheOldOne() {
        var cache = RecordCache()
        let name = DNSName("Lamp._hap._tcp.local")
        let unpaired = DNSResourceRecord(name: name, ttl: 4500, isCacheFlush: true, data: .txt([Array("sf=1".utf8)]))
        var paired = unpaired
        paired.data = .txt([Array("sf=0".utf8)])
        cache.insert(unpaired, now: .seconds(10))
        cache.insert(paired, now: .milliseconds(10_400))
        let records = cache.records(named: name, type: .txt, now: .seconds(11))
        #expect(records.count == 2, "the old one is kept for its second of grace")
        #expect(records.first?.data == .txt([Array("sf=0".utf8)]))
        // Refreshed later, the old data stays behind the new.
        cache.insert(paired, now: .seconds(12))
        #expect(cache.records(named: name, type: .txt, now: .seconds(12)).first?.data == .txt([Array("sf=0".utf8)]))
    }

    @Test func flushesOlderDataOnCacheFlush() {
        var cache = RecordCache()
        var shared = Self.record
        shared.isCacheFlush = false
        cache.insert(shared, now: .zero)
        var second = shared
        second.data = .a(IPv4Address(198, 18, 90, 2))
        cache.insert(second, now: .milliseconds(500))
        #expect(cache.records(named: shared.name, type: .a, now: .seconds(1)).count == 2)
        var flushing = Self.record
        flushing.data = .a(IPv4Address(198, 18, 90, 3))
        cache.insert(flushing, now: .milliseconds(1200))
        // The record from 0 s is over a second old and goes; the one from 0.5 s stays (RFC 6762 §10.2). Newest first.
        #expect(
            cache.records(named: shared.name, type: .a, now: .milliseconds(1300)).map(\.data) == [
                flushing.data, second.data,
            ]
        )
    }
}
