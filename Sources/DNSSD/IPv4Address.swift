/// An IPv4 address: the interfaces mDNS runs on and the addresses an A record carries.
public struct IPv4Address: Hashable, Sendable, CustomStringConvertible {
    /// The four bytes in network order.
    public var bytes: [UInt8] { [a, b, c, d] }

    private let a: UInt8
    private let b: UInt8
    private let c: UInt8
    private let d: UInt8

    /// Makes an address from its four bytes in network order.
    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
    }

    /// Parses dotted-decimal text such as `198.18.90.1`; `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var values: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = UInt8(part) else {
                return nil
            }
            values.append(value)
        }
        self.init(values[0], values[1], values[2], values[3])
    }

    /// Makes an address from exactly four bytes; `nil` for any other count.
    public init?(bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        guard array.count == 4 else { return nil }
        self.init(array[0], array[1], array[2], array[3])
    }

    /// The address as a 32-bit number in host order (198.18.90.1 is 0xC6125A01).
    public var value: UInt32 {
        UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    /// Dotted-decimal text.
    public var description: String { "\(a).\(b).\(c).\(d)" }
}
