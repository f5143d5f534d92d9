/// The body of a `GET /characteristics` answer, a 207 write answer, or an `EVENT`; hap-protocol.md §7.5–7.8.
public struct CharacteristicReadResponse: Sendable, Equatable, Codable {
    /// One characteristic's result: a value, a status, and the metadata the query asked for.
    public struct Item: Sendable, Equatable, Codable {
        /// The accessory id (`aid`).
        public var accessoryID: UInt64
        /// The characteristic's instance id (`iid`).
        public var instanceID: UInt64
        /// The value read, or written back for `r:true` (`value`).
        public var value: HAPValue?
        /// Whether to send `"value":null` when `value` is nil (ProgrammableSwitchEvent reads, §7.5).
        public var includesNullValue: Bool
        /// The item's status; present on every item of a 207 answer, absent on a 200 (`status`).
        public var status: HAPStatus?
        /// Whether this connection is subscribed, for `ev=1` (`ev`).
        public var isNotifying: Bool?
        /// The type, for `type=1` (`type`).
        public var type: HAPUUID?
        /// The permissions, for `perms=1` (`perms`).
        public var permissions: [Permission]?
        /// The format, for `meta=1` (`format`).
        public var format: Format?
        /// The unit, for `meta=1` (`unit`).
        public var unit: Unit?
        /// The smallest value, for `meta=1` (`minValue`).
        public var minValue: Double?
        /// The largest value, for `meta=1` (`maxValue`).
        public var maxValue: Double?
        /// The step, for `meta=1` (`minStep`).
        public var minStep: Double?
        /// The longest string, for `meta=1` (`maxLen`).
        public var maxLength: Int?
        /// The longest data value, for `meta=1` (`maxDataLen`).
        public var maxDataLength: Int?
        /// The only values allowed, for `meta=1` (`valid-values`).
        public var validValues: [Int]?
        /// The range values must lie in, for `meta=1` (`valid-values-range`).
        public var validValuesRange: ClosedRange<Int>?
        /// A description for people, for `meta=1` (`description`).
        public var description: String?

        /// Makes an item with a value or a status; metadata can be set afterwards.
        public init(
            accessoryID: UInt64,
            instanceID: UInt64,
            value: HAPValue? = nil,
            includesNullValue: Bool = false,
            status: HAPStatus? = nil
        ) {
            self.accessoryID = accessoryID
            self.instanceID = instanceID
            self.value = value
            self.includesNullValue = includesNullValue
            self.status = status
        }

        /// Copies what `query` asks for from `characteristic`: metadata, permissions, type and subscription state.
        ///
        /// The value and status are left alone: reading them is the caller's job (see `HAPCharacteristic.readValue()`).
        public mutating func addDetails(of characteristic: HAPCharacteristic, askedFor query: CharacteristicReadQuery) {
            if query.includesMetadata {
                format = characteristic.format
                unit = characteristic.unit
                minValue = characteristic.minValue
                maxValue = characteristic.maxValue
                minStep = characteristic.minStep
                maxLength = characteristic.maxLength
                maxDataLength = characteristic.maxDataLength
                validValues = characteristic.validValues
                validValuesRange = characteristic.validValuesRange
                description = characteristic.description
            }
            if query.includesPermissions { permissions = characteristic.permissions }
            if query.includesType { type = characteristic.type }
            if query.includesEventState { isNotifying = characteristic.isNotifying ?? false }
        }

        /// The characteristic this item is about.
        public var id: CharacteristicID { CharacteristicID(accessoryID: accessoryID, instanceID: instanceID) }

        private enum CodingKeys: String, CodingKey {
            case accessoryID = "aid"
            case instanceID = "iid"
            case value
            case status
            case isNotifying = "ev"
            case type
            case permissions = "perms"
            case format
            case unit
            case minValue
            case maxValue
            case minStep
            case maxLength = "maxLen"
            case maxDataLength = "maxDataLen"
            case validValues = "valid-values"
            case validValuesRange = "valid-values-range"
            case description
        }

