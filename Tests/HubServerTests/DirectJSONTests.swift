import Foundation
import HAPTypes
import HearthAPI
import HomeGraph
import Testing

@testable import HubServer

/// The JSON the hub writes directly on the write path is what Foundation's encoder writes, and the strict body
/// check still refuses what it refused.
@Suite struct DirectJSONTests {
    static let values: [HAPValue] = [
        .bool(true), .bool(false), .int(0), .int(-40), .int(.min), .uint(100), .uint(.max),
    ]
    static let authors: [ChangeAuthor?] = [nil, .person(UUID()), .automation, .accessory, .hub]
    static let times: [Date?] = [
        nil, Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_000_000),
        Date(timeIntervalSince1970: 253_402_300_799),
    ]

    @Test func anAnswerJSONCannotHoldIsAFailureNotAnEmptyOK() throws {
        struct Answer: Encodable { var value: Double }
        let failed = JSONBody.response(Answer(value: .infinity))
        #expect(failed.status == .internalServerError)
        let written = JSONBody.response(Answer(value: 1))
        #expect(written.status == .ok)
    }

    @Test func valueChangeFramesAreTheEncodersBytes() throws {
        var checked = 0
        for value in Self.values {
            for by in Self.authors {
                for at in Self.times {
                    let event = HomeEvent(
                        homeID: UUID(),
                        sequence: UInt64.random(in: 1...UInt64.max),
                        change: .characteristicValueChanged(characteristic: UUID(), accessory: UUID(), value: value),
                        by: by,
                        at: at
                    )
                    let direct = try #require(EventFrames.directText(of: event))
                    let encoded = try JSONEncoder.api.encode(ServerMessage.event(event))
                    #expect(String(buffer: direct) == String(decoding: encoded, as: UTF8.self))
                    checked += 1
                }
            }
        }
        #expect(checked == Self.values.count * Self.authors.count * Self.times.count)
    }

    @Test func otherEventsGoThroughTheEncoder() throws {
        let id = UUID()
        let change = HomeChange.characteristicValueChanged(characteristic: id, accessory: id, value: .bool(true))
        let others: [HomeEvent] = [
            HomeEvent(homeID: id, sequence: 1, change: .roomRemoved(room: id)),
            HomeEvent(
                homeID: id,
                sequence: 1,
                change: .characteristicValueChanged(characteristic: id, accessory: id, value: .float(21.5))
            ),
            HomeEvent(
                homeID: id,
                sequence: 1,
                change: .characteristicValueChanged(characteristic: id, accessory: id, value: .string("a/b"))
            ),
            HomeEvent(homeID: id, sequence: 1, change: change, at: Date(timeIntervalSince1970: 1.5)),
            HomeEvent(homeID: id, sequence: 1, change: change, at: Date(timeIntervalSince1970: -1)),
        ]
        let frames = EventFrames()
        for (index, original) in others.enumerated() {
            var event = original
            event.sequence = UInt64(index + 1)
            #expect(EventFrames.directText(of: event) == nil)
            let text = try #require(frames.text(of: event))
            #expect(
                String(buffer: text)
                    == String(decoding: try JSONEncoder.api.encode(ServerMessage.event(event)), as: UTF8.self)
            )
        }
    }

    @Test func writeBodiesAreCheckedAsStrictlyAsBefore() throws {
        #expect(
            try JSONBody.decode(WriteValueBody.self, from: Data(#"{"value": true}"#.utf8))
                == WriteValueBody(value: .bool(true))
        )
        #expect(
            try JSONBody.decode(WriteValueBody.self, from: Data(#"{"value": 50}"#.utf8))
                == WriteValueBody(value: .int(50))
        )
        let refused: [(String, String)] = [
            (#"{"value": 50, "unit": "%"}"#, "field 'unit' is not known here"),
            (#"{"value": 50, "extra": {"a": 1}}"#, "field 'extra' is not known here"),
            (#"{"value": 50, "extra": null}"#, ""),
            (#"{}"#, "field 'value' is required"),
        ]
        for (body, message) in refused {
            do {
                _ = try JSONBody.decode(WriteValueBody.self, from: Data(body.utf8))
                #expect(message.isEmpty, "\(body) was accepted")
            } catch {
                #expect(error.message == message, "\(body)")
            }
        }
    }

    @Test func writeBodiesReadDirectlyAreWhatTheDecoderReads() throws {
        let direct = [
            #"{"value": true}"#, #"{"value":false}"#, " {\n\t\"value\" : 0 }\r\n", #"{"value": -40}"#,
            #"{"value": 100}"#, #"{"value": 999999999999999999}"#, #"{"value": -999999999999999999}"#,
        ]
        for body in direct {
            let read = try #require(JSONBody.directWriteValue(in: Data(body.utf8)), "\(body)")
            #expect(read == (try JSONDecoder.api.decode(WriteValueBody.self, from: Data(body.utf8))), "\(body)")
            #expect(try JSONBody.decode(WriteValueBody.self, from: Data(body.utf8)) == read)
        }
        let others = [
            #"{"value": 1.0}"#, #"{"value": 1e2}"#, #"{"value": 01}"#, #"{"value": -0}"#, #"{"value": "on"}"#,
            #"{"value": 1234567890123456789}"#, #"{"value": true, "x": 1}"#, #"{"value": true} x"#,
            #"{"valu\u0065": true}"#, #"{"value": tru}"#, #"{"value": -}"#, #"{"value": true"#, "",
        ]
        for body in others { #expect(JSONBody.directWriteValue(in: Data(body.utf8)) == nil, "\(body)") }
        #expect(
            try JSONBody.decode(WriteValueBody.self, from: Data(#"{"value": 1234567890123456789}"#.utf8)).value
                == .int(1_234_567_890_123_456_789)
        )
    }

    @Test func writeAnswersWrittenDirectlyAreTheEncodersBytes() throws {
        let id = UUID()
        let answers: [WriteResults] = [
            WriteResults(results: []),
            WriteResults(results: [CharacteristicWriteResult(characteristicID: id, value: .bool(true), error: nil)]),
            WriteResults(results: [
                CharacteristicWriteResult(characteristicID: id, value: .int(-3), error: nil),
                CharacteristicWriteResult(characteristicID: UUID(), value: .uint(.max), error: nil),
            ]),
        ]
        for answer in answers {
            let direct = try #require(JSONBody.directJSON(of: answer))
            #expect(
                String(decoding: direct, as: UTF8.self)
                    == String(decoding: try JSONEncoder.api.encode(answer), as: UTF8.self)
            )
        }
        let failed = ErrorBody.Detail(code: "accessoryUnreachable", message: "The accessory cannot be reached.")
        for answer in [
            WriteResults(results: [CharacteristicWriteResult(characteristicID: id, value: nil, error: failed)]),
            WriteResults(results: [CharacteristicWriteResult(characteristicID: id, value: .float(2.5), error: nil)]),
        ] {
            #expect(JSONBody.directJSON(of: answer) == nil)
        }
    }
}
