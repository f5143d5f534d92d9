/// The records one service instance owns, and the pure rules for answering and for spotting conflicts.
struct ServiceRecords: Sendable {
    /// RFC 6762 §10: records naming a host (SRV, A) live 120 s.
    static let hostRecordTTL: UInt32 = 120
    /// RFC 6762 §10: other records (PTR, TXT) live 75 minutes.
    static let otherRecordTTL: UInt32 = 4500
    /// RFC 6763 §9: the name that lists every service type on the link.
    static let serviceEnumerationName = DNSName("_services._dns-sd._udp.local")

    let service: ServiceInstance
    let instanceName: DNSName
    let hostName: DNSName
    let pointer: DNSResourceRecord
    let enumerationPointer: DNSResourceRecord
    let location: DNSResourceRecord
    let text: DNSResourceRecord
    let addresses: [DNSResourceRecord]

    init(service: ServiceInstance) {
        self.service = service
        instanceName = service.instanceName
        hostName = service.hostDNSName
        pointer = DNSResourceRecord(
            name: service.serviceTypeName,
            ttl: Self.otherRecordTTL,
            data: .ptr(instanceName)
        )
        enumerationPointer = DNSResourceRecord(
            name: Self.serviceEnumerationName,
            ttl: Self.otherRecordTTL,
            data: .ptr(service.serviceTypeName)
        )
        location = DNSResourceRecord(
            name: instanceName,
            ttl: Self.hostRecordTTL,
            isCacheFlush: true,
            data: .srv(priority: 0, weight: 0, port: service.port, target: hostName)
        )
        text = DNSResourceRecord(
            name: instanceName,
            ttl: Self.otherRecordTTL,
            isCacheFlush: true,
            data: .txt(TXTCoding.strings(from: service.txt))
        )
        let host = hostName
        addresses = service.addresses.map {
            DNSResourceRecord(name: host, ttl: Self.hostRecordTTL, isCacheFlush: true, data: .a($0))
        }
    }

    /// The records only this responder may own (RFC 6762 §8): SRV, TXT and A.
    var uniqueRecords: [DNSResourceRecord] { [location, text] + addresses }

    /// Every record, for announcements and goodbyes.
    var allRecords: [DNSResourceRecord] { [pointer, enumerationPointer] + uniqueRecords }

    /// The probe (RFC 6762 §8.1): ANY questions for both unique names, the proposed records in authority.
    func probe(unicastResponseWanted: Bool) -> DNSMessage {
        DNSMessage(
            questions: [
                DNSQuestion(name: instanceName, type: .any, isUnicastResponseWanted: unicastResponseWanted),
                DNSQuestion(name: hostName, type: .any, isUnicastResponseWanted: unicastResponseWanted),
            ],
            // RFC 6762 §10.2: no cache-flush bit in a probe's authority section.
            authorities: uniqueRecords.map { record in
                var record = record
                record.isCacheFlush = false
                return record
            }
        )
    }

    /// An unsolicited response carrying `records`; a goodbye sends them with TTL 0 (RFC 6762 §10.1).
    static func announcement(_ records: [DNSResourceRecord], goodbye: Bool = false) -> DNSMessage {
        DNSMessage(
            flags: DNSMessage.responseFlag | DNSMessage.authoritativeFlag,
            answers: records.map { record in
                var record = record
                if goodbye { record.ttl = 0 }
                return record
            }
        )
    }

    /// The answer and additional records for a query, known answers suppressed (RFC 6762 §7.1).
    func response(to query: DNSMessage) -> (answers: [DNSResourceRecord], additionals: [DNSResourceRecord]) {
        var answers: [DNSResourceRecord] = []
        var additionals: [DNSResourceRecord] = []
        for question in query.questions where question.recordClass == 1 || question.recordClass == 255 {
            for record in allRecords where record.name == question.name {
                if question.type == .any || question.type == record.type {
                    answers.append(record)
                }
            }
            // RFC 6762 §6.1: say which types exist when asked for one we lack.
            if question.type != .any, question.type != .a, question.name == hostName {
                additionals.append(negativeAnswer(for: hostName, types: [.a]))
            }
        }
        answers = answers.filter { record in
            !query.answers.contains { known in
                known.name == record.name && known.data == record.data && known.ttl >= record.ttl / 2
            }
        }
        // RFC 6763 §12: a PTR answer brings SRV, TXT and addresses; an SRV answer brings addresses.
        if answers.contains(where: { $0.type == .ptr && $0.name == pointer.name }) {
            additionals += [location, text] + addresses
        } else if answers.contains(where: { $0.type == .srv }) {
            additionals += addresses
        }
        additionals = additionals.reduce(into: []) { kept, record in
            let isDuplicate = (answers + kept).contains { $0.name == record.name && $0.data == record.data }
            if !isDuplicate { kept.append(record) }
        }
        return (removingDuplicates(answers), additionals)
    }

    private func negativeAnswer(for name: DNSName, types: [DNSRecordType]) -> DNSResourceRecord {
        DNSResourceRecord(
            name: name,
            ttl: Self.hostRecordTTL,
            isCacheFlush: true,
            data: .nsec(next: name, types: types)
        )
    }

    private func removingDuplicates(_ records: [DNSResourceRecord]) -> [DNSResourceRecord] {
        records.reduce(into: []) { kept, record in
            if !kept.contains(where: { $0.name == record.name && $0.data == record.data }) { kept.append(record) }
        }
    }

    /// Whether a response holds a record for one of our unique names with data we did not send (RFC 6762 §9).
    func conflicts(with response: DNSMessage) -> Bool {
        response.allRecords.contains { record in
            guard record.name == instanceName || record.name == hostName, record.type != .nsec else { return false }
            return !uniqueRecords.contains { $0.name == record.name && $0.data == record.data }
        }
    }

    /// Whether a peer's simultaneous probe for one of our names wins the tie-break (RFC 6762 §8.2).
    ///
    /// Both sides' authority records for that name are sorted and compared as class, type and rdata bytes; the
    /// lexicographically later set wins. Identical sets (our own probe looped back) are no conflict.
    func losesTieBreak(against probe: DNSMessage) -> Bool {
        for name in [instanceName, hostName] {
            let theirs = probe.authorities.filter { $0.name == name }
            guard !theirs.isEmpty, probe.questions.contains(where: { $0.name == name }) else { continue }
            let ours = sortedCanonical(uniqueRecords.filter { $0.name == name })
            let other = sortedCanonical(theirs)
            if ours == other { continue }
            for (mine, yours) in zip(ours, other) where mine != yours {
                return mine.lexicographicallyPrecedes(yours)
            }
            return ours.count < other.count
        }
        return false
    }

    private func sortedCanonical(_ records: [DNSResourceRecord]) -> [[UInt8]] {
        records.map { record in
            var writer = DNSMessageWriter()
            writer.compresses = false
            writer.writeUInt16(record.recordClass)
            writer.writeUInt16(record.type.rawValue)
            try? writer.writeRecordData(record.data)
            return writer.bytes
        }.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