        /// Reads an item; the value is decoded against `format` when the item carries one.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            accessoryID = try container.decode(UInt64.self, forKey: .accessoryID)
            instanceID = try container.decode(UInt64.self, forKey: .instanceID)
            format = try container.decodeIfPresent(Format.self, forKey: .format)
            if container.contains(.value), try !container.decodeNil(forKey: .value) {
                let valueDecoder = try container.superDecoder(forKey: .value)
                value = try format.map { try HAPValue(from: valueDecoder, format: $0) } ?? HAPValue(from: valueDecoder)
                includesNullValue = false
            } else {
                value = nil
                includesNullValue = container.contains(.value)
            }
            if let code = try container.decodeIfPresent(Int.self, forKey: .status) {
                guard let status = HAPStatus(code: code) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .status,
                        in: container,
                        debugDescription: "Unknown HAP status \(code)"
                    )
                }
                self.status = status
            }
            isNotifying = try container.decodeIfPresent(Bool.self, forKey: .isNotifying)
            type = try container.decodeIfPresent(HAPUUID.self, forKey: .type)
            permissions = try container.decodeIfPresent([Permission].self, forKey: .permissions)
            unit = try HAPCharacteristic.decodeUnit(container, forKey: .unit)
            minValue = try container.decodeIfPresent(Double.self, forKey: .minValue)
            maxValue = try container.decodeIfPresent(Double.self, forKey: .maxValue)
            minStep = try container.decodeIfPresent(Double.self, forKey: .minStep)
            maxLength = try container.decodeIfPresent(Int.self, forKey: .maxLength)
            maxDataLength = try container.decodeIfPresent(Int.self, forKey: .maxDataLength)
            validValues = try container.decodeIfPresent([Int].self, forKey: .validValues)
            validValuesRange = try HAPCharacteristic.decodeRange(container, forKey: .validValuesRange)
            description = try container.decodeIfPresent(String.self, forKey: .description)
        }

        /// Writes an item, leaving out every field that is `nil` (except a `null` value when asked for).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(accessoryID, forKey: .accessoryID)
            try container.encode(instanceID, forKey: .instanceID)
            if let value {
                try container.encode(value, forKey: .value)
            } else if includesNullValue {
                try container.encodeNil(forKey: .value)
            }
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(isNotifying, forKey: .isNotifying)
            try container.encodeIfPresent(type, forKey: .type)
            try container.encodeIfPresent(permissions, forKey: .permissions)
            try container.encodeIfPresent(format, forKey: .format)
            try container.encodeIfPresent(unit, forKey: .unit)
            try container.encodeIfPresent(minValue, forKey: .minValue)
            try container.encodeIfPresent(maxValue, forKey: .maxValue)
            try container.encodeIfPresent(minStep, forKey: .minStep)
            try container.encodeIfPresent(maxLength, forKey: .maxLength)
            try container.encodeIfPresent(maxDataLength, forKey: .maxDataLength)
            try container.encodeIfPresent(validValues, forKey: .validValues)
            if let range = validValuesRange {
                try container.encode([range.lowerBound, range.upperBound], forKey: .validValuesRange)
            }
            try container.encodeIfPresent(description, forKey: .description)
        }
    }

    /// The results, one per characteristic asked about.
    public var characteristics: [Item]

    /// Makes a body of `characteristics`.
    public init(characteristics: [Item]) {
        self.characteristics = characteristics
    }
}

extension CharacteristicReadResponse {
    /// The body as JSON bytes, the same bytes as `HAPJSON.encode(self)`; plain items are written without an encoder.
    public func encodedJSON() throws -> [UInt8] {
        if let bytes = plainJSON() { return bytes }
        return Array(try HAPJSON.encode(self))
    }

