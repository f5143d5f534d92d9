import Commands
import Foundation
import HAPTypes
import HomeGraph
import Testing

/// A second language is data: a lexicon whose words are German reads German sentences with the same engine, and a
/// lexicon with a meaning the engine does not know is refused with a sentence.
@Suite struct SecondLanguageTests {
    /// The English lexicon's JSON with `change` applied.
    static func lexicon(_ change: (inout [String: Any]) -> Void) throws -> Data {
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(Lexicon.englishJSON.utf8)) as? [String: Any]
        )
        change(&object)
        return try JSONSerialization.data(withJSONObject: object)
    }

    @Test func germanWordsAreData() throws {
        let data = try Self.lexicon { object in
            object["language"] = "de"
            object["articles"] = ["der", "die", "das", "den", "dem"]
            object["fillers"] = ["bitte"]
            object["contractions"] = [String: String]()
            object["words"] = [
                "schalte": "verb turn", "ein": "particle on", "an": "particle on", "aus": "particle off",
                "im": "prep in", "in": "prep in", "auf": "prep to", "prozent": "unit percent", "dimme": "verb dim",
                "ist": "question is", "verriegelt": "state locked", "schließe ab": "verb lock",
                "schliesse ab": "verb lock",
            ]
            object["typeWords"] = ["licht": "lightbulb", "lichter": "lightbulb", "lampe": "lightbulb"]
            object["irregularPlurals"] = ["licht": "lichter", "lampe": "lampen"]
            object["numbers"] = ["eins": 1, "zwei": 2, "drei": 3]
            object["tens"] = ["zwanzig": 20, "dreißig": 30, "dreissig": 30]
            object["hundreds"] = ["hundert"]
            object["numberJoiners"] = ["und"]
            object["decimalPoints"] = ["komma"]
        }
        let german = try Lexicon(json: data)
        #expect(german.language == "de")
        let home = try CorpusHomes.flat()
        let engine = CommandEngine(home: home, catalog: try TypeCatalog.shared(), lexicon: german)

        let on = engine.interpret("Schalte bitte das Kitchen Light ein")
        #expect(on.outcome == .control, "\(on.message)")
        #expect(on.actions?.map(\.serviceName) == ["Kitchen Light"] && on.actions?.first?.value == .bool(true))

        let dim = engine.interpret("dimme die Lichter im Bedroom auf dreißig Prozent")
        #expect(dim.outcome == .control, "\(dim.message)")
        #expect(Set(dim.actions?.map(\.serviceName) ?? []) == ["Bedside Lamp", "Bedroom Light"])
        #expect(dim.actions?.allSatisfy { $0.characteristic == "brightness" && $0.value.numericValue == 30 } == true)

        let question = engine.interpret("Ist die Front Door verriegelt?")
        #expect(question.outcome == .query && question.query?.characteristic == "lockCurrentState", "\(question)")

        // English is not understood by the German lexicon: its words are data, not code.
        #expect(engine.interpret("turn on the kitchen light").outcome == .notUnderstood)
        let english = CommandEngine(home: home, catalog: try TypeCatalog.shared())
        #expect(english.interpret("schalte das Kitchen Light ein").outcome == .notUnderstood)
    }

    @Test func aLexiconWithAnUnknownMeaningIsRefusedWithASentence() throws {
        let data = try Self.lexicon { object in object["words"] = ["zap": "verb explode"] }
        #expect(throws: LexiconError.self) { try Lexicon(json: data) }
        do {
            _ = try Lexicon(json: data)
        } catch {
            #expect(error.sentence.contains("'verb explode' of 'zap'"), "\(error.sentence)")
        }
        #expect(throws: LexiconError.self) { try Lexicon(json: Data("not json".utf8)) }
    }
}
