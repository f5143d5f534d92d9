import Foundation
import HAP
import HAPTypes
import Testing

@testable import hearth

/// The verdicts of `hearth hap test` that no well-behaved simulator can provoke, on crafted databases and numbers.
@Suite struct HAPTestVerdictTests {
    /// A tester that only records; it never connects.
    static func tester() throws -> HAPTester {
        HAPTester(
            target: HAPTester.Target(host: "127.0.0.1", port: 1, setupCode: try SetupCode("031-45-154")),
            txt: nil,
            report: { _ in }
        )
    }

    /// A database of one accessory with these services, from HAP's JSON.
    static func database(_ services: String) throws -> AccessoryDatabase {
        let json = "{\"accessories\": [{\"aid\": 1, \"services\": [" + services + "]}]}"
        return try HAPJSON.decode(AccessoryDatabase.self, from: Data(json.utf8))
    }

    static let information =
        #"{"type": "3E", "iid": 1, "characteristics": [{"type": "14", "iid": 2, "perms": ["pw"], "format": "bool"}]}"#

    @Test func twoAccessoryInformationServicesFail() throws {
        let tester = try Self.tester()
        tester.checkDuplicateServices(try Self.database(Self.information))
        #expect(tester.results.last?.result == .pass)
        let twice =
            Self.information + ","
            + Self.information.replacingOccurrences(of: "\"iid\": 1,", with: "\"iid\": 9,")
            .replacingOccurrences(of: "\"iid\": 2,", with: "\"iid\": 10,")
        tester.checkDuplicateServices(try Self.database(twice))
        let result = try #require(tester.results.last)
        #expect(result.id == "db.no-duplicate-services" && result.result == .fail, "\(result)")
        #expect(result.details.first?.contains("2 Accessory Information services (3E), iids 1, 9") == true, "\(result)")
    }

    @Test func aCharacteristicTypeTwiceInOneServiceFails() throws {
        let tester = try Self.tester()
        let doubled =
            #"{"type": "3E", "iid": 1, "characteristics": [{"type": "14", "iid": 2, "perms": ["pw"], "format": "bool"}, {"type": "14", "iid": 3, "perms": ["pw"], "format": "bool"}]}"#
        tester.checkNoDuplicateTypes(try Self.database(doubled))
        let result = try #require(tester.results.last)
        #expect(result.result == .fail, "\(result)")
        tester.checkNoDuplicateTypes(try Self.database(Self.information))
        #expect(tester.results.last?.result == .pass)
    }

    @Test func configurationNumberVerdicts() {
        #expect(HAPTester.judgeConfigurationNumber(before: 3, after: 4, changed: nil).0 == .pass)
        #expect(HAPTester.judgeConfigurationNumber(before: 65535, after: 1, changed: "x").0 == .pass)
        let down = HAPTester.judgeConfigurationNumber(before: 5, after: 4, changed: nil)
        #expect(down.0 == .fail && down.1.first?.contains("went down from 5 to 4") == true)
        let stale = HAPTester.judgeConfigurationNumber(before: 7, after: 7, changed: "1.12 came or went")
        #expect(stale.0 == .fail && stale.1.first?.contains("(1.12 came or went), but c# stayed 7") == true, "\(stale)")
        #expect(HAPTester.judgeConfigurationNumber(before: 7, after: 7, changed: nil).0 == .skipped)
    }
}
