/// An array stored in chunks of at most ``chunkSize`` elements, so changing one element of an array whose storage
/// is shared (a graph and the snapshot readers hold) copies one chunk, not every element.
///
/// Every chunk but the last is full, so an index finds its chunk by division. Appending and changing elements in
/// place touch one chunk; inserting or removing anywhere but at the end rebuilds the chunks (O(n)). It reads, compares
/// and encodes as a plain array.
public struct ChunkedArray<Element> {
    /// How many elements a chunk holds: a change copies that many elements and one reference per chunk.
    public static var chunkSize: Int { 16 }

    private var chunks: [[Element]]
    /// The number of elements.
    public private(set) var count: Int

    /// An empty array.
    public init() {
        chunks = []
        count = 0
    }

    /// The elements of `elements`, in order.
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        for element in elements { append(element) }
    }

    /// Adds `element` at the end, copying at most the last chunk.
    public mutating func append(_ element: Element) {
        if let last = chunks.indices.last, chunks[last].count < Self.chunkSize {
            chunks[last].append(element)
        } else {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunk.append(element)
            chunks.append(chunk)
        }
        count += 1
    }
}

extension ChunkedArray {
    /// The elements as a plain array.
    public var array: [Element] { chunks.count == 1 ? chunks[0] : Array(chunks.joined()) }
}

extension ChunkedArray: RandomAccessCollection, MutableCollection {
    /// The position of the first element, 0.
    public var startIndex: Int { 0 }
    /// One past the last position, ``count``.
    public var endIndex: Int { count }

    /// The element at `position`, read and changed in place (a read of one field copies no other); a change
    /// copies at most one chunk.
    public subscript(position: Int) -> Element {
        _read {
            precondition(position >= 0 && position < count, "index out of range")
            yield chunks[position / Self.chunkSize][position % Self.chunkSize]
        }
        _modify {
            precondition(position >= 0 && position < count, "index out of range")
            yield &chunks[position / Self.chunkSize][position % Self.chunkSize]
        }
    }
}

extension ChunkedArray: RangeReplaceableCollection {
    /// Replaces the elements in `subrange` with `newElements`: at the end in place, elsewhere by rebuilding.
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
    where C.Element == Element {
        if subrange.isEmpty, subrange.lowerBound == count {
            for element in newElements { append(element) }
            return
        }
        var all = Array(self)
        all.replaceSubrange(subrange, with: newElements)
        self = ChunkedArray(all)
    }

    /// Makes room for `minimumCapacity` elements (chunks are allocated as they fill, so this does nothing).
    public mutating func reserveCapacity(_ minimumCapacity: Int) {}
}

extension ChunkedArray: ExpressibleByArrayLiteral {
    /// The literal's elements, in order.
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension ChunkedArray: Equatable where Element: Equatable {
    /// Equal when the elements are, in order.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && lhs.chunks == rhs.chunks
    }
}

extension ChunkedArray: Hashable where Element: Hashable {
    /// Hashes the elements in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }
}

extension ChunkedArray: Sendable where Element: Sendable {}

extension ChunkedArray: Codable where Element: Codable {
    /// Reads a plain array.
    public init(from decoder: any Decoder) throws {
        self.init(try [Element](from: decoder))
    }

    /// Writes a plain array.
    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}

extension ChunkedArray: CustomStringConvertible {
    /// As a plain array prints.
    public var description: String { Array(self).description }
}
