import TestSupport
import Testing

@testable import HAP

/// hap-protocol.md §12.1.
struct SetupCodeTests {
    private static let forbidden: [String] =
        (0...9).map { digit in String(repeating: String(digit), count: 8) } + ["12345678", "87654321"]

    private static func dashed(_ digits: String) -> String {
        let characters = Array(digits)
        return String(characters[0..<3]) + "-" + String(characters[3..<5]) + "-" + String(characters[5..<8])
    }

    @Test func parsesTheDashedFormAndEightDigits() throws {
        let dashed = try SetupCode("518-08-582")
        let plain = try SetupCode("51808582")
        #expect(dashed == plain)
        #expect(dashed.number == 51_808_582)
        #expect(dashed.formatted == "518-08-582")
        #expect(plain.description == "518-08-582")
    }

    @Test func keepsLeadingZeros() throws {
        let code = try SetupCode("001-02-003")
        #expect(code.number == 102_003)
        #expect(code.formatted == "001-02-003")
        #expect(try SetupCode(number: 5).formatted == "000-00-005")
    }

    @Test func rejectsEveryForbiddenCodeWithAndWithoutDashes() {
        #expect(Self.forbidden.count == 12)
        for digits in Self.forbidden {
            #expect(throws: SetupCodeError.trivial, "\(digits)") { try SetupCode(digits) }
            #expect(throws: SetupCodeError.trivial, "\(digits)") { try SetupCode(Self.dashed(digits)) }
            let number = UInt32(digits) ?? 1
            #expect(throws: SetupCodeError.trivial) { try SetupCode(number: number) }
        }
    }

    @Test func rejectsMalformedText() {
        let malformed = [
            "", "1234567", "123456789", "518-08-58", "518-08-5822", "518 08 582", "51808 582", "518-08582",
            "51808-582", "518--08582", "5180-8-582", "51a-08-582", "abcdefgh", "518_08_582", " 51808582",
            "51808582 ", "518-08-582\n", "５１８０８５８２", "518-08-５82", "+1808582", "-1808582", "518:08:582",
        ]
        for text in malformed {
            #expect(throws: SetupCodeError.invalidFormat, "\(text)") { try SetupCode(text) }
        }
    }

    @Test func rejectsNumbersOfMoreThanEightDigits() {
        #expect(throws: SetupCodeError.outOfRange) { try SetupCode(number: 100_000_000) }
        #expect(throws: SetupCodeError.outOfRange) { try SetupCode(number: .max) }
        #expect(throws: Never.self) { try SetupCode(number: 99_999_998) }
    }

    @Test("Never draws a forbidden code in 10,000 seeded draws")
    func neverDrawsAForbiddenCode() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        var seen = Set<UInt32>()
        for _ in 0..<10_000 {
            let code = SetupCode.random(using: &generator)
            #expect(!SetupCode.isTrivial(code.number), "seed \(seed)")
            #expect(try SetupCode(code.formatted) == code, "seed \(seed)")
            seen.insert(code.number)
        }
        #expect(seen.count > 9_900, "seed \(seed)")
    }

    @Test func drawsFromTheSystemGenerator() {
        let code = SetupCode.random()
        #expect(!SetupCode.isTrivial(code.number))
        #expect(code.number < 100_000_000)
    }
}
