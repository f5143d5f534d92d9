/// Sentences for people: what was refused and what is allowed, with the characteristic named as people know it.
extension ValueError: CustomStringConvertible {
    /// The sentence with the characteristic named from the catalog where the error carries its type, else
    /// "the value".
    public var description: String { message(naming: nil) }

    /// The sentence, naming the characteristic `subject` ("Brightness"); `nil` names it from the catalog where the
    /// error carries its type, else "the value".
    ///
    /// For example "Brightness must be between 0 and 100 (got 150)" or "On must be true or false (got "yes")".
    public func message(naming subject: String?) -> String {
        let value = subject ?? "the value"
        switch self {
        case .typeMismatch(let format, let got):
            return "\(value) must be \(format.kindOfValue) (got \(Self.shown(got)))"
        case .outOfFormatRange(let format, let got):
            if let range = format.integerRange {
                return
                    "\(value) must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \(Self.shown(got)))"
            }
            return "\(value) must be \(format.kindOfValue) (got \(Self.shown(got)))"
        case .notWhole(_, let got):
            return "\(value) must be a whole number (got \(Self.number(got)))"
        case .notFinite(let got):
            return "\(value) must be a finite number (got \(Self.number(got)))"
        case .invalidBase64:
            return "\(value) must be bytes in base64"
        case .belowMinimum(let got, let minimum, let maximum):
            return "\(value) must be \(Self.range(minimum, maximum)) (got \(Self.number(got)))"
        case .aboveMaximum(let got, let minimum, let maximum):
            return "\(value) must be \(Self.range(minimum, maximum)) (got \(Self.number(got)))"
        case .offStep(let got, let base, let step):
            let grid =
                base == 0
                ? "a multiple of \(Self.number(step))" : "\(Self.number(base)) plus a multiple of \(Self.number(step))"
            return "\(value) must be \(grid) (got \(Self.number(got)))"
        case .stringTooLong(let length, let maximum):
            return "\(value) must be at most \(maximum) bytes of text (got \(length))"
        case .dataTooLong(let length, let maximum):
            return "\(value) must be at most \(maximum) bytes (got \(length))"
        case .notAValidValue(let got, let validValues):
            let list = validValues.map(String.init).joined(separator: ", ")
            return "\(value) must be one of \(list) (got \(Self.shown(got)))"
        case .outsideValidRange(let got, let range):
            return "\(value) must be between \(range.lowerBound) and \(range.upperBound) (got \(Self.shown(got)))"
        case .notReadable(let type):
            return "\(Self.name(subject, type)) cannot be read: it is write-only"
        case .notWritable(let type):
            return "\(Self.name(subject, type)) is read-only"
        case .notificationNotSupported(let type):
            return "\(Self.name(subject, type)) does not send notifications"
        case .timedWriteRequired(let type):
            return "\(Self.name(subject, type)) must be written with a timed write"
        case .authorizationDataRequired(let type):
            return "\(Self.name(subject, type)) needs additional authorization data to be written"
        case .hidden(let type):
            return "\(Self.name(subject, type)) is hidden from users"
        }
    }

    /// The catalog's display name of the characteristic type `type` ("Brightness"), if the catalog has it.
    public static func displayName(of type: HAPUUID) -> String? {
        (try? TypeCatalog.shared())?.characteristic(for: type)?.displayName
    }

    private static func name(_ subject: String?, _ type: HAPUUID) -> String {
        subject ?? displayName(of: type) ?? "this characteristic"
    }

    /// "between 0 and 100", "at least 0" or "at most 100".
    private static func range(_ minimum: Double?, _ maximum: Double?) -> String {
        switch (minimum, maximum) {
        case (let minimum?, let maximum?): "between \(number(minimum)) and \(number(maximum))"
        case (let minimum?, nil): "at least \(number(minimum))"
        case (nil, let maximum?): "at most \(number(maximum))"
        case (nil, nil): "a number"
        }
    }

    /// A value as people write it; a long string is cut short, so the message stays one line.
    static func shown(_ value: HAPValue) -> String {
        switch value {
        case .float(let number): return Self.number(number)
        case .string(let text) where text.count > 40: return "\"\(text.prefix(40))…\""
        default: return value.description
        }
    }

    /// A number as people write it: 150 rather than 150.0, "infinity" rather than "inf".
    static func number(_ value: Double) -> String {
        if value.isNaN { return "not a number" }
        if value.isInfinite { return value < 0 ? "minus infinity" : "infinity" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

extension Format {
    /// What a value of this format is, in words: "true or false", "a whole number", "text".
    var kindOfValue: String {
        switch self {
        case .bool: "true or false"
        case .uint8, .uint16, .uint32, .uint64: "a whole number of 0 or more"
        case .int: "a whole number"
        case .float: "a number"
        case .string: "text"
        case .tlv8, .data: "bytes in base64"
        }
    }
}
