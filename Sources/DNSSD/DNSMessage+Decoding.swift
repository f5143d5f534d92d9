extension DNSMessage {
    /// RFC 1035 §4.1.4 leaves pointer chains unbounded; a name needs at most 127 labels, so more hops is an attack.
    static let maximumPointerHops = 128

    /// Reads a message from the bytes of one UDP datagram.
    ///
    /// Throws `DNSMessageError` for anything malformed: truncation, bad labels, pointer loops, records whose data
    /// does not fit their type. Bytes after the last record are ignored.
    public init(bytes: [UInt8]) throws(DNSMessageError) {
        var reader = DNSMessageReader(bytes: bytes)
        let id = try reader.readUInt16()
        let flags = try reader.readUInt16()
        let questionCount = try reader.readUInt16()
        let answerCount = try reader.readUInt16()
        let authorityCount = try reader.readUInt16()
        let additionalCount = try reader.readUInt16()
        // Counts come from the peer: nothing is reserved from them, the bytes run out first.
        var questions: [DNSQuestion] = []
        for _ in 0..<questionCount {
            questions.append(try reader.readQuestion())
        }
        self.init(
            id: id,
            flags: flags,
            questions: questions,
            answers: try reader.readRecords(count: answerCount),
            authorities: try reader.readRecords(count: authorityCount),
            additionals: try reader.readRecords(count: additionalCount)
        )
    }
}

/// Reads DNS wire format from a byte array, bounds-checking every access.
struct DNSMessageReader {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func require(_ count: Int, at position: Int) throws(DNSMessageError) {
        guard position >= 0, count >= 0, position <= bytes.count, bytes.count - position >= count else {
            throw .truncated(offset: position, needed: count)
        }
    }

    mutating func readUInt8() throws(DNSMessageError) -> UInt8 {
        try require(1, at: offset)
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readUInt16() throws(DNSMessageError) -> UInt16 {
        try require(2, at: offset)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func readUInt32() throws(DNSMessageError) -> UInt32 {
        let high = try readUInt16()
        let low = try readUInt16()
        return UInt32(high) << 16 | UInt32(low)
    }

    mutating func readBytes(_ count: Int) throws(DNSMessageError) -> [UInt8] {
        try require(count, at: offset)
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Reads a possibly compressed name, leaving `offset` after its first pointer or its root label.
    mutating func readName() throws(DNSMessageError) -> DNSName {
        var labels: [String] = []
        var position = offset
        // Each pointer must point before the start of the run of labels it ends, so every jump goes strictly
        // backwards and the walk ends; the hop count is a second guard.
        var runStart = position
        var hops = 0
        var resumeAt: Int?
        var wireLength = 1
        while true {
            try require(1, at: position)
            let length = Int(bytes[position])
            switch length & 0xC0 {
            case 0x00:
                if length == 0 {
                    offset = resumeAt ?? position + 1
                    return DNSName(labels: labels)
                }
                try require(1 + length, at: position)
                wireLength += 1 + length
                guard wireLength <= DNSName.maximumWireLength else { throw .nameTooLong(offset: position) }
                labels.append(String(decoding: bytes[position + 1..<position + 1 + length], as: UTF8.self))
                position += 1 + length
            case 0xC0:
                try require(2, at: position)
                let target = (length & 0x3F) << 8 | Int(bytes[position + 1])
                hops += 1
                guard target < runStart, hops <= DNSMessage.maximumPointerHops else {
                    throw .invalidPointer(offset: position)
                }
                if resumeAt == nil { resumeAt = position + 2 }
                position = target
                runStart = target
            default:
                // RFC 6891 extended label types (01) and the reserved 10 are not used by mDNS.
                throw .invalidLabel(offset: position)
            }
        }
    }

    mutating func readQuestion() throws(DNSMessageError) -> DNSQuestion {
        let name = try readName()
        let type = DNSRecordType(rawValue: try readUInt16())
        let classField = try readUInt16()
        // RFC 6762 §5.4: the top bit of a question's class is the unicast-response (QU) bit.
        return DNSQuestion(
            name: name,
            type: type,
            recordClass: classField & 0x7FFF,
            isUnicastResponseWanted: classField & 0x8000 != 0
        )
    }

    mutating func readRecords(count: UInt16) throws(DNSMessageError) -> [DNSResourceRecord] {
        var records: [DNSResourceRecord] = []
        for _ in 0..<count {
            records.append(try readRecord())
        }
        return records
    }

    mutating func readRecord() throws(DNSMessageError) -> DNSResourceRecord {
        let name = try readName()
        let type = DNSRecordType(rawValue: try readUInt16())
        let classField = try readUInt16()
        let ttl = try readUInt32()
        let length = Int(try readUInt16())
        let start = offset
        try require(length, at: start)
        let end = start + length
        let data = try readData(type: type, end: end)
        guard offset == end else { throw .invalidRecordData(type: type, offset: start) }
        // RFC 6762 §10.2: the top bit of a record's class is the cache-flush bit.
        return DNSResourceRecord(
            name: name,
            ttl: ttl,
            recordClass: classField & 0x7FFF,
            isCacheFlush: classField & 0x8000 != 0,
            data: data
        )
    }

    private mutating func readData(type: DNSRecordType, end: Int) throws(DNSMessageError) -> DNSRecordData {
        let start = offset
        let length = end - start
        switch type {
        case .a:
            guard length == 4, let address = IPv4Address(bytes: try readBytes(4)) else {
                throw .invalidRecordData(type: type, offset: start)
            }
            return .a(address)
        case .aaaa:
            guard length == 16 else { throw .invalidRecordData(type: type, offset: start) }
            return .aaaa(try readBytes(16))
        case .ptr:
            let name = try readName()
            guard offset <= end else { throw .invalidRecordData(type: type, offset: start) }
            return .ptr(name)
        case .srv:
            guard length >= 7 else { throw .invalidRecordData(type: type, offset: start) }
            let priority = try readUInt16()
            let weight = try readUInt16()
            let port = try readUInt16()
            let target = try readName()
            guard offset <= end else { throw .invalidRecordData(type: type, offset: start) }
            return .srv(priority: priority, weight: weight, port: port, target: target)
        case .txt:
            var strings: [[UInt8]] = []
            while offset < end {
                let count = Int(try readUInt8())
                guard offset + count <= end else { throw .invalidRecordData(type: type, offset: start) }
                strings.append(try readBytes(count))
            }
            return .txt(strings)
        case .nsec:
            let next = try readName()
            guard offset <= end else { throw .invalidRecordData(type: type, offset: start) }
            return .nsec(next: next, types: try readTypeBitmaps(end: end, recordStart: start))
        default:
            return .other(type: type, bytes: try readBytes(length))
        }
    }

    /// RFC 4034 §4.1.2: windows of up to 32 bitmap bytes, in increasing window order.
    private mutating func readTypeBitmaps(end: Int, recordStart: Int) throws(DNSMessageError) -> [DNSRecordType] {
        var types: [DNSRecordType] = []
        var lastWindow = -1
        while offset < end {
            let window = Int(try readUInt8())
            let length = Int(try readUInt8())
            guard window > lastWindow, (1...32).contains(length), offset + length <= end else {
                throw .invalidRecordData(type: .nsec, offset: recordStart)
            }
            lastWindow = window
            for (index, byte) in try readBytes(length).enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (0x80 >> bit) != 0 {
                    types.append(DNSRecordType(rawValue: UInt16(window << 8 | index * 8 + bit)))
                }
            }
        }
        return types
    }
}
