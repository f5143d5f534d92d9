/// Why a setup code was refused; the cases never carry the code itself.
public enum SetupCodeError: Error, Equatable, Sendable {
    /// Not `XXX-XX-XXX` or eight ASCII digits.
    case invalidFormat
    /// A code HAP forbids because it is trivial to guess: all digits equal, 123-45-678 or 876-54-321.
    case trivial
    /// A number that is not eight decimal digits (more than 99,999,999).
    case outOfRange
}

/// The eight-digit code a person types to pair an accessory; its dashed form is the SRP password.
///
/// hap-protocol.md §12.1. The code is shown to the user once at start, which is why it prints as text, but it is a
/// secret: never log it or put it in an error message.
public struct SetupCode: Sendable, Hashable {
    /// The digits as one decimal number, 0…99,999,999 (518-08-582 is 51,808,582); used in the setup payload.
    public let number: UInt32

    /// The codes HAP forbids besides those with all digits equal.
    private static let forbiddenSequences: Set<UInt32> = [12_345_678, 87_654_321]
    private static let upperBound: UInt32 = 100_000_000

    /// Parses `XXX-XX-XXX` or eight digits without dashes; spaces and other characters are refused.
    public init(_ text: String) throws(SetupCodeError) {
        let bytes = Array(text.utf8)
        let digits: [UInt8]
        switch bytes.count {
        case 8:
            digits = bytes
        case 10:
            guard bytes[3] == UInt8(ascii: "-"), bytes[6] == UInt8(ascii: "-") else { throw .invalidFormat }
            digits = Array(bytes[0..<3] + bytes[4..<6] + bytes[7..<10])
        default:
            throw .invalidFormat
        }
        var number: UInt32 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw .invalidFormat }
            number = number * 10 + UInt32(byte - UInt8(ascii: "0"))
        }
        try self.init(number: number)
    }

    /// Makes a code from its digits as one number, refusing numbers of more than eight digits and trivial codes.
    public init(number: UInt32) throws(SetupCodeError) {
        guard number < Self.upperBound else { throw .outOfRange }
        guard !Self.isTrivial(number) else { throw .trivial }
        self.number = number
    }

    /// Whether HAP forbids this number as a setup code.
    static func isTrivial(_ number: UInt32) -> Bool {
        // hap-protocol.md §12.1: all eight digits equal is d × 11,111,111.
        number % 11_111_111 == 0 || forbiddenSequences.contains(number)
    }

    /// Draws a code from `generator`, drawing again whenever the code would be trivial.
    public static func random(using generator: inout some RandomNumberGenerator) -> SetupCode {
        while true {
            let number = UInt32.random(in: 0..<upperBound, using: &generator)
            if !isTrivial(number) {
                return SetupCode(uncheckedNumber: number)
            }
        }
    }

    /// Draws a code from the system's cryptographically secure generator.
    public static func random() -> SetupCode {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    private init(uncheckedNumber: UInt32) {
        number = uncheckedNumber
    }

    /// The code as `XXX-XX-XXX`, the exact text fed to SRP as the password.
    public var formatted: String {
        var digits = Array(repeating: UInt8(ascii: "0"), count: 8)
        var rest = number
        for index in digits.indices.reversed() {
            digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        let dashed = digits[0..<3] + [UInt8(ascii: "-")] + digits[3..<5] + [UInt8(ascii: "-")] + digits[5..<8]
        return String(decoding: dashed, as: UTF8.self)
    }
}

extension SetupCode: CustomStringConvertible {
    /// The dashed code, for showing to the user at start; never log it.
    public var description: String { formatted }
}

extension SetupCodeError: CustomStringConvertible {
    /// A sentence for people; it never holds the code.
    public var description: String {
        switch self {
        case .invalidFormat: "a setup code is eight digits, written XXX-XX-XXX"
        case .trivial: "the code is too easy to guess (all digits equal, 123-45-678 or 876-54-321)"
        case .outOfRange: "a setup code has eight digits, no more"
        }
    }
}
