import Foundation
import HAPTypes
import HearthAPI
import HomeGraph

/// The answer to `GET /v1/homes/{id}`, with its bulk (the accessories, their services and characteristics) written
/// directly rather than by Foundation's encoder, which spent some 20 ms on a home of 150 accessories.
///
/// The output is byte for byte what `JSONEncoder.api` writes (sorted keys, slashes unescaped, the same string escapes
/// and numbers); the rest of the home still goes through the encoder, and the accessories are put in its place.
extension JSONBody {
    /// The answer's JSON, or `nil` when the encoder's output does not start as expected (the caller then encodes).
    static func directJSON(of response: HomeResponse) -> Data? {
        var shell = response
        shell.home.accessories = []
        guard let rest = try? JSONEncoder.api.encode(shell) else { return nil }
        let prefix = #"{"home":{"accessories":[]"#.utf8
        guard rest.starts(with: prefix) else { return nil }
        var writer = JSONTextWriter(capacity: rest.count + response.home.accessories.count * 2048)
        writer.raw(#"{"home":{"accessories":["#)
        for (index, accessory) in response.home.accessories.enumerated() {
            if index > 0 { writer.raw(",") }
            guard writer.accessory(accessory) else { return nil }
        }
        writer.raw("]")
        writer.bytes.append(contentsOf: rest.dropFirst(prefix.count))
        return Data(writer.bytes)
    }
}

/// Writes JSON text the way `JSONEncoder.api` does, member by member; the caller lists members in sorted key order.
struct JSONTextWriter {
    /// The text so far, UTF-8.
    var bytes: [UInt8] = []

    /// Starts empty with room for `capacity` bytes.
    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends `text` as it is.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `"key":`, with a comma before it unless `first`.
    mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends `text` as a JSON string: `"` and `\` escaped, control characters as `\b \f \n \r \t` or `\u00XX`,
    /// everything else (slashes and non-ASCII included) as it is.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var mark = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: utf8[mark..<index])
                mark = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22: bytes.append(0x22)
                case 0x5C: bytes.append(0x5C)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    bytes.append(Self.hexDigit(byte >> 4))
                    bytes.append(Self.hexDigit(byte & 0x0F))
                }
            }
            bytes.append(contentsOf: utf8[mark...])
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a UUID as the encoder does: its upper-case string form, quoted.
    mutating func uuid(_ id: UUID) {
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 36))
        bytes.withUnsafeMutableBufferPointer { buffer in
            UUID.writeCanonical(id.uuid, into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a whole number.
    mutating func number(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Appends a finite number as the encoder writes it (`description` without a trailing `.0`); `false` for NaN
    /// or an infinity, which the encoder refuses.
    mutating func number(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
        return true
    }

    /// Appends `true` or `false`.
    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}

extension JSONTextWriter {
    /// Appends an accessory with its services; `false` when a value cannot be written (the caller then encodes).
    mutating func accessory(_ accessory: Accessory) -> Bool {
        raw("{")
        key("accessoryInstanceID", first: true)
        number(accessory.accessoryInstanceID)
        if let bridgeID = accessory.bridgeID {
            key("bridgeID")
            uuid(bridgeID)
        }
        key("category")
        number(accessory.category.rawValue)
        if let deviceID = accessory.deviceID {
            key("deviceID")
            string(deviceID.description)
        }
        key("firmwareRevision")
        string(accessory.firmwareRevision)
        key("id")
        uuid(accessory.id)
        key("isReachable")
        bool(accessory.isReachable)
        key("manufacturer")
        string(accessory.manufacturer)
        key("model")
        string(accessory.model)
        key("name")
        string(accessory.name)
        key("roomID")
        uuid(accessory.roomID)
        key("serialNumber")
        string(accessory.serialNumber)
        key("services")
        raw("[")
        for (index, service) in accessory.services.enumerated() {
            if index > 0 { raw(",") }
            guard self.service(service) else { return false }
        }
        raw("]}")
        return true
    }

    /// Appends a service with its characteristics.
    mutating func service(_ service: Service) -> Bool {
        raw("{")
        key("characteristics", first: true)
        raw("[")
        for (index, characteristic) in service.characteristics.enumerated() {
            if index > 0 { raw(",") }
            guard self.characteristic(characteristic) else { return false }
        }
        raw("]")
        key("id")
        uuid(service.id)
        key("instanceID")
        number(service.instanceID)
        if service.isHidden {
            key("isHidden")
            bool(true)
        }
        key("isPrimary")
        bool(service.isPrimary)
        key("name")
        string(service.name)
        key("type")
        string(service.type.description)
        raw("}")
        return true
    }

    /// Appends a characteristic with its metadata and value.
    mutating func characteristic(_ characteristic: Characteristic) -> Bool {
        raw("{")
        key("format", first: true)
        string(characteristic.format.rawValue)
        key("id")
        uuid(characteristic.id)
        key("instanceID")
        number(characteristic.instanceID)
        key("isNotificationEnabled")
        bool(characteristic.isNotificationEnabled)
        key("metadata")
        guard metadata(characteristic.metadata) else { return false }
        key("permissions")
        raw("[")
        for (index, permission) in characteristic.permissions.enumerated() {
            if index > 0 { raw(",") }
            string(permission.rawValue)
        }
        raw("]")
        key("type")
        string(characteristic.type.description)
        if let value = characteristic.value {
            key("value")
            guard self.value(value) else { return false }
        }
        raw("}")
        return true
    }

    /// Appends metadata: only the limits it has.
    mutating func metadata(_ metadata: CharacteristicMetadata) -> Bool {
        raw("{")
        var first = true
        func member(_ name: StaticString) {
            key(name, first: first)
            first = false
        }
        if let description = metadata.description {
            member("description")
            string(description)
        }
        if let maxDataLength = metadata.maxDataLength {
            member("maxDataLength")
            number(maxDataLength)
        }
        if let maxLength = metadata.maxLength {
            member("maxLength")
            number(maxLength)
        }
        func limit(_ name: StaticString, _ value: Double?) -> Bool {
            guard let value else { return true }
            member(name)
            return number(value)
        }
        guard limit("maxValue", metadata.maxValue), limit("minStep", metadata.minStep),
            limit("minValue", metadata.minValue)
        else { return false }
        if let unit = metadata.unit {
            member("unit")
            string(unit.rawValue)
        }
        if let validValues = metadata.validValues {
            member("validValues")
            raw("[")
            for (index, valid) in validValues.enumerated() {
                if index > 0 { raw(",") }
                number(valid)
            }
            raw("]")
        }
        if let range = metadata.validValuesRange {
            member("validValuesRange")
            raw("[")
            number(range.lowerBound)
            raw(",")
            number(range.upperBound)
            raw("]")
        }
        raw("}")
        return true
    }

    /// Appends a value as `HAPValue` encodes itself: bytes as base64, everything else as itself.
    mutating func value(_ value: HAPValue) -> Bool {
        switch value {
        case .bool(let flag): bool(flag)
        case .int(let number): self.number(number)
        case .uint(let number): self.number(number)
        case .float(let number): return self.number(number)
        case .string(let text): string(text)
        case .data(let data): string(Data(data).base64EncodedString())
        }
        return true
    }
}
