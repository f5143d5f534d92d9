import HAP
import HAPTypes
import NIOCore
import Testing

@testable import HAPController

/// The connection's state machine as a value: channels are names, waiters and turns are numbers, time is given.
private typealias Machine = ConnectionStateMachine<String, Int, Int>

/// Each event of ``ConnectionStateMachine`` and what it answers, without sockets.
@Suite struct ConnectionStateMachineTests {
    @Test func aRequestConnectsVerifiesAndOpensTheSession() {
        var machine = Machine()
        #expect(machine.state.name == "idle")
        #expect(machine.takeTurn() == .proceed)
        #expect(machine.establish().name == "connect 1")
        #expect(machine.state.name == "connecting")
        #expect(machine.channelOpened("first", generation: 1).name == "verify")
        #expect(machine.state.name == "verifying first")
        #expect(machine.isCurrent(generation: 1))
        // Pair-verify's exchanges go out on the channel while verifying.
        #expect(machine.writeRequest(1, releasesTurn: false, deadline: at(10)).name == "write first, arm 10")
        #expect(machine.answerReceived()?.name == "answer 1")
        #expect(machine.sessionVerified() == true)
        #expect(machine.state.name == "open first")
        #expect(machine.establish().name == "ready")
        #expect(machine.releaseTurn() == nil)
        #expect(!machine.isTurnTaken)
    }

    @Test func aLoopRequestIsWrittenAtOnceOnlyWithTheSessionOpenAndNobodyWaiting() {
        var machine = Machine()
        // No session: a task takes it, and later requests follow it until it has its place in the queue.
        #expect(machine.requestOnLoop() == .handToTask)
        #expect(machine.requestsHandedToTasks == 1)
        open(&machine, "first")
        #expect(machine.requestOnLoop() == .handToTask)
        machine.requestTaken()
        machine.requestTaken()
        #expect(machine.requestsHandedToTasks == 0)
        #expect(machine.requestOnLoop() == .write)
        #expect(machine.isTurnTaken)
        // The turn is taken now.
        #expect(machine.requestOnLoop() == .handToTask)
    }

    @Test func requestsArrivingWhileConnectingOrVerifyingWaitTheirTurnInOrder() {
        var machine = Machine()
        #expect(machine.takeTurn() == .proceed)
        #expect(machine.establish().name == "connect 1")
        #expect(machine.requestOnLoop() == .handToTask)
        machine.requestTaken()
        #expect(machine.takeTurn() == .wait)
        machine.waitForTurn(7)
        #expect(machine.channelOpened("first", generation: 1).name == "verify")
        #expect(machine.requestOnLoop() == .handToTask)
        machine.requestTaken()
        #expect(machine.takeTurn() == .wait)
        machine.waitForTurn(8)
        #expect(machine.waitingForTurn == 2)
        #expect(machine.sessionVerified() == true)
        // The turn passes from one to the next, and is free after the last.
        #expect(machine.releaseTurn() == 7)
        #expect(machine.isTurnTaken)
        #expect(machine.releaseTurn() == 8)
        #expect(machine.releaseTurn() == nil)
        #expect(!machine.isTurnTaken)
    }

    @Test func theAnswerToALoopRequestPassesTheTurnToTheNextInLine() {
        var machine = Machine()
        open(&machine, "first")
        #expect(machine.requestOnLoop() == .write)
        #expect(machine.writeRequest(1, releasesTurn: true, deadline: at(10)).name == "write first, arm 10")
        #expect(machine.takeTurn() == .wait)
        machine.waitForTurn(5)
        #expect(machine.answerReceived()?.name == "answer 1, then turn 5")
        #expect(machine.isTurnTaken)
        #expect(!machine.hasRequestInFlight)
        // An answer nobody waits for is left alone.
        #expect(machine.answerReceived() == nil)
    }

    @Test func aRequestWithoutAChannelFailsAndGivesBackTheTurnIfItHeldIt() {
        var machine = Machine()
        #expect(machine.takeTurn() == .proceed)
        #expect(machine.takeTurn() == .wait)
        machine.waitForTurn(9)
        #expect(machine.writeRequest(1, releasesTurn: false, deadline: at(10)).name == "fail 1")
        #expect(machine.writeRequest(2, releasesTurn: true, deadline: at(10)).name == "fail 2, then turn 9")
        #expect(!machine.hasRequestInFlight)
        #expect(!machine.isTimerArmed)
    }

