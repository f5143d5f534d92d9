import Commands
import Foundation
import HAPTypes
import HomeGraph
import Testing

/// Sentences a hostile probe tried: a rename with no new name, numbers too large to mean anything.
@Suite struct HostileSentenceTests {
    static func engine() throws -> CommandEngine {
        CommandEngine(home: try CorpusHomes.house(), catalog: try TypeCatalog.shared())
    }

    @Test(arguments: [
        "rename the garage to", "rename garage to the", "rename the garage to the", "rename garage to please",
        "rename the garage to .", "call the garage the",
    ])
    func aRenameWithoutANewNameRenamesNothing(text: String) throws {
        let result = try Self.engine().interpret(text)
        #expect(result.outcome == .notUnderstood, "\(text): \(result.message)")
        #expect(result.configuration == nil)
    }

    @Test func aRenameWithoutANewNameAsksForIt() throws {
        let result = try Self.engine().interpret("rename the garage to")
        #expect(result.message == "What should Garage be called? Say the new name after 'to'.")
        // A real new name still renames.
        let renamed = try Self.engine().interpret("rename the garage to workshop")
        #expect(renamed.outcome == .configure && renamed.configuration?.newName == "workshop")
        let called = try Self.engine().interpret("call the garage workshop")
        #expect(called.outcome == .configure && called.configuration?.newName == "workshop")
    }

    @Test(arguments: [
        "dim the bedroom lamp by 1e309 percent", "dim the bedroom lamp by 1e308 percent",
        "set the bedroom lamp to 1e309 percent", "brighten the bedroom lamp by 99999999 percent",
        "is the bedroom lamp brighter than 1e400",
    ])
    func anAbsurdNumberIsAnInvalidValueAndWritesNothing(text: String) throws {
        let result = try Self.engine().interpret(text)
        #expect(result.outcome == .invalidValue, "\(text): \(result.message)")
        #expect(result.actions == nil)
        #expect(result.message.contains("too large") && !result.message.contains("inf"), "\(result.message)")
        // The answer encodes whole (a non-finite number would not).
        let json = try JSONEncoder().encode(result)
        #expect(String(decoding: json, as: UTF8.self).contains("invalidValue"))
    }

    @Test func anOrdinaryNumberStillWorks() throws {
        let result = try Self.engine().interpret("dim the bedroom lamp by 10 percent")
        #expect(result.outcome == .control, "\(result.message)")
    }
}
