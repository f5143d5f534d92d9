/// Why a value or an access to a characteristic was refused; each case maps to the HAP status a controller sees.
public enum ValueError: Error, Equatable, Sendable {
    /// The JSON type does not fit the format (a string for a bool, a number for a string).
    case typeMismatch(format: Format, value: HAPValue)
    /// A number outside the format's own range (uint8 256, int beyond 32 bits, bool 2).
    case outOfFormatRange(format: Format, value: HAPValue)
    /// A fractional number for an integer format.
    case notWhole(format: Format, value: Double)
    /// NaN or an infinity.
    case notFinite(Double)
    /// A `data` or `tlv8` string that is not base64.
    case invalidBase64(format: Format)
    /// Below `minValue`; `maximum` is `maxValue`, if any, so the message can give the whole range.
    case belowMinimum(value: Double, minimum: Double, maximum: Double?)
    /// Above `maxValue`; `minimum` is `minValue`, if any, so the message can give the whole range.
    case aboveMaximum(value: Double, minimum: Double?, maximum: Double)
    /// Not on the `minStep` grid that starts at `minValue` (or 0).
    case offStep(value: Double, base: Double, step: Double)
    /// A string longer than allowed, both in UTF-8 bytes.
    case stringTooLong(length: Int, maximum: Int)
    /// A `data`/`tlv8` value longer than allowed, in bytes.
    case dataTooLong(length: Int, maximum: Int)
    /// Not one of `valid-values`.
    case notAValidValue(value: HAPValue, validValues: [Int])
    /// Outside `valid-values-range`.
    case outsideValidRange(value: HAPValue, range: ClosedRange<Int>)
    /// A read of a characteristic without `pr`.
    case notReadable(HAPUUID)
    /// A write to a characteristic without `pw`.
    case notWritable(HAPUUID)
    /// A subscription to a characteristic without `ev`.
    case notificationNotSupported(HAPUUID)
    /// A plain write to a characteristic that needs a timed write (`tw`), or a timed write that was not valid.
    case timedWriteRequired(HAPUUID)
    /// A write without `authData` to a characteristic that needs additional authorization (`aa`).
    case authorizationDataRequired(HAPUUID)
    /// A user-facing access to a characteristic hidden from users (`hd`).
    case hidden(HAPUUID)

    /// The status a controller gets for this failure; hap-protocol.md §7.3, §7.6, §7.7.
    public var hapStatus: HAPStatus {
        switch self {
        case .typeMismatch, .outOfFormatRange, .notWhole, .notFinite, .invalidBase64, .belowMinimum, .aboveMaximum,
            .offStep, .stringTooLong, .dataTooLong, .notAValidValue, .outsideValidRange:
            .invalidValueInRequest
        case .notReadable: .writeOnlyCharacteristic
        case .notWritable: .readOnlyCharacteristic
        case .notificationNotSupported: .notificationNotSupported
        // hap-protocol.md §7.7: a write to a `tw` characteristic without a valid prepare → -70410.
        case .timedWriteRequired: .invalidValueInRequest
        case .authorizationDataRequired: .insufficientAuthorization
        case .hidden: .insufficientPrivileges
        }
    }
}
