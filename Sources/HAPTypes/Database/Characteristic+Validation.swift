/// Value and permission checks; hap-protocol.md §9.1–9.3 and §7.5–7.7.
extension HAPCharacteristic {
    /// The default longest string in UTF-8 bytes when `maxLen` is absent; hap-protocol.md §9.1.
    public static let defaultMaxLength = 64
    /// The longest string any characteristic may hold, whatever `maxLen` says; hap-protocol.md §12.3, §14 item 14.
    public static let absoluteMaxLength = 256
    /// The default longest `data` value when `maxDataLen` is absent (NODE); hap-protocol.md §9.1, §14 item 14.
    public static let defaultMaxDataLength = 2_097_152
    /// How far off the `minStep` grid a float may be, as a fraction of the step.
    ///
    /// Generous because ADK stores 32-bit floats: 22.3 comes back as 22.2999992…, 8e-6 of a step of 0.1 away.
    public static let stepTolerance = 0.001

    /// The longest string this characteristic accepts, in UTF-8 bytes.
    public var effectiveMaxLength: Int { min(maxLength ?? Self.defaultMaxLength, Self.absoluteMaxLength) }

    /// Checks a value already in this format's representation against the format and all metadata.
    ///
    /// Use `normalized(_:)` for values read from a peer, which may come in another representation (1 for true).
    public func validate(_ value: HAPValue) throws(ValueError) {
        let converted: HAPValue
        do {
            converted = try value.converted(to: format)
        } catch {
            throw limitError(for: value, else: error)
        }
        guard converted == value else {
            throw .typeMismatch(format: format, value: value)
        }
        try checkMetadata(value)
    }

    /// The value in this format's representation once it passes every check (a JSON 1 becomes `true` for a bool).
    public func normalized(_ value: HAPValue) throws(ValueError) -> HAPValue {
        let converted: HAPValue
        do {
            converted = try value.converted(to: format)
        } catch {
            throw limitError(for: value, else: error)
        }
        try checkMetadata(converted)
        return converted
    }

    /// For a number beyond the format's own range (1e308 for an int), the error of the characteristic's narrower
    /// limits it breaks too ("0 to 100", not the format's 32 bits); else `error`.
    private func limitError(for value: HAPValue, else error: ValueError) -> ValueError {
        guard case .outOfFormatRange = error, let number = value.numericValue, number.isFinite else { return error }
        if let minValue, number < minValue { return .belowMinimum(value: number, minimum: minValue, maximum: maxValue) }
        if let maxValue, number > maxValue { return .aboveMaximum(value: number, minimum: minValue, maximum: maxValue) }
        return error
    }

    /// The value a read returns, or why it may not be read (`pr` needed).
    ///
    /// hap-protocol.md §7.5: ProgrammableSwitchEvent always reads as `null` over IP.
    public func readValue() throws(ValueError) -> HAPValue? {
        guard has(.read) else { throw .notReadable(type) }
        if type == Self.programmableSwitchEventType { return nil }
        return value
    }

    /// Checks that a controller may write: `pw`, a valid timed write for `tw`, and `authData` for `aa`.
    public func checkWritable(isTimedWrite: Bool = false, hasAuthorizationData: Bool = false) throws(ValueError) {
        guard has(.write) else { throw .notWritable(type) }
        if has(.timedWrite), !isTimedWrite { throw .timedWriteRequired(type) }
        if has(.additionalAuthorization), !hasAuthorizationData { throw .authorizationDataRequired(type) }
    }

    /// Checks that a controller may subscribe to events (`ev`).
    public func checkNotifiable() throws(ValueError) {
        guard has(.notify) else { throw .notificationNotSupported(type) }
    }

    /// Checks that the characteristic may be shown to or used by people, not only by the system (`hd`).
    public func checkVisibleToUsers() throws(ValueError) {
        if has(.hidden) { throw .hidden(type) }
    }

    /// ProgrammableSwitchEvent (0x73), the one characteristic that reads as `null`.
    static let programmableSwitchEventType = HAPUUID(apple: 0x73)

    private func checkMetadata(_ value: HAPValue) throws(ValueError) {
        switch value {
        case .string(let text):
            let length = text.utf8.count
            if length > effectiveMaxLength { throw .stringTooLong(length: length, maximum: effectiveMaxLength) }
        case .data(let bytes):
            let limit = maxDataLength ?? (format == .data ? Self.defaultMaxDataLength : nil)
            if let limit, bytes.count > limit { throw .dataTooLong(length: bytes.count, maximum: limit) }
        case .int, .uint, .float:
            try checkNumber(value)
        case .bool:
            break
        }
    }

    private func checkNumber(_ value: HAPValue) throws(ValueError) {
        guard let number = value.numericValue else { return }
        guard number.isFinite else { throw .notFinite(number) }
        if let minValue, number < minValue {
            throw .belowMinimum(value: number, minimum: minValue, maximum: maxValue)
        }
        if let maxValue, number > maxValue {
            throw .aboveMaximum(value: number, minimum: minValue, maximum: maxValue)
        }
        if let minStep, minStep > 0 {
            let base = minValue ?? 0
            let steps = (number - base) / minStep
            if abs(steps - steps.rounded()) > Self.stepTolerance {
                throw .offStep(value: number, base: base, step: minStep)
            }
        }
        if let validValues {
            guard let integer = Self.exactInteger(number), validValues.contains(integer) else {
                throw .notAValidValue(value: value, validValues: validValues)
            }
        }
        if let validValuesRange {
            guard let integer = Self.exactInteger(number), validValuesRange.contains(integer) else {
                throw .outsideValidRange(value: value, range: validValuesRange)
            }
        }
    }

    private static func exactInteger(_ number: Double) -> Int? {
        guard number.rounded() == number else { return nil }
        return Int(exactly: number)
    }
}
