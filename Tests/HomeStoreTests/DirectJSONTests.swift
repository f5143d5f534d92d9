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

/// A trigger's state (a firing's bookkeeping and its decisions, the "why did / didn't it fire" record) written
/// directly reads back as the encoder's JSON of it does, field for field; a state it cannot write goes through the
/// encoder.
@Suite struct DirectTriggerStateJSONTests {
    /// Reads `data` back as the store does.
    private func read(_ data: Data) throws -> LoggedOperation {
        try JSONDecoder().decode(LoggedOperation.self, from: data)
    }

    /// States with every field set and unset, text that needs escaping, and times with and without fractions.
    private func states() -> [TriggerState] {
        let a = UUID()
        let b = UUID()
        let texts = [
            "Front Door Lock Current State became 0", "", "quote \" backslash \\ slash / end",
            "lines\nand\ttabs\r, \u{08}\u{0C} controls \u{01}\u{1F}\u{7F}", "Küche 🌅 sunset−30m", "19:42",
        ]
        let times = [
            Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 786_000_000),
            Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_7), Date(timeIntervalSinceReferenceDate: -5.25),
            Date(timeIntervalSinceReferenceDate: 1e-7), Date(timeIntervalSinceReferenceDate: 3e16),
        ]
        var states: [TriggerState] = [TriggerState()]
        for (index, text) in texts.enumerated() {
            let at = times[index % times.count]
            let decision = TriggerDecision(
                at: at,
                cause: text,
                outcome: [.fired, .skipped, .ended][index % 3],
                reason: index % 2 == 0 ? nil : text,
                isCatchUp: index % 2 == 0,
                conditions: [
                    ConditionCheck(condition: text, observed: "false", holds: false),
                    ConditionCheck(condition: "after sunset-30m", observed: text, holds: true),
                ],
                writes: [
                    WriteRecord(characteristicID: a, value: .bool(true)),
                    WriteRecord(characteristicID: b, value: .int(-3), error: text),
                    WriteRecord(characteristicID: b, value: .uint(UInt64.max)),
                ]
            )
            states.append(
                TriggerState(
                    lastFired: at,
                    nextFire: index % 2 == 0 ? nil : times[(index + 1) % times.count],
                    pendingEnd: PendingEnd(
                        firedAt: at,
                        due: index % 2 == 0 ? at.addingTimeInterval(300.5) : nil,
                        restore: [Action(characteristicID: a, targetValue: .bool(false))]
                    ),
                    holdingSince: [0: at, index + 1: times[0], 12: times[2]],
                    firedDurations: Array(0..<index),
                    decisions: Array(repeating: decision, count: index)
                )
            )
        }
        // Random times: every one must read back as the same number.
        for _ in 0..<200 {
            let at = Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...2e9))
            states.append(
                TriggerState(
                    lastFired: at,
                    holdingSince: [1: at],
                    decisions: [TriggerDecision(at: at, cause: "x", outcome: .skipped, reason: "off")]
                )
            )
        }
        return states
    }

    @Test func directTriggerStatesReadBackAsTheEncodersDo() throws {
        var checked = 0
        for state in states() {
            for by: ChangeAuthor? in [nil, .automation] {
                for at: Date? in [nil, Date(timeIntervalSince1970: 1_800_000_000)] {
                    let logged = LoggedOperation(
                        .setTriggerState(home: UUID(), trigger: UUID(), state: state),
                        by: by,
                        at: at
                    )
                    let direct = try #require(HomeStore.directJSON(of: logged))
                    let read = try read(direct)
                    #expect(read == (try self.read(JSONEncoder().encode(logged))))
                    // The values here read back as they were (no uint that fits an int), so all of it is kept.
                    var expected = logged
                    if case .setTriggerState(let h, let t, var s) = logged.operation {
                        s.decisions = s.decisions.map { decision in
                            var decision = decision
                            decision.writes = decision.writes.map {
                                guard case .uint(let n) = $0.value, let int = Int64(exactly: n) else { return $0 }
                                return WriteRecord(
                                    characteristicID: $0.characteristicID,
                                    value: .int(int),
                                    error: $0.error
                                )
                            }
                            return decision
                        }
                        expected.operation = .setTriggerState(home: h, trigger: t, state: s)
                    }
                    #expect(read == expected)
                    checked += 1
                }
            }
        }
        #expect(checked == states().count * 4)
    }

    @Test func statesWithOtherValuesOrTimesGoThroughTheEncoder() {
        let id = UUID()
        let floatWrite = TriggerState(
            decisions: [
                TriggerDecision(
                    at: Date(timeIntervalSinceReferenceDate: 1),
                    cause: "c",
                    outcome: .fired,
                    writes: [WriteRecord(characteristicID: id, value: .float(21.5))]
                )
            ]
        )
        let stringRestore = TriggerState(
            pendingEnd: PendingEnd(
                firedAt: Date(timeIntervalSinceReferenceDate: 1),
                due: nil,
                restore: [Action(characteristicID: id, targetValue: .string("x"))]
            )
        )
        let endless = TriggerState(nextFire: Date(timeIntervalSinceReferenceDate: .infinity))
        for state in [floatWrite, stringRestore, endless] {
            let logged = LoggedOperation(.setTriggerState(home: id, trigger: id, state: state), by: nil, at: nil)
            #expect(HomeStore.directJSON(of: logged) == nil)
        }
        let fraction = LoggedOperation(
            .setTriggerState(home: id, trigger: id, state: TriggerState()),
            by: .automation,
            at: Date(timeIntervalSince1970: 1_800_000_000.25)
        )
        #expect(HomeStore.directJSON(of: fraction) == nil)
    }
}

