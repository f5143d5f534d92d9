import Foundation
import TestSupport
import Testing

@testable import HAP

/// The hand-written JSON of plain reads and events must be byte for byte what JSONEncoder writes.
@Suite struct ReadResponseJSONTests {
    static func randomItem(_ random: inout SplitMix64) -> CharacteristicReadResponse.Item {
        let values: [HAPValue?] = [
            nil, .bool(random.next() & 1 == 0), .int(Int64(bitPattern: random.next())), .uint(random.next()),
            .float(Double(Int64(bitPattern: random.next() >> 20)) / 8), .string("a\"b\\c\u{1}é"), .data([1, 2, 3]),
        ]
        var item = CharacteristicReadResponse.Item(
            accessoryID: random.next() % 200,
            instanceID: random.next(),
            value: values[Int(random.next() % UInt64(values.count))],
            includesNullValue: random.next() & 1 == 0,
            status: random.next() % 3 == 0
                ? HAPStatus.allCases[Int(random.next() % UInt64(HAPStatus.allCases.count))] : nil
        )
        if random.next() % 5 == 0 { item.isNotifying = true }
        if random.next() % 7 == 0 { item.minValue = 0 }
        return item
    }

    @Test func plainResponsesAreWrittenByHandExactlyAsJSONEncoderWritesThem() throws {
        var random = SplitMix64(seed: 42)
        var handWritten = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for _ in 0..<5_000 {
            let count = Int(random.next() % 4)
            let response = CharacteristicReadResponse(
                characteristics: (0..<count).map { _ in Self.randomItem(&random) }
            )
            let reference = try encoder.encode(response)
            if let plain = response.plainJSON() {
                handWritten += 1
                #expect(Data(plain) == reference, "\(String(decoding: plain, as: UTF8.self))")
            }
            #expect(try HAPJSON.encode(response) == reference)
        }
        #expect(handWritten > 500)
    }
}