    @Test func theChannelsEndFailsTheRequestInFlightAndEndsTheSession() {
        var machine = Machine()
        open(&machine, "first")
        #expect(machine.requestOnLoop() == .write)
        _ = machine.writeRequest(1, releasesTurn: true, deadline: at(10))
        #expect(machine.takeTurn() == .wait)
        machine.waitForTurn(5)
        // The end of an older channel changes nothing.
        #expect(machine.channelClosed(generation: 0) == nil)
        let drop = machine.channelClosed(generation: 1)
        #expect(drop?.name == "close first, fail 1, turn 5, cancel timer, end session")
        #expect(machine.state.name == "idle")
        #expect(!machine.hasRequestInFlight)
        #expect(!machine.isTimerArmed)
        // Bytes still arriving from it are ignored; it ends only once.
        #expect(!machine.isCurrent(generation: 1))
        #expect(machine.channelClosed(generation: 1) == nil)
    }

    @Test func aChannelEndingWhileVerifyingEndsNoSession() {
        var machine = Machine()
        #expect(machine.takeTurn() == .proceed)
        _ = machine.establish()
        _ = machine.channelOpened("first", generation: 1)
        _ = machine.writeRequest(1, releasesTurn: false, deadline: at(10))
        #expect(machine.channelClosed(generation: 1)?.name == "close first, fail 1, cancel timer")
        #expect(machine.sessionVerified() == false)
        // The request holding the turn fails; nothing is left to drop and nothing to report.
        let failure = machine.establishFailed(.connectionClosed)
        #expect(failure.drop == nil)
        #expect(!failure.reportsUnreachable)
        #expect(machine.state.name == "idle")
    }

    @Test func theTimerTimesOutOnlyALateRequest() {
        var machine = Machine()
        open(&machine, "first")
        // Nothing in flight: the timer stops, and the next request schedules it again.
        #expect(machine.timerFired(now: at(1)).name == "stop")
        #expect(machine.writeRequest(1, releasesTurn: false, deadline: at(10)).name == "write first, arm 10")
        #expect(machine.answerReceived()?.name == "answer 1")
        // Answered in time: the timer is left running and finds the next request.
        #expect(machine.writeRequest(2, releasesTurn: false, deadline: at(15)).name == "write first")
        #expect(machine.timerFired(now: at(10)).name == "rearm 15")
        #expect(machine.isTimerArmed)
        #expect(machine.timerFired(now: at(15)).name == "time out")
        #expect(machine.dropChannel().name == "close first, fail 2, end session")
        #expect(machine.state.name == "idle")
    }

    @Test func aFailedVerifyDropsTheChannelAndReportsTheAccessoryUnreachable() {
        var machine = Machine()
        #expect(machine.takeTurn() == .proceed)
        _ = machine.establish()
        _ = machine.channelOpened("first", generation: 1)
        let failure = machine.establishFailed(.verificationFailed(.invalidSignature))
        #expect(failure.drop?.name == "close first")
        #expect(failure.reportsUnreachable)
        #expect(machine.state.name == "idle")
        #expect(!machine.isCurrent(generation: 1))
    }

    @Test func aFailedConnectReportsTheAccessoryUnreachableAndTheNextRequestTriesAgain() {
        var machine = Machine()
        #expect(machine.takeTurn() == .proceed)
        #expect(machine.establish().name == "connect 1")
        let failure = machine.establishFailed(.unreachable(host: "127.0.0.1", port: 1))
        #expect(failure.drop == nil)
        #expect(failure.reportsUnreachable)
        #expect(machine.state.name == "idle")
        #expect(machine.releaseTurn() == nil)
        #expect(machine.takeTurn() == .proceed)
        #expect(machine.establish().name == "connect 2")
    }

    @Test func theNextRequestReconnectsAfterTheChannelClosed() {
        var machine = Machine()
        open(&machine, "first")
        _ = machine.channelClosed(generation: 1)
        #expect(machine.takeTurn() == .proceed)
        #expect(machine.establish().name == "connect 3")
        #expect(machine.channelOpened("second", generation: 3).name == "verify")
        #expect(machine.sessionVerified() == true)
        #expect(machine.state.name == "open second")
        #expect(machine.isCurrent(generation: 3))
        #expect(!machine.isCurrent(generation: 1))
    }