/// A snapshot whose recent changes are written directly reads back as the encoder's JSON of the same graph does.
@Suite struct DirectSnapshotJSONTests {
    @Test func aDirectSnapshotReadsBackAsTheEncodersDoes() throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        // Two homes with lamps and value changes (whole numbers, and floats that go through the encoder), rooms…
        let (home, operations) = fixture.homeOperations(lamps: 3)
        let (other, more) = fixture.homeOperations(lamps: 1, suffix: " Two")
        var graph = HomeGraph(historyLimit: 50)
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        for operation in operations + more { try graph.apply(operation, by: .hub, at: at) }
        // … a trigger with states (fields, decisions with escapes and fractions of seconds) and boolean writes.
        let lamp = try #require(graph.home(withID: home)?.accessories.first)
        let on = lamp.services[0].characteristics[0].id
        let scene = fixture.ids.makeID()
        try graph.apply(
            .addActionSet(
                home: home,
                id: scene,
                name: "Evening",
                actions: [Action(characteristicID: on, targetValue: .bool(true))]
            ),
            by: nil,
            at: nil
        )
        let trigger = Trigger(
            id: fixture.ids.makeID(),
            name: "Dusk",
            actionSetIDs: [scene],
            definition: TriggerDefinition(events: [.calendar(time: TimeOfDay(hour: 7, minute: 30), weekdays: [])])
        )
        try graph.apply(.addTrigger(home: home, trigger: trigger), by: .person(UUID()), at: at)
        for second in 0..<30 {
            let decided = Date(timeIntervalSinceReferenceDate: 786_000_000 + Double(second) * 1.37)
            let state = TriggerState(
                lastFired: decided,
                nextFire: decided.addingTimeInterval(86_400),
                holdingSince: [0: decided],
                decisions: [
                    TriggerDecision(
                        at: decided,
                        cause: "Lamp \"\(second)\" / became 1\n",
                        outcome: second.isMultiple(of: 2) ? .fired : .skipped,
                        reason: second.isMultiple(of: 2) ? nil : "it is after 18:00",
                        conditions: [ConditionCheck(condition: "before 18:00", observed: "19:42", holds: false)],
                        writes: [WriteRecord(characteristicID: on, value: .bool(true), error: nil)]
                    )
                ]
            )
            try graph.apply(.setTriggerState(home: home, trigger: trigger.id, state: state), by: .automation, at: at)
            try graph.apply(
                .writeCharacteristicValue(home: home, characteristic: on, value: .bool(second.isMultiple(of: 2))),
                by: .automation,
                at: second.isMultiple(of: 3) ? nil : at
            )
        }
        try graph.apply(.renameHome(other, name: "Renamed"), by: nil, at: nil)

        let direct = try JSONDecoder().decode(HomeGraph.self, from: HomeStore.snapshotJSON(of: graph))
        let encoded = try JSONDecoder().decode(HomeGraph.self, from: JSONEncoder().encode(graph))
        #expect(direct == encoded)
        #expect(direct == graph)
        #expect(direct.recentChanges[home]?.count == graph.recentChanges[home]?.count)
        #expect(try direct.changes(after: 0, inHome: other) == graph.changes(after: 0, inHome: other))
        // The direct snapshot writes the graph's fields by name: a field the graph gains must be written too.
        let directKeys = try JSONSerialization.jsonObject(with: HomeStore.snapshotJSON(of: graph)) as? [String: Any]
        let encodedKeys = try JSONSerialization.jsonObject(with: JSONEncoder().encode(graph)) as? [String: Any]
        #expect(directKeys.map { Set($0.keys) } == encodedKeys.map { Set($0.keys) })
    }
}
