/// One DNS message as mDNS uses it: a header and four sections (RFC 1035 §4.1, RFC 6762 §18).
public struct DNSMessage: Sendable, Equatable {
    /// The query ID; mDNS uses 0 except in answers to legacy unicast queries (RFC 6762 §18.1).
    public var id: UInt16
    /// The header flags word: QR, opcode, AA, TC, RD, RA, Z, AD, CD and RCODE.
    public var flags: UInt16
    /// The question section.
    public var questions: [DNSQuestion]
    /// The answer section.
    public var answers: [DNSResourceRecord]
    /// The authority section; probes carry their proposed records here (RFC 6762 §8.2).
    public var authorities: [DNSResourceRecord]
    /// The additional section.
    public var additionals: [DNSResourceRecord]

    /// The QR bit: set in responses.
    public static let responseFlag: UInt16 = 0x8000
    /// The AA bit: mDNS responses always set it (RFC 6762 §18.4).
    public static let authoritativeFlag: UInt16 = 0x0400
    /// The TC bit: more known answers follow in another packet (RFC 6762 §7.2).
    public static let truncatedFlag: UInt16 = 0x0200

    /// Makes a message; every section defaults to empty.
    public init(
        id: UInt16 = 0,
        flags: UInt16 = 0,
        questions: [DNSQuestion] = [],
        answers: [DNSResourceRecord] = [],
        authorities: [DNSResourceRecord] = [],
        additionals: [DNSResourceRecord] = []
    ) {
        self.id = id
        self.flags = flags
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// Whether this is a response (QR set) rather than a query.
    public var isResponse: Bool { flags & Self.responseFlag != 0 }

    /// The four-bit opcode; mDNS accepts only 0 (RFC 6762 §18.3).
    public var opcode: UInt8 { UInt8((flags >> 11) & 0x0F) }

    /// The four-bit response code; mDNS accepts only 0 (RFC 6762 §18.11).
    public var responseCode: UInt8 { UInt8(flags & 0x0F) }

    /// Every record in the answer, authority and additional sections, in that order.
    public var allRecords: [DNSResourceRecord] { answers + authorities + additionals }
}

/// The type of a record or of a question; unknown values are kept as they are.
public struct DNSRecordType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit type code.
    public var rawValue: UInt16

    /// Makes a type from its code.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// An IPv4 address.
    public static let a = DNSRecordType(rawValue: 1)
    /// A pointer: service type to instance in DNS-SD.
    public static let ptr = DNSRecordType(rawValue: 12)
    /// Text strings: DNS-SD's key=value pairs.
    public static let txt = DNSRecordType(rawValue: 16)
    /// An IPv6 address.
    public static let aaaa = DNSRecordType(rawValue: 28)
    /// A service location: host and port.
    public static let srv = DNSRecordType(rawValue: 33)
    /// Which types exist for a name (RFC 6762 §6.1 negative answers).
    public static let nsec = DNSRecordType(rawValue: 47)
    /// Any type; only in questions, and in every probe (RFC 6762 §8.1).
    public static let any = DNSRecordType(rawValue: 255)

    /// The mnemonic (`PTR`) or `TYPE<n>`.
    public var description: String {
        switch self {
        case .a: "A"
        case .ptr: "PTR"
        case .txt: "TXT"
        case .aaaa: "AAAA"
        case .srv: "SRV"
        case .nsec: "NSEC"
        case .any: "ANY"
        default: "TYPE\(rawValue)"
        }
    }
}

/// One question: a name and a type, with mDNS's unicast-response bit (RFC 6762 §5.4).
public struct DNSQuestion: Sendable, Equatable {
    /// The name asked about.
    public var name: DNSName
    /// The type asked for.
    public var type: DNSRecordType
    /// The class without the top bit; 1 (IN) in mDNS.
    public var recordClass: UInt16
    /// The QU bit: the asker would like a unicast answer.
    public var isUnicastResponseWanted: Bool

