import Foundation
import TestSupport
import Testing

@testable import HAP
@testable import HAPTypes

/// Damaged input must fail with an error, never crash: seeded byte mutations of real bodies and random queries.
@Suite struct DatabaseMutationTests {
    static let seed: UInt64 = 0xF022_0000_0000_0001

    @Test func mutatedAccessoryBodiesDecodeOrThrow() {
        var random = SplitMix64(seed: Self.seed)
        let originals = [DatabaseDecodingTests.specExample, DatabaseDecodingTests.pythonStyle].map { Array($0.utf8) }
        let interesting = Array(#"{}[]",:0-19.eE"\ntfu"#.utf8) + [0, 0xFF, 0xC3]
        var decoded = 0
        for _ in 0..<2000 {
            var bytes = originals[Int(random.next() % 2)]
            for _ in 0...(random.next() % 4) {
                let position = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[position] = interesting[Int(random.next() % UInt64(interesting.count))]
                case 1: bytes.remove(at: position)
                default: bytes.insert(interesting[Int(random.next() % UInt64(interesting.count))], at: position)
                }
            }
            if (try? HAPJSON.decode(AccessoryDatabase.self, from: Data(bytes))) != nil { decoded += 1 }
            _ = try? HAPJSON.decode(CharacteristicReadResponse.self, from: Data(bytes))
            _ = try? HAPJSON.decode(CharacteristicWriteRequest.self, from: Data(bytes))
        }
        // Most mutations break the JSON, some land in strings and still decode: both are fine, crashing is not.
        #expect(decoded < 2000, "seed \(String(Self.seed, radix: 16))")
    }

    @Test func randomQueriesParseOrThrow() throws {
        var random = SplitMix64(seed: Self.seed)
        let pieces = ["id=", "1", ".", ",", "&", "meta=", "ev=", "0", "1", "2", "%2C", "=", "99999999999999999999", ""]
        for _ in 0..<2000 {
            let query = (0..<(random.next() % 8)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            if let parsed = try? CharacteristicReadQuery(query: query) {
                #expect(
                    try CharacteristicReadQuery(query: parsed.queryString) == parsed,
                    "seed \(String(Self.seed, radix: 16)), query \(query)"
                )
            }
        }
    }
}