    /// The JSON `HAPJSON.encode` writes, made without `JSONEncoder` when every item holds only `aid`, `iid`, a
    /// `status` and a boolean or whole-number value (or none); `nil` otherwise.
    func plainJSON() -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(32 + characteristics.count * 40)
        out.append(contentsOf: #"{"characteristics":["#.utf8)
        for (index, item) in characteristics.enumerated() {
            guard item.isPlain else { return nil }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"aid":"#.utf8)
            out.append(contentsOf: String(item.accessoryID).utf8)
            out.append(contentsOf: #","iid":"#.utf8)
            out.append(contentsOf: String(item.instanceID).utf8)
            if let status = item.status {
                out.append(contentsOf: #","status":"#.utf8)
                out.append(contentsOf: String(status.rawValue).utf8)
            }
            if let value = item.value {
                guard value.appendPlainJSONField(to: &out) else { return nil }
            } else if item.includesNullValue {
                out.append(contentsOf: #","value":null"#.utf8)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}

extension HAPValue {
    /// Appends `,"value":` and this value as `JSONEncoder` writes it, for booleans and whole numbers (the hand-written
    /// bodies of reads, events and writes); returns false and appends nothing for any other value.
    func appendPlainJSONField(to out: inout [UInt8]) -> Bool {
        switch self {
        case .bool(let flag): out.append(contentsOf: (flag ? #","value":true"# : #","value":false"#).utf8)
        case .int(let number):
            out.append(contentsOf: #","value":"#.utf8)
            out.append(contentsOf: String(number).utf8)
        case .uint(let number):
            out.append(contentsOf: #","value":"#.utf8)
            out.append(contentsOf: String(number).utf8)
        case .float, .string, .data: return false
        }
        return true
    }
}

extension CharacteristicReadResponse.Item {
    /// Whether the item holds nothing but ids, a status and a value (no metadata, permissions, type or `ev`).
    var isPlain: Bool {
        isNotifying == nil && type == nil && permissions == nil && format == nil && unit == nil && minValue == nil
            && maxValue == nil && minStep == nil && maxLength == nil && maxDataLength == nil && validValues == nil
            && validValuesRange == nil && description == nil
    }
}

extension CharacteristicReadResponse {
    /// Reads a plain body without `JSONDecoder`: `{"characteristics":[…]}` whose items hold only `aid`, `iid`, a
    /// known `status` and a `value` that is `true`, `false`, `null` or a whole number; `nil` for anything else
    /// (strings, fractions, metadata, unknown keys, bad JSON), which the caller then gives to `JSONDecoder`.
    ///
    /// Reads and events are on every request's path of a controller; the result equals what `JSONDecoder` makes.
    public init?(plainJSON bytes: [UInt8]) {
        let items = bytes.withUnsafeBufferPointer { buffer in
            var reader = PlainReadResponseReader(scanner: PlainJSONScanner(bytes: buffer))
            return reader.read()
        }
        guard let items else { return nil }
        characteristics = items
    }
}

/// Reads the plain shape of a read answer or an event; `nil` for anything outside it.
private struct PlainReadResponseReader {
    var scanner: PlainJSONScanner

    mutating func read() -> [CharacteristicReadResponse.Item]? {
        guard scanner.take(UInt8(ascii: "{")), let key = scanner.readKey(), key.equals("characteristics"),
            scanner.take(UInt8(ascii: "["))
        else { return nil }
        var items: [CharacteristicReadResponse.Item] = []
        if !scanner.take(UInt8(ascii: "]")) {
            repeat {
                guard let item = readItem() else { return nil }
                items.append(item)
            } while scanner.take(UInt8(ascii: ","))
            guard scanner.take(UInt8(ascii: "]")) else { return nil }
        }
        guard scanner.take(UInt8(ascii: "}")), scanner.isAtEnd() else { return nil }
        return items
    }

    private mutating func readItem() -> CharacteristicReadResponse.Item? {
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
        var accessoryID: UInt64?
        var instanceID: UInt64?
        var status: HAPStatus?
        var value: HAPValue?
        var hasValue = false
        var hasStatus = false
        repeat {
            guard let key = scanner.readKey() else { return nil }
            if key.equals("aid") {
                guard accessoryID == nil, let number = scanner.readUnsigned() else { return nil }
                accessoryID = number
            } else if key.equals("iid") {
                guard instanceID == nil, let number = scanner.readUnsigned() else { return nil }
                instanceID = number
            } else if key.equals("status") {
                guard !hasStatus, case .int(let code)? = scanner.readValue(), let known = HAPStatus(code: Int(code))
                else { return nil }
                hasStatus = true
                status = known
            } else if key.equals("value") {
                guard !hasValue else { return nil }
                hasValue = true
                if !scanner.takeWord("null") {
                    guard let read = scanner.readValue() else { return nil }
                    value = read
                }
            } else {
                return nil
            }
        } while scanner.take(UInt8(ascii: ","))
        guard scanner.take(UInt8(ascii: "}")), let accessoryID, let instanceID else { return nil }
        return CharacteristicReadResponse.Item(
            accessoryID: accessoryID,
            instanceID: instanceID,
            value: value,
            includesNullValue: hasValue && value == nil,
            status: status
        )
    }
}
