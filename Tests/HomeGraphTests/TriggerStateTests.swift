import Foundation
import HomeGraph
import Testing

/// A trigger's stored state: updates replace its fields and add their decisions, the newest kept.
@Suite struct TriggerStateTests {
    static func decision(_ second: Double, _ outcome: TriggerDecision.Outcome = .fired) -> TriggerDecision {
        TriggerDecision(at: Date(timeIntervalSince1970: second), cause: "t\(Int(second))", outcome: outcome)
    }

    @Test func anUpdateReplacesTheFieldsAndAddsItsDecisions() {
        let old = TriggerState(lastFired: Date(timeIntervalSince1970: 1), decisions: [Self.decision(1)])
        let update = TriggerState(
            lastFired: Date(timeIntervalSince1970: 5),
            nextFire: nil,
            decisions: [Self.decision(5)]
        )
        let merged = old.merging(update)
        #expect(merged.lastFired == Date(timeIntervalSince1970: 5))
        #expect(merged.decisions.map(\.cause) == ["t1", "t5"])
        // A decision stored late (a firing's, after its writes) still lands in time order.
        let late = merged.merging(
            TriggerState(lastFired: Date(timeIntervalSince1970: 5), decisions: [Self.decision(3)])
        )
        #expect(late.decisions.map(\.cause) == ["t1", "t3", "t5"])
    }

    @Test func onlyTheNewestDecisionsAreKept() {
        var state = TriggerState()
        for second in 0..<(TriggerState.decisionLimit + 5) {
            state = state.merging(TriggerState(decisions: [Self.decision(Double(second))]))
        }
        #expect(state.decisions.count == TriggerState.decisionLimit)
        #expect(state.decisions.first?.cause == "t5")
        #expect(state.decisions.last?.cause == "t\(TriggerState.decisionLimit + 4)")
    }
}
