import Foundation
import HAPTypes
import HomeGraph
import Testing

@testable import HomeStore

/// A value change the store writes directly reads back, with the decoder the store opens with, as the encoder's
/// JSON of it does, with who made it and when; other operations keep going through the encoder.
@Suite struct DirectJSONTests {
    @Test func directValueChangesReadBackAsTheyWere() throws {
        let values: [HAPValue] = [.bool(true), .bool(false), .int(-40), .int(.max), .uint(0), .uint(.max)]
        let authors: [ChangeAuthor?] = [nil, .person(UUID()), .automation, .accessory, .hub]
        let times: [Date?] = [
            nil, Date(timeIntervalSince1970: 1_800_000_000), Date(timeIntervalSinceReferenceDate: -5),
        ]
        var checked = 0
        for value in values {
            for by in authors {
                for at in times {
                    for operation in [
                        HomeOperation.writeCharacteristicValue(home: UUID(), characteristic: UUID(), value: value),
                        .updateCharacteristicValue(home: UUID(), characteristic: UUID(), value: value),
                    ] {
                        let logged = LoggedOperation(operation, by: by, at: at)
                        let direct = try #require(HomeStore.directJSON(of: logged))
                        let read = try JSONDecoder().decode(LoggedOperation.self, from: direct)
                        // What the encoder's JSON reads back as (a uint that fits an int reads back as an int).
                        let encoded = try JSONDecoder().decode(LoggedOperation.self, from: JSONEncoder().encode(logged))
                        #expect(read == encoded)
                        #expect(read.by == by && read.at == at)
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == values.count * authors.count * times.count * 2)
    }

    @Test func otherOperationsAndTimesGoThroughTheEncoder() {
        let id = UUID()
        let others: [LoggedOperation] = [
            LoggedOperation(.addRoom(home: id, id: id, name: "Kitchen"), by: .hub, at: nil),
            LoggedOperation(
                .writeCharacteristicValue(home: id, characteristic: id, value: .float(1)),
                by: nil,
                at: nil
            ),
            LoggedOperation(
                .updateCharacteristicValue(home: id, characteristic: id, value: .string("x")),
                by: nil,
                at: nil
            ),
            LoggedOperation(
                .updateCharacteristicValue(home: id, characteristic: id, value: .bool(true)),
                by: nil,
                at: Date(timeIntervalSince1970: 1_800_000_000.25)
            ),
        ]
        for logged in others { #expect(HomeStore.directJSON(of: logged) == nil) }
    }
}
