import HAP
import HAPTypes
import Testing

@testable import HAPAccessoryServer

@Suite struct EventCoalescerTests {
    static let on = CharacteristicID(accessoryID: 1, instanceID: 9)
    static let brightness = CharacteristicID(accessoryID: 1, instanceID: 10)

    @Test func sendsTheFirstChangeAtOnceAndMergesTheRestUntilTheWindowEnds() {
        var coalescer = EventCoalescer(window: .milliseconds(250))
        let start = Duration.seconds(10)
        #expect(coalescer.add([.init(id: Self.on, value: .bool(true))], immediately: false, now: start) == .sendNow)
        #expect(coalescer.take(now: start).count == 1)
        let later = start + .milliseconds(100)
        #expect(
            coalescer.add([.init(id: Self.brightness, value: .int(1))], immediately: false, now: later)
                == .sendAfter(.milliseconds(150))
        )
        #expect(coalescer.add([.init(id: Self.on, value: .bool(false))], immediately: false, now: later) == .wait)
        #expect(coalescer.add([.init(id: Self.brightness, value: .int(2))], immediately: false, now: later) == .wait)
        let merged = coalescer.take(now: start + .milliseconds(250))
        #expect(merged == [.init(id: Self.brightness, value: .int(2)), .init(id: Self.on, value: .bool(false))])
        #expect(!coalescer.hasPending)
        let quiet = start + .seconds(1)
        #expect(coalescer.add([.init(id: Self.on, value: .bool(true))], immediately: false, now: quiet) == .sendNow)
    }

    @Test func sendsEverythingAtOnceWhenTheWindowIsZeroOrTheChangeIsUrgent() {
        var off = EventCoalescer(window: .zero)
        #expect(off.add([.init(id: Self.on, value: nil)], immediately: false, now: .zero) == .sendNow)
        #expect(off.take(now: .zero).count == 1)
        #expect(off.add([.init(id: Self.on, value: nil)], immediately: false, now: .zero) == .sendNow)
        var window = EventCoalescer(window: .seconds(1))
        _ = window.add([.init(id: Self.on, value: nil)], immediately: false, now: .zero)
        _ = window.take(now: .zero)
        #expect(window.add([.init(id: Self.on, value: nil)], immediately: true, now: .zero) == .sendNow)
    }
}