    /// Makes a question of class IN unless told otherwise.
    public init(name: DNSName, type: DNSRecordType, recordClass: UInt16 = 1, isUnicastResponseWanted: Bool = false) {
        self.name = name
        self.type = type
        self.recordClass = recordClass & 0x7FFF
        self.isUnicastResponseWanted = isUnicastResponseWanted
    }
}

/// One resource record, with mDNS's cache-flush bit (RFC 6762 §10.2).
public struct DNSResourceRecord: Sendable, Equatable {
    /// The owner name.
    public var name: DNSName
    /// Time to live in seconds; 0 in a goodbye (RFC 6762 §10.1).
    public var ttl: UInt32
    /// The class without the top bit; 1 (IN) in mDNS.
    public var recordClass: UInt16
    /// The cache-flush bit: this record replaces what caches hold for its name and type.
    public var isCacheFlush: Bool
    /// The typed record data.
    public var data: DNSRecordData

    /// Makes a record of class IN unless told otherwise.
    public init(name: DNSName, ttl: UInt32, recordClass: UInt16 = 1, isCacheFlush: Bool = false, data: DNSRecordData) {
        self.name = name
        self.ttl = ttl
        self.recordClass = recordClass & 0x7FFF
        self.isCacheFlush = isCacheFlush
        self.data = data
    }

    /// The record's type, taken from its data.
    public var type: DNSRecordType { data.type }
}

/// The data of a record, by type; types this module does not parse are kept as bytes.
public enum DNSRecordData: Sendable, Equatable {
    /// An IPv4 address.
    case a(IPv4Address)
    /// An IPv6 address, 16 bytes.
    case aaaa([UInt8])
    /// A pointer to another name.
    case ptr(DNSName)
    /// A service's host and port.
    case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    /// The character strings of a TXT record, each at most 255 bytes.
    case txt([[UInt8]])
    /// The next name and the types that exist for the owner name.
    case nsec(next: DNSName, types: [DNSRecordType])
    /// Data of a type not parsed here.
    case other(type: DNSRecordType, bytes: [UInt8])

    /// The record type this data belongs to.
    public var type: DNSRecordType {
        switch self {
        case .a: .a
        case .aaaa: .aaaa
        case .ptr: .ptr
        case .srv: .srv
        case .txt: .txt
        case .nsec: .nsec
        case .other(let type, _): type
        }
    }
}

/// Why a DNS message could not be read or written; the decoder never traps on bytes from a peer.
public enum DNSMessageError: Error, Equatable, Sendable {
    /// The message ended at `offset` while `needed` more bytes were expected.
    case truncated(offset: Int, needed: Int)
    /// A label longer than 63 bytes, or a length byte with the reserved top bits 01 or 10.
    case invalidLabel(offset: Int)
    /// A name longer than 255 bytes.
    case nameTooLong(offset: Int)
    /// A compression pointer that does not point backwards, or too many pointers in one name.
    case invalidPointer(offset: Int)
    /// A record whose data does not match its type (a 5-byte A record, an overrunning SRV).
    case invalidRecordData(type: DNSRecordType, offset: Int)
    /// A TXT character string longer than 255 bytes, when writing.
    case stringTooLong(length: Int)
    /// The message would be longer than 65,535 bytes, or its data longer than a 16-bit length allows.
    case messageTooLong
}

extension DNSMessageError: CustomStringConvertible {
    /// A sentence for people.
    public var description: String {
        switch self {
        case .truncated(let offset, let needed): "the DNS message ends at byte \(offset), \(needed) bytes short"
        case .invalidLabel(let offset): "the DNS name at byte \(offset) has a label that is too long or malformed"
        case .nameTooLong(let offset): "the DNS name at byte \(offset) is longer than 255 bytes"
        case .invalidPointer(let offset): "the DNS name at byte \(offset) has a bad compression pointer"
        case .invalidRecordData(let type, let offset): "the \(type) record at byte \(offset) has malformed data"
        case .stringTooLong(let length): "a TXT string of \(length) bytes is longer than 255 bytes"
        case .messageTooLong: "the DNS message would be longer than 65,535 bytes"
        }
    }
}