    @Test func shuttingDownFailsTheRequestInFlightWithoutReportingTheSessionsEnd() {
        var machine = Machine()
        open(&machine, "first")
        _ = machine.writeRequest(1, releasesTurn: false, deadline: at(10))
        #expect(machine.shutDown().name == "close first, fail 1, cancel timer")
        #expect(machine.state.name == "closed")
        // Every later request fails; a loop request goes to a task, which fails when it asks to connect.
        #expect(machine.requestOnLoop() == .handToTask)
        #expect(machine.establish().name == "fail closed")
        #expect(machine.writeRequest(2, releasesTurn: false, deadline: at(10)).name == "fail 2")
    }

    @Test func aChannelArrivingAfterTheShutDownOrAfterADropIsClosed() {
        var shutDown = Machine()
        #expect(shutDown.takeTurn() == .proceed)
        #expect(shutDown.establish().name == "connect 1")
        #expect(shutDown.shutDown().name == "")
        #expect(shutDown.channelOpened("late", generation: 1).name == "close closed")
        #expect(shutDown.state.name == "closed")
        #expect(!shutDown.establishFailed(.closed).reportsUnreachable)
        #expect(shutDown.state.name == "closed")

        var dropped = Machine()
        #expect(dropped.takeTurn() == .proceed)
        #expect(dropped.establish().name == "connect 1")
        _ = dropped.dropChannel()
        #expect(dropped.channelOpened("late", generation: 1).name == "close connectionClosed")
        #expect(dropped.state.name == "idle")
    }
}

/// Brings `machine` from idle to open on `channel`, the turn free again.
private func open(_ machine: inout Machine, _ channel: String) {
    #expect(machine.takeTurn() == .proceed)
    guard case .connect(let generation) = machine.establish() else {
        Issue.record("expected to connect")
        return
    }
    #expect(machine.channelOpened(channel, generation: generation).name == "verify")
    #expect(machine.sessionVerified() == true)
    #expect(machine.releaseTurn() == nil)
}

/// `seconds` after an arbitrary start, as a deadline.
private func at(_ seconds: Int64) -> NIODeadline {
    .uptimeNanoseconds(UInt64(1_000_000_000 + seconds * 1_000_000_000))
}

/// A deadline as the seconds `at(_:)` made it from.
private func seconds(_ deadline: NIODeadline) -> Int64 {
    (Int64(deadline.uptimeNanoseconds) - 1_000_000_000) / 1_000_000_000
}

extension ConnectionStateMachine.State where Channel == String {
    fileprivate var name: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .verifying(let channel): "verifying \(channel)"
        case .open(let channel): "open \(channel)"
        case .closed: "closed"
        }
    }
}

extension ConnectionStateMachine.EstablishAction {
    fileprivate var name: String {
        switch self {
        case .ready: "ready"
        case .connect(let generation): "connect \(generation)"
        case .fail(let error): "fail \(error.caseName)"
        }
    }
}

extension ConnectionStateMachine.OpenedAction {
    fileprivate var name: String {
        switch self {
        case .verify: "verify"
        case .close(let error): "close \(error.caseName)"
        }
    }
}

extension ConnectionStateMachine.WriteAction where Channel == String, Waiter == Int, Turn == Int {
    fileprivate var name: String {
        switch self {
        case .write(let channel, let deadline): "write \(channel)" + (deadline.map { ", arm \(seconds($0))" } ?? "")
        case .fail(let waiter, let turn): "fail \(waiter)" + (turn.map { ", then turn \($0)" } ?? "")
        }
    }
}

extension ConnectionStateMachine.Answer where Waiter == Int, Turn == Int {
    fileprivate var name: String { "answer \(waiter)" + (nextTurn.map { ", then turn \($0)" } ?? "") }
}

extension ConnectionStateMachine.TimerAction {
    fileprivate var name: String {
        switch self {
        case .stop: "stop"
        case .rearm(let deadline): "rearm \(seconds(deadline))"
        case .timeOut: "time out"
        }
    }
}

extension ConnectionStateMachine.Drop where Channel == String, Waiter == Int, Turn == Int {
    /// The parts of the drop that are set, in order.
    fileprivate var name: String {
        var parts: [String] = []
        if let channel { parts.append("close \(channel)") }
        if let failing { parts.append("fail \(failing)") }
        if let nextTurn { parts.append("turn \(nextTurn)") }
        if cancelsTimer { parts.append("cancel timer") }
        if endsSession { parts.append("end session") }
        return parts.joined(separator: ", ")
    }
}

extension HAPControllerError {
    /// The case's name alone, for short expectations.
    fileprivate var caseName: String {
        switch self {
        case .closed: "closed"
        case .connectionClosed: "connectionClosed"
        default: "\(self)"
        }
    }
}
