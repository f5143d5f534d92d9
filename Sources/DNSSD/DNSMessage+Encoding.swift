extension DNSMessage {
    /// The wire bytes of this message, with names compressed (RFC 1035 §4.1.4).
    ///
    /// Owner names, PTR targets, SRV targets and NSEC next names are compressed, as RFC 6762 §18.14 allows.
    /// Throws for labels over 63 bytes, empty labels, names over 255 bytes, TXT strings over 255 bytes.
    public func encoded() throws(DNSMessageError) -> [UInt8] {
        var writer = DNSMessageWriter()
        writer.writeUInt16(id)
        writer.writeUInt16(flags)
        for count in [questions.count, answers.count, authorities.count, additionals.count] {
            guard count <= Int(UInt16.max) else { throw .messageTooLong }
            writer.writeUInt16(UInt16(count))
        }
        for question in questions {
            try writer.writeName(question.name)
            writer.writeUInt16(question.type.rawValue)
            writer.writeUInt16(question.recordClass & 0x7FFF | (question.isUnicastResponseWanted ? 0x8000 : 0))
        }
        for record in answers + authorities + additionals {
            try writer.writeRecord(record)
        }
        guard writer.bytes.count <= Int(UInt16.max) else { throw .messageTooLong }
        return writer.bytes
    }
}

/// Writes DNS wire format, remembering where each name suffix was written for compression.
struct DNSMessageWriter {
    var bytes: [UInt8] = []
    /// Off when writing rdata for comparison (RFC 6762 §8.2 compares uncompressed data).
    var compresses = true
    /// Lower-cased label suffixes already written, and where; only offsets a 14-bit pointer can reach.
    private var suffixOffsets: [[String]: Int] = [:]

    mutating func writeUInt16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    mutating func writeUInt32(_ value: UInt32) {
        writeUInt16(UInt16(value >> 16))
        writeUInt16(UInt16(value & 0xFFFF))
    }

    mutating func writeName(_ name: DNSName) throws(DNSMessageError) {
        guard name.wireLength <= DNSName.maximumWireLength else { throw .nameTooLong(offset: bytes.count) }
        let canonical = name.canonicalLabels
        for index in name.labels.indices {
            let suffix = Array(canonical[index...])
            if compresses, let target = suffixOffsets[suffix] {
                writeUInt16(0xC000 | UInt16(target))
                return
            }
            let label = Array(name.labels[index].utf8)
            guard !label.isEmpty, label.count <= DNSName.maximumLabelLength else {
                throw .invalidLabel(offset: bytes.count)
            }
            if bytes.count <= 0x3FFF {
                suffixOffsets[suffix] = bytes.count
            }
            bytes.append(UInt8(label.count))
            bytes.append(contentsOf: label)
        }
        bytes.append(0)
    }

    mutating func writeRecord(_ record: DNSResourceRecord) throws(DNSMessageError) {
        try writeName(record.name)
        writeUInt16(record.type.rawValue)
        writeUInt16(record.recordClass & 0x7FFF | (record.isCacheFlush ? 0x8000 : 0))
        writeUInt32(record.ttl)
        let lengthOffset = bytes.count
        writeUInt16(0)
        try writeRecordData(record.data)
        let length = bytes.count - lengthOffset - 2
        guard length <= Int(UInt16.max) else { throw .messageTooLong }
        bytes[lengthOffset] = UInt8(length >> 8)
        bytes[lengthOffset + 1] = UInt8(length & 0xFF)
    }

    mutating func writeRecordData(_ data: DNSRecordData) throws(DNSMessageError) {
        switch data {
        case .a(let address):
            bytes.append(contentsOf: address.bytes)
        case .aaaa(let address):
            guard address.count == 16 else { throw .invalidRecordData(type: .aaaa, offset: bytes.count) }
            bytes.append(contentsOf: address)
        case .ptr(let target):
            try writeName(target)
        case .srv(let priority, let weight, let port, let target):
            writeUInt16(priority)
            writeUInt16(weight)
            writeUInt16(port)
            try writeName(target)
        case .txt(let strings):
            for string in strings {
                guard string.count <= 255 else { throw .stringTooLong(length: string.count) }
                bytes.append(UInt8(string.count))
                bytes.append(contentsOf: string)
            }
        case .nsec(let next, let types):
            try writeName(next)
            writeTypeBitmaps(types)
        case .other(_, let data):
            bytes.append(contentsOf: data)
        }
    }

    /// RFC 4034 §4.1.2: one block per 256-type window that has a type, trailing zero bytes left out.
    private mutating func writeTypeBitmaps(_ types: [DNSRecordType]) {
        let windows = Dictionary(grouping: Set(types.map(\.rawValue)), by: { $0 >> 8 })
        for window in windows.keys.sorted() {
            var bitmap = [UInt8](repeating: 0, count: 32)
            for type in windows[window] ?? [] {
                let low = Int(type & 0xFF)
                bitmap[low / 8] |= 0x80 >> UInt8(low % 8)
            }
            while bitmap.last == 0 {
                bitmap.removeLast()
            }
            bytes.append(UInt8(window))
            bytes.append(UInt8(bitmap.count))
            bytes.append(contentsOf: bitmap)
        }
    }
}
