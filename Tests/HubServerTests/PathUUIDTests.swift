import Foundation
import TestSupport
import Testing

@testable import HubServer

/// A path's id is read as Foundation reads it when it is one (8-4-4-4-12 hex digits), and anything else is
/// refused, including what Foundation's `sscanf` lets through (a space or a sign in place of a digit).
struct PathUUIDTests {
    /// Whether `text` spells a UUID: 8-4-4-4-12 hex digits.
    static func isSpelling(_ text: String) -> Bool {
        text.wholeMatch(of: /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/) != nil
    }

    @Test func readsWhatFoundationReadsAndRefusesTheRest() {
        var random = SplitMix64(seed: 0x5EED)
        let alphabet = Array("0123456789abcdefABCDEFgG-xé ")
        for round in 0..<5_000 {
            let id = UUID()
            var text = round.isMultiple(of: 2) ? id.uuidString : id.uuidString.lowercased()
            #expect(UUID(pathText: text) == id)
            // One character changed, added or removed: Foundation's answer when the text is still a UUID's spelling,
            // else none.
            var characters = Array(text)
            let at = Int(random.next() % UInt64(characters.count))
            switch random.next() % 3 {
            case 0: characters[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
            case 1: characters.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
            default: characters.remove(at: at)
            }
            text = String(characters)
            let isSpelling = Self.isSpelling(text)
            #expect(UUID(pathText: text) == (isSpelling ? UUID(uuidString: text) : nil), "\(text)")
        }
        for text in [
            "", "-", " 9fac01a-07ad-40b5-9eb5-a4202e9b83fd", "-63DBB9D-F1D5-484C-9CBE-BA6B17D8C7A2",
            String(repeating: "0", count: 36), "00000000-0000-0000-0000-00000000000",
            "00000000-0000-0000-0000-0000000000000", "{00000000-0000-0000-0000-000000000000}",
        ] {
            #expect(UUID(pathText: text) == nil)
        }
    }
}
