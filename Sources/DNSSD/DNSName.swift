/// A domain name as its labels, compared case-insensitively (ASCII) as DNS does.
///
/// Labels are kept as text, so an instance name such as `Hearth Bridge 1A2B` may hold spaces and dots.
public struct DNSName: Hashable, Sendable, CustomStringConvertible {
    /// The labels, most specific first, without the empty root label.
    public var labels: [String]

    /// RFC 1035 §2.3.4: a label holds at most 63 bytes.
    public static let maximumLabelLength = 63
    /// RFC 1035 §2.3.4: a name holds at most 255 bytes on the wire.
    public static let maximumWireLength = 255

    /// Makes a name from its labels.
    public init(labels: [String]) {
        self.labels = labels
    }

    /// Makes a name from dotted text (`_hap._tcp.local`); a trailing dot is allowed, escapes are not.
    public init(_ dotted: String) {
        self.labels = dotted.split(separator: ".").map(String.init)
    }

    /// This name with `label` put in front of it.
    public func prepending(_ label: String) -> DNSName {
        DNSName(labels: [label] + labels)
    }

    /// The bytes this name takes uncompressed on the wire, root label included.
    public var wireLength: Int {
        labels.reduce(1) { $0 + 1 + $1.utf8.count }
    }

    /// Lower-cased labels: the key for comparing and hashing.
    var canonicalLabels: [String] {
        labels.map { Self.lowercasedASCII($0) }
    }

    /// Dotted text with a trailing dot.
    public var description: String {
        labels.joined(separator: ".") + "."
    }

    /// Compares names ignoring ASCII case, as RFC 1035 §2.3.3 asks.
    public static func == (lhs: DNSName, rhs: DNSName) -> Bool {
        lhs.canonicalLabels == rhs.canonicalLabels
    }

    /// Hashes the lower-cased labels.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonicalLabels)
    }

    static func lowercasedASCII(_ text: String) -> String {
        String(
            decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 },
            as: UTF8.self
        )
    }
}
