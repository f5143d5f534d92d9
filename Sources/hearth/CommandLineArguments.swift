import Foundation
import HAP
import HAPController
import HAPTypes

/// Why a command-line argument naming an accessory, a characteristic or a value could not be read.
public enum CommandLineArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a device ID (`XX:XX:XX:XX:XX:XX`) and not an IPv4 `ADDRESS:PORT`.
    case invalidAccessory(String)
    /// Not `aid.iid` with two whole numbers.
    case invalidCharacteristicID(String)
    /// Not `aid.iid=value`.
    case invalidAssignment(String)
    /// The text is not a value of the characteristic's format; `reason` says what was expected.
    case invalidValue(text: String, format: Format, reason: String)

    /// One sentence for people: what is wrong and what to write instead.
    public var description: String {
        switch self {
        case .invalidAccessory(let text):
            "\"\(text)\" is not an accessory. Give a device ID such as AA:BB:CC:00:11:22 or ADDRESS:PORT"
        case .invalidCharacteristicID(let text):
            "\"\(text)\" is not a characteristic. Give it as aid.iid, for example 1.10"
        case .invalidAssignment(let text):
            "\"\(text)\" is not an assignment. Write aid.iid=value, for example 1.10=true"
        case .invalidValue(let text, let format, let reason):
            "\"\(text)\" is not a \(format.rawValue) value. Give \(reason)"
        }
    }
}

/// How a command names an accessory: by device ID (found over mDNS or in the store) or by address and port.
public enum AccessoryTarget: Sendable, Equatable, CustomStringConvertible {
    /// A device ID, upper case, `XX:XX:XX:XX:XX:XX`.
    case deviceID(String)
    /// An IPv4 address and TCP port; no mDNS needed.
    case address(host: String, port: Int)

    /// Reads a device ID or `ADDRESS:PORT`.
    public init(_ text: String) throws(CommandLineArgumentError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) {
            self = .deviceID(text.uppercased())
            return
        }
        guard parts.count == 2, let port = Int(parts[1]), (1...65535).contains(port),
            Self.isIPv4Address(String(parts[0]))
        else {
            throw .invalidAccessory(text)
        }
        self = .address(host: String(parts[0]), port: port)
    }

    /// The form it was given in.
    public var description: String {
        switch self {
        case .deviceID(let id): id
        case .address(let host, let port): "\(host):\(port)"
        }
    }

    /// Whether this names the stored accessory: same device ID, or same port at its host or a known address.
    public func matches(_ record: PairedAccessoryRecord) -> Bool {
        switch self {
        case .deviceID(let id):
            record.deviceID.uppercased() == id
        case .address(let host, let port):
            record.port == port && (record.host == host || record.addresses.contains(host))
        }
    }

    private static func isIPv4Address(_ text: String) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { octet in
                !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCII) && (UInt8(octet) != nil)
            }
    }
}

extension CharacteristicID {
    /// Reads `aid.iid`, as `hearth hap get` takes it.
    public init(argument text: String) throws(CommandLineArgumentError) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let accessoryID = UInt64(parts[0]), let instanceID = UInt64(parts[1]) else {
            throw .invalidCharacteristicID(text)
        }
        self.init(accessoryID: accessoryID, instanceID: instanceID)
    }

    /// Splits `aid.iid=value` into the id and the value's text, which is typed later by the format.
    public static func assignment(_ text: String) throws(CommandLineArgumentError) -> (CharacteristicID, String) {
        guard let equals = text.firstIndex(of: "=") else { throw .invalidAssignment(text) }
        let id = try CharacteristicID(argument: String(text[..<equals]))
        return (id, String(text[text.index(after: equals)...]))
    }
}

extension HAPValue {
    /// Reads a value typed on a command line as `format` asks: `true`/`false`/`1`/`0`, numbers, text, base64.
    ///
    /// The result is checked against the format's own range (uint8 0–255 and so on), not the metadata's limits;
    /// the accessory checks those and answers with a status.
    public init(argument text: String, format: Format) throws(CommandLineArgumentError) {
        let raw: HAPValue
        switch format {
        case .bool:
            switch text.lowercased() {
            case "true", "1", "on", "yes": raw = .bool(true)
            case "false", "0", "off", "no": raw = .bool(false)
            default: throw .invalidValue(text: text, format: format, reason: "true, false, 1 or 0")
            }
        case .uint8, .uint16, .uint32, .uint64:
            guard let number = UInt64(text) else {
                throw .invalidValue(text: text, format: format, reason: "a whole number of at least 0")
            }
            raw = .uint(number)
        case .int:
            guard let number = Int64(text) else {
                throw .invalidValue(text: text, format: format, reason: "a whole number")
            }
            raw = .int(number)
        case .float:
            guard let number = Double(text), number.isFinite else {
                throw .invalidValue(text: text, format: format, reason: "a number such as 21.5")
            }
            raw = .float(number)
        case .string:
            raw = .string(text)
        case .tlv8, .data:
            guard let bytes = Data(base64Encoded: text) else {
                throw .invalidValue(text: text, format: format, reason: "base64 bytes")
            }
            raw = .data([UInt8](bytes))
        }
        do {
            self = try raw.converted(to: format)
        } catch {
            throw .invalidValue(text: text, format: format, reason: "a value in the range of \(format.rawValue)")
        }
    }
}
