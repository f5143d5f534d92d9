/// A HAP TLV8 message: an ordered list of type-length-value items, as pairing bodies carry them.
///
/// Values longer than 255 bytes travel as consecutive fragments of the same type; `TLV8` holds the joined value
/// and splits it again when encoding. Lists of records (List Pairings) put a ``Tag/separator`` item between records.
public struct TLV8: Sendable, Equatable {
    /// One item of a message: a tag and its whole (joined) value.
    public struct Item: Sendable, Equatable {
        /// What the value means.
        public var tag: Tag
        /// The value bytes, already joined from their fragments.
        public var value: [UInt8]

        /// Makes an item from a tag and its value.
        public init(_ tag: Tag, _ value: [UInt8]) {
            self.tag = tag
            self.value = value
        }
    }

    /// The items in wire order.
    public var items: [Item]

    /// Makes a message from items in the order they are sent.
    public init(_ items: [Item] = []) {
        self.items = items
    }

    /// The largest value one fragment carries; hap-protocol.md §2.1.
    static let maximumFragmentLength = 255

    /// The value of the first item with this tag, or `nil` when there is none.
    public subscript(tag: Tag) -> [UInt8]? {
        items.first { $0.tag == tag }?.value
    }

    /// Whether the message has an item with this tag.
    public func contains(_ tag: Tag) -> Bool {
        items.contains { $0.tag == tag }
    }

    /// Adds an item at the end.
    public mutating func append(_ tag: Tag, _ value: [UInt8]) {
        items.append(Item(tag, value))
    }

    /// Adds a one-byte item at the end.
    public mutating func append(_ tag: Tag, byte: UInt8) {
        items.append(Item(tag, [byte]))
    }

    /// Adds an item holding an unsigned integer, little-endian in the fewest bytes (at least one).
    public mutating func append(_ tag: Tag, integer: UInt64) {
        var bytes: [UInt8] = []
        var rest = integer
        repeat {
            bytes.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        } while rest != 0
        items.append(Item(tag, bytes))
    }

    /// Adds a separator item, which ends one record of a list.
    public mutating func appendSeparator() {
        items.append(Item(.separator, []))
    }
}

// MARK: - Encoding

extension TLV8 {
    /// The wire bytes: each value split into fragments of at most 255 bytes.
    ///
    /// hap-protocol.md §2.1: a value of exactly 255·n bytes is n full fragments with no trailing empty fragment;
    /// an empty value is one item of length 0.
    public func encoded() -> [UInt8] {
        var size = 0
        for item in items {
            let fragments = max(1, (item.value.count + Self.maximumFragmentLength - 1) / Self.maximumFragmentLength)
            size += item.value.count + 2 * fragments
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for item in items {
            if item.value.isEmpty {
                bytes.append(item.tag.rawValue)
                bytes.append(0)
                continue
            }
            var start = item.value.startIndex
            while start < item.value.endIndex {
                let end = min(start + Self.maximumFragmentLength, item.value.endIndex)
                bytes.append(item.tag.rawValue)
                bytes.append(UInt8(end - start))
                bytes.append(contentsOf: item.value[start..<end])
                start = end
            }
        }
        return bytes
    }
}

// MARK: - Decoding

extension TLV8 {
    /// Reads a message, joining fragments; malformed bytes give a ``TLV8Error`` and never a trap.
    ///
    /// hap-protocol.md §2.1: rejects a header or value cut short, a continuation after a fragment shorter than
    /// 255 bytes, an empty continuation, and a tag repeated within one record. Records are delimited by
    /// separators, so a list of pairings may repeat tags once per record.
    public init(decoding bytes: some Collection<UInt8>) throws(TLV8Error) {
        let buffer = Array(bytes)
        var items: [Item] = []
        var seenInRecord = Set<UInt8>()
        var offset = 0
        // Whether the previous item was a full 255-byte fragment that a same-tag item may continue.
        var previousWasFullFragment = false
        while offset < buffer.count {
            guard buffer.count - offset >= 2 else {
                throw .truncatedHeader(offset: offset)
            }
            let tag = Tag(rawValue: buffer[offset])
            let length = Int(buffer[offset + 1])
            let valueStart = offset + 2
            guard buffer.count - valueStart >= length else {
                throw .truncatedValue(tag: tag, offset: offset, declaredLength: length)
            }
            let value = buffer[valueStart..<(valueStart + length)]
            if let last = items.last, last.tag == tag, tag != .separator {
                guard previousWasFullFragment else {
                    throw .continuationAfterShortFragment(tag: tag, offset: offset)
                }
                guard length > 0 else {
                    throw .emptyContinuation(tag: tag, offset: offset)
                }
                items[items.count - 1].value.append(contentsOf: value)
            } else if tag == .separator {
                guard length == 0 else {
                    throw .invalidLength(tag: tag, expected: 0, actual: length)
                }
                items.append(Item(tag, []))
                seenInRecord.removeAll(keepingCapacity: true)
            } else {
                guard seenInRecord.insert(tag.rawValue).inserted else {
                    throw .duplicateItem(tag: tag, offset: offset)
                }
                items.append(Item(tag, Array(value)))
            }
            previousWasFullFragment = length == Self.maximumFragmentLength
            offset = valueStart + length
        }
        self.items = items
    }
}

// MARK: - Typed access

extension TLV8 {
    /// The value of a required item; a missing item is ``TLV8Error/missingItem(tag:)``.
    public func require(_ tag: Tag) throws(TLV8Error) -> [UInt8] {
        guard let value = self[tag] else {
            throw .missingItem(tag: tag)
        }
        return value
    }

    /// The value of a required item that must be exactly `count` bytes long.
    public func require(_ tag: Tag, count: Int) throws(TLV8Error) -> [UInt8] {
        let value = try require(tag)
        guard value.count == count else {
            throw .invalidLength(tag: tag, expected: count, actual: value.count)
        }
        return value
    }

    /// The value of a required one-byte item (State, Method, Error, Permissions).
    public func requireByte(_ tag: Tag) throws(TLV8Error) -> UInt8 {
        let value = try require(tag, count: 1)
        return value[0]
    }

    /// The value of an optional little-endian integer item of 1 to 8 bytes, or `nil` when absent.
    public func integer(_ tag: Tag) throws(TLV8Error) -> UInt64? {
        guard let value = self[tag] else {
            return nil
        }
        guard (1...8).contains(value.count) else {
            throw .invalidLength(tag: tag, expected: 8, actual: value.count)
        }
        var result: UInt64 = 0
        for (index, byte) in value.enumerated() {
            result |= UInt64(byte) << (8 * UInt64(index))
        }
        return result
    }

    /// The records of a list, split at separator items; a message without separators is one record.
    public var records: [TLV8] {
        var result: [TLV8] = []
        var current: [Item] = []
        for item in items {
            if item.tag == .separator {
                result.append(TLV8(current))
                current = []
            } else {
                current.append(item)
            }
        }
        if !current.isEmpty || result.isEmpty {
            result.append(TLV8(current))
        }
        return result
    }
}
