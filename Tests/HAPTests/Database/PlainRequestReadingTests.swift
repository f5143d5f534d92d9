import Foundation
import TestSupport
import Testing

@testable import HAP
@testable import HAPTypes

/// The hand-read write bodies and read queries must give exactly what the general readers give: the same value,
/// or a refusal.
@Suite struct PlainRequestReadingTests {
    static let writeSeeds: [String] = [
        #"{"characteristics":[{"aid":2,"iid":10,"value":true}]}"#,
        #"{"characteristics":[{"aid":1,"iid":10,"value":75},{"aid":1,"iid":11,"ev":true}],"pid":11122333}"#,
        #" { "pid" : 7 , "characteristics" : [ { "iid" : 3 , "aid" : 9 , "value" : -12 , "r" : false } ] } "#,
        #"{"characteristics":[{"aid":1,"iid":12,"value":1,"r":true,"remote":true,"ev":false}]}"#,
        #"{"characteristics":[{"aid":1,"iid":12,"value":18446744073709551615},{"aid":1,"iid":2,"value":0}]}"#,
        #"{"characteristics":[{"aid":1,"iid":12,"value":-9223372036854775808}]}"#,
        #"{"characteristics":[{"aid":1,"iid":12,"value":9223372036854775808}]}"#,
        #"{"characteristics":[{"aid":1,"iid":12,"value":1.5},{"aid":1,"iid":13,"value":"on"}]}"#,
        #"{"characteristics":[{"aid":1,"iid":12,"value":null,"authData":"AQI="}]}"#,
        #"{"characteristics":[]}"#,
    ]

    /// What JSONDecoder makes of a body, or nil when it refuses it.
    static func reference(_ bytes: [UInt8]) -> CharacteristicWriteRequest? {
        try? HAPJSON.decode(CharacteristicWriteRequest.self, from: Data(bytes))
    }

    @Test func readsTheUsualWriteBodiesByHand() throws {
        for seed in Self.writeSeeds {
            let bytes = Array(seed.utf8)
            let plain = bytes.withUnsafeBufferPointer { buffer in
                var reader = PlainWriteRequestReader(bytes: buffer)
                return reader.read()
            }
            if !seed.contains("1.5"), !seed.contains("null") {
                #expect(plain != nil, "\(seed)")
            }
            #expect(try HAPJSON.decodeWriteRequest(bytes) == Self.reference(bytes).unwrap(), "\(seed)")
        }
    }

    @Test("50,000 mutated write bodies: decodeWriteRequest agrees with JSONDecoder")
    func agreesWithJSONDecoderOnMutatedBodies() {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        var accepted = 0
        for round in 0..<50_000 {
            let base = Array(Self.writeSeeds[Int.random(in: 0..<Self.writeSeeds.count, using: &random)].utf8)
            let input = round.isMultiple(of: 10) ? base : mutate(base, using: &random)
            let got = try? HAPJSON.decodeWriteRequest(input)
            let want = Self.reference(input)
            #expect(got == want, "seed \(seed), body \(String(decoding: input, as: UTF8.self))")
            if got != nil { accepted += 1 }
        }
        #expect(accepted > 5_000)
    }

    static let querySeeds: [String] = [
        "id=1.10", "id=1.10,1.11&meta=1&perms=1&type=1&ev=1", "id=2.9%2C2.10%2c3.4&ev=0", "id=&meta=1",
        "&&id=1.2&&", "ev=1&id=01.002", "id=1.2&foo=bar", "id=1.2&id=1.3", "meta=2&id=1.1", "id=1.2,",
        "id=1.x", "meta", "id=18446744073709551615.1", "id=18446744073709551616.1", "perms=1", "id=1.2&type=",
    ]

    @Test("50,000 mutated queries: the byte reader agrees with the general parser")
    func queriesAgreeWithTheGeneralParser() {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        for round in 0..<50_000 {
            let base = Array(Self.querySeeds[Int.random(in: 0..<Self.querySeeds.count, using: &random)].utf8)
            let input = String(decoding: round.isMultiple(of: 10) ? base : mutate(base, using: &random), as: UTF8.self)
            let got = Result { () throws(CharacteristicQueryError) in try CharacteristicReadQuery(query: input) }
            let want = Result { () throws(CharacteristicQueryError) in try CharacteristicReadQuery.parseGeneral(input) }
            #expect(got == want, "seed \(seed), query \(input)")
        }
    }
}

extension Optional {
    /// The value, or a test failure.
    fileprivate func unwrap() throws -> Wrapped {
        guard let value = self else { throw CancellationError() }
        return value
    }
}
