/// A DNS-SD service instance to advertise: what `MDNSResponder` registers.
public struct ServiceInstance: Sendable, Equatable {
    /// The instance name people see, such as `Hearth Bridge 1A2B`; one DNS label, so at most 63 bytes.
    public var name: String
    /// The service type, such as `_hap._tcp`.
    public var type: String
    /// The domain, `local` for mDNS.
    public var domain: String
    /// The host name the SRV record points at, such as `Hearth-1A2B.local`; `.local` is added when missing.
    public var hostName: String
    /// The TCP or UDP port of the service.
    public var port: UInt16
    /// The TXT entries in the order they are written; HAP's are listed in hap-protocol.md §8.
    public var txt: [(key: String, value: String)]
    /// The IPv4 addresses the host name resolves to.
    public var addresses: [IPv4Address]

    /// Makes an instance; `type` defaults to `_hap._tcp` and `domain` to `local`.
    public init(
        name: String,
        type: String = "_hap._tcp",
        domain: String = "local",
        hostName: String,
        port: UInt16,
        txt: [(key: String, value: String)],
        addresses: [IPv4Address]
    ) {
        self.name = name
        self.type = type
        self.domain = domain
        self.hostName = hostName
        self.port = port
        self.txt = txt
        self.addresses = addresses
    }

    /// Compares every field, TXT entries in order.
    public static func == (lhs: ServiceInstance, rhs: ServiceInstance) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.domain == rhs.domain && lhs.hostName == rhs.hostName
            && lhs.port == rhs.port && lhs.addresses == rhs.addresses
            && lhs.txt.map(\.key) == rhs.txt.map(\.key) && lhs.txt.map(\.value) == rhs.txt.map(\.value)
    }

    /// `_hap._tcp.local`: the name browsers ask for.
    var serviceTypeName: DNSName { DNSName("\(type).\(domain)") }

    /// `Name._hap._tcp.local`: the owner of the SRV and TXT records.
    var instanceName: DNSName { serviceTypeName.prepending(name) }

    /// The host name with the domain added when it has none.
    var hostDNSName: DNSName {
        let host = DNSName(hostName)
        let domainLabels = DNSName(domain).canonicalLabels
        if host.labels.count > domainLabels.count,
            Array(host.canonicalLabels.suffix(domainLabels.count)) == domainLabels
        {
            return host
        }
        return DNSName(labels: host.labels + DNSName(domain).labels)
    }
}

/// TXT character strings to and from key/value pairs (RFC 6763 §6).
enum TXTCoding {
    /// `key=value` strings in order; an empty list becomes one empty string, as RFC 6763 §6.1 asks.
    static func strings(from entries: [(key: String, value: String)]) -> [[UInt8]] {
        let strings = entries.map { Array("\($0.key)=\($0.value)".utf8) }
        return strings.isEmpty ? [[]] : strings
    }

    /// Keys lower-cased; the first of repeated keys wins (RFC 6763 §6.4); a key without `=` has an empty value.
    static func dictionary(from strings: [[UInt8]]) -> [String: String] {
        var result: [String: String] = [:]
        for string in strings where !string.isEmpty {
            let keyBytes: ArraySlice<UInt8>
            let valueBytes: ArraySlice<UInt8>
            if let equals = string.firstIndex(of: UInt8(ascii: "=")) {
                keyBytes = string[..<equals]
                valueBytes = string[(equals + 1)...]
            } else {
                keyBytes = string[...]
                valueBytes = []
            }
            guard !keyBytes.isEmpty else { continue }
            let key = DNSName.lowercasedASCII(String(decoding: keyBytes, as: UTF8.self))
            if result[key] == nil {
                result[key] = String(decoding: valueBytes, as: UTF8.self)
            }
        }
        return result
    }
}
