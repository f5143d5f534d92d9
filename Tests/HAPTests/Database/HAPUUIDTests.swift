import Foundation
import TestSupport
import Testing

@testable import HAP
@testable import HAPTypes

@Suite struct HAPUUIDTests {
    @Test func expandsShortFormsWithTheAppleBase() throws {
        #expect(try HAPUUID("43").uuidString == "00000043-0000-1000-8000-0026BB765291")
        #expect(try HAPUUID("3e").uuidString == "0000003E-0000-1000-8000-0026BB765291")
        #expect(try HAPUUID("121").uuidString == "00000121-0000-1000-8000-0026BB765291")
        #expect(try HAPUUID("00000043").uuidString == "00000043-0000-1000-8000-0026BB765291")
    }

    @Test func readsFullFormsInAnyCase() throws {
        let lower = try HAPUUID("0000003e-0000-1000-8000-0026bb765291")
        #expect(lower == HAPUUID(apple: 0x3E))
        #expect(lower.wireForm == "3E")
        #expect(lower.appleShortID == 0x3E)
    }

    @Test func writesAppleTypesShortWithoutLeadingZeros() {
        #expect(HAPUUID(apple: 0x43).wireForm == "43")
        #expect(HAPUUID(apple: 0x8).wireForm == "8")
        #expect(HAPUUID(apple: 0x121).wireForm == "121")
        #expect(HAPUUID(apple: 0x11A).wireForm == "11A")
        #expect(HAPUUID(apple: 0).wireForm == "0")
    }

    @Test func writesCustomTypesInFullUpperCase() throws {
        let custom = try HAPUUID("e863f10d-079e-48ff-8f27-9c2605a29f52")
        #expect(!custom.isAppleDefined)
        #expect(custom.appleShortID == nil)
        #expect(custom.wireForm == "E863F10D-079E-48FF-8F27-9C2605A29F52")
        let data = try HAPJSON.encode([custom])
        #expect(String(decoding: data, as: UTF8.self) == #"["E863F10D-079E-48FF-8F27-9C2605A29F52"]"#)
    }

    @Test func rejectsMalformedText() {
        #expect(throws: HAPUUIDError.empty) { try HAPUUID("") }
        #expect(throws: HAPUUIDError.shortFormTooLong("123456789")) { try HAPUUID("123456789") }
        #expect(throws: HAPUUIDError.invalidCharacter("4G")) { try HAPUUID("4G") }
        #expect(throws: HAPUUIDError.invalidCharacter(" 43")) { try HAPUUID(" 43") }
        #expect(throws: HAPUUIDError.invalidShape("0000-43")) { try HAPUUID("0000-43") }
        #expect(throws: HAPUUIDError.invalidShape("00000043-0000-1000-8000-0026BB76529")) {
            try HAPUUID("00000043-0000-1000-8000-0026BB76529")
        }
        #expect(throws: HAPUUIDError.invalidCharacter("0000004X-0000-1000-8000-0026BB765291")) {
            try HAPUUID("0000004X-0000-1000-8000-0026BB765291")
        }
    }

    @Test func rejectsAMalformedTypeInJSON() {
        #expect(throws: DecodingError.self) { try HAPJSON.decode([HAPUUID].self, from: Data(#"["xyz"]"#.utf8)) }
    }

    @Test func shortAndFullFormsRoundTripForRandomTypes() throws {
        var random = SplitMix64(seed: 0x5EED_0043)
        for _ in 0..<500 {
            let short = UInt32(truncatingIfNeeded: random.next())
            let apple = HAPUUID(apple: short)
            #expect(try HAPUUID(apple.wireForm) == apple, "seed 0x5EED0043, short \(short)")
            #expect(try HAPUUID(apple.wireForm.lowercased()) == apple)
            #expect(try HAPUUID(apple.uuidString.lowercased()) == apple)
            let bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let hex = bytes.map { String(format: "%02x", $0) }.joined()
            let full = [8, 4, 4, 4, 12].reduce(into: (parts: [String](), rest: Substring(hex))) { state, count in
                state.parts.append(String(state.rest.prefix(count)))
                state.rest = state.rest.dropFirst(count)
            }.parts.joined(separator: "-")
            let parsed = try HAPUUID(full)
            #expect(try HAPUUID(parsed.wireForm) == parsed, "seed 0x5EED0043, uuid \(full)")
            #expect(parsed.uuidString == full.uppercased() || parsed.isAppleDefined)
        }
    }
}
