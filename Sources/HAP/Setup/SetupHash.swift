import Crypto
import HAPTypes

/// The `sh` TXT value that lets a controller match a scanned setup payload to an advertised accessory.
///
/// hap-protocol.md §8: the first 4 bytes of SHA-512 over the setup ID then the device ID (upper case, with colons),
/// written in base64.
public struct SetupHash: Sendable, Hashable {
    /// The four hash bytes.
    public let bytes: [UInt8]

    /// Computes the hash for an accessory's setup ID and device ID.
    public init(setupID: SetupID, deviceID: DeviceID) {
        let input = Array(setupID.rawValue.utf8) + Array(deviceID.description.utf8)
        bytes = Array(SHA512.hash(data: input).prefix(4))
    }

    /// The hash in base64, the exact `sh` TXT value (8 characters with padding).
    public var base64: String {
        Self.base64Encoded(bytes)
    }
}

extension SetupHash: CustomStringConvertible {
    /// The base64 text, as advertised in mDNS.
    public var description: String { base64 }
}

extension SetupHash {
    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with padding, enough for the setup hash without importing Foundation.
    static func base64Encoded(_ bytes: [UInt8]) -> String {
        var text = [UInt8]()
        text.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let first = UInt32(bytes[index])
            let second = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let third = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = first << 16 | second << 8 | third
            text.append(base64Alphabet[Int(group >> 18 & 0x3F)])
            text.append(base64Alphabet[Int(group >> 12 & 0x3F)])
            text.append(remaining > 1 ? base64Alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            text.append(remaining > 2 ? base64Alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }
}
