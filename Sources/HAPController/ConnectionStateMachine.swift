import NIOCore

/// The life of one accessory connection as a value: where the session is, whose turn it is to send, and the request
/// in flight; each event returns what to do, and ``AccessoryConnection`` carries it out.
///
/// The session goes idle → connecting → verifying → open, and back to idle when the channel ends (the next request
/// connects again); ``shutDown()`` makes it closed for good. Requests take turns (hap-protocol.md §7.9: one request in
/// flight): the turn is taken, given back, or handed to the first request waiting for it. Like the state machines of
/// swift-nio and swift-nio-ssh, it does no I/O: it is generic over the channel, the waiter for an answer and the
/// waiter for the turn, so tests drive it with plain values, and a mutation in place costs no allocation.
struct ConnectionStateMachine<Channel, Waiter, Turn> {
    /// Where the session is.
    enum State {
        /// No channel; the next request opens one.
        case idle
        /// The TCP connection is being made.
        case connecting
        /// The channel is open and pair-verify runs on it; a plain connection passes straight through.
        case verifying(Channel)
        /// The session is ready for requests.
        case open(Channel)
        /// Shut down for good: every later request fails.
        case closed
    }

    /// A request written and not yet answered.
    fileprivate struct InFlight {
        var waiter: Waiter
        /// Whether its answer also gives the turn back (a request written at once from the loop).
        var releasesTurn: Bool
        var deadline: NIODeadline
    }

    /// Where the session is now.
    private(set) var state: State = .idle
    /// Counts channels opened and dropped; bytes and ends reported with an older number are ignored.
    private(set) var generation = 0
    /// Whether a request holds the turn.
    private(set) var isTurnTaken = false
    /// Requests waiting for the turn, first come first served.
    private var queue: [Turn] = []
    /// Requests handed to tasks and not yet in ``queue``: while there are any, later requests take the same way, so
    /// requests go out in the order they came.
    private(set) var requestsHandedToTasks = 0
    private var inFlight: InFlight?
    /// Whether a timer is scheduled to check the request in flight.
    private(set) var isTimerArmed = false

    /// Whether the session is open.
    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    /// Whether a request is written and not yet answered.
    var hasRequestInFlight: Bool { inFlight != nil }

    /// How many requests wait for the turn.
    var waitingForTurn: Int { queue.count }

    /// Whether bytes or the end of the channel with this number concern the channel in use.
    func isCurrent(generation: Int) -> Bool {
        guard generation == self.generation else { return false }
        switch state {
        case .verifying, .open: return true
        case .idle, .connecting, .closed: return false
        }
    }

    // MARK: Turns

    /// What to do with a request made on the event loop.
    enum LoopRequestAction {
        /// Write it now: the turn is taken for it and its answer gives it back.
        case write
        /// Hand it to a task that waits for the turn (and connects first if needed); call ``requestTaken()`` there.
        case handToTask
    }

    /// A request made on the event loop: written at once when the session is open and nobody holds or waits for
    /// the turn.
    mutating func requestOnLoop() -> LoopRequestAction {
        guard !isTurnTaken, requestsHandedToTasks == 0, isOpen else {
            requestsHandedToTasks += 1
            return .handToTask
        }
        isTurnTaken = true
        return .write
    }

    /// A task took a request handed to it by ``requestOnLoop()``; it asks for the turn next, in the same job.
    mutating func requestTaken() {
        requestsHandedToTasks -= 1
    }

    /// What a request asking for the turn does.
    enum TurnAction {
        /// It has the turn.
        case proceed
        /// Another request has it: wait with ``waitForTurn(_:)`` until ``releaseTurn()`` hands it over.
        case wait
    }

    /// Takes the turn if nobody holds it.
    mutating func takeTurn() -> TurnAction {
        guard isTurnTaken else {
            isTurnTaken = true
            return .proceed
        }
        return .wait
    }

    /// Queues a request that found the turn taken.
    mutating func waitForTurn(_ turn: Turn) {
        queue.append(turn)
    }

    /// Gives the turn back; returns the waiting request it passes to, to resume, if any.
    mutating func releaseTurn() -> Turn? {
        guard !queue.isEmpty else {
            isTurnTaken = false
            return nil
        }
        return queue.removeFirst()
    }

    // MARK: Connecting

    /// What the request holding the turn does before it sends.
    enum EstablishAction {
        /// The session is open: send.
        case ready
        /// Open a channel and report it with ``channelOpened(_:generation:)`` (or ``establishFailed(_:)``).
        case connect(generation: Int)
        /// Fail the request with this error.
        case fail(HAPControllerError)
    }

    /// The request holding the turn needs a session.
    mutating func establish() -> EstablishAction {
        switch state {
        case .open:
            return .ready
        case .idle:
            generation += 1
            state = .connecting
            return .connect(generation: generation)
        case .closed:
            return .fail(.closed)
        case .connecting, .verifying:
            // Only the request holding the turn connects, so it never finds another connecting.
            return .fail(.connectionClosed)
        }
    }

    /// What to do with a channel just connected.
    enum OpenedAction {
        /// Keep it: verify (a verified connection), then call ``sessionVerified()``.
        case verify
        /// Close it and fail the request with this error: the connection was shut down or dropped meanwhile.
        case close(HAPControllerError)
    }

    /// The TCP connection asked for by ``establish()`` with `generation` is up.
    mutating func channelOpened(_ channel: Channel, generation: Int) -> OpenedAction {
        switch state {
        case .connecting where generation == self.generation:
            state = .verifying(channel)
            return .verify
        case .closed:
            return .close(.closed)
        case .connecting:
            state = .idle
            return .close(.connectionClosed)
        case .idle, .verifying, .open:
            return .close(.connectionClosed)
        }
    }

    /// Pair-verify succeeded (or was not needed); returns whether to report the session open (`true` unless the
    /// channel was dropped meanwhile).
    mutating func sessionVerified() -> Bool {
        guard case .verifying(let channel) = state else { return false }
        state = .open(channel)
        return true
    }

    /// What to do when connecting or verifying failed.
    struct EstablishFailure {
        /// The channel to drop, when it failed while verifying.
        var drop: Drop?
        /// Whether to report the accessory unreachable (it could not be reached or verified).
        var reportsUnreachable: Bool
    }

    /// Connecting or verifying failed with `error`.
    mutating func establishFailed(_ error: HAPControllerError) -> EstablishFailure {
        var drop: Drop?
        switch state {
        case .connecting: state = .idle
        case .verifying: drop = dropChannel()
        // Dropped already (a timeout, the channel's end), or shut down.
        case .idle, .open, .closed: break
        }
        switch error {
        case .unreachable, .verificationFailed: return EstablishFailure(drop: drop, reportsUnreachable: true)
        default: return EstablishFailure(drop: drop, reportsUnreachable: false)
        }
    }

    // MARK: Exchanges

    /// What to do with a request ready to go out.
    enum WriteAction {
        /// Write it on this channel; schedule the timer for the deadline if one is given.
        case write(Channel, armTimerAt: NIODeadline?)
        /// There is no channel: fail the waiter with ``HAPControllerError/connectionClosed`` and resume the next
        /// turn if there is one.
        case fail(Waiter, nextTurn: Turn?)
    }

    /// A request is ready to be written, answered to `waiter`, due by `deadline`; with `releasesTurn` its answer
    /// gives the turn back.
    mutating func writeRequest(_ waiter: Waiter, releasesTurn: Bool, deadline: NIODeadline) -> WriteAction {
        assert(inFlight == nil, "one request in flight")
        let channel: Channel
        switch state {
        case .verifying(let current), .open(let current):
            channel = current
        case .idle, .connecting, .closed:
            return .fail(waiter, nextTurn: releasesTurn ? releaseTurn() : nil)
        }
        inFlight = InFlight(waiter: waiter, releasesTurn: releasesTurn, deadline: deadline)
        if isTimerArmed { return .write(channel, armTimerAt: nil) }
        isTimerArmed = true
        return .write(channel, armTimerAt: deadline)
    }

    /// Who to resume when a request in flight ends.
    struct Answer {
        /// The request's waiter, to answer.
        var waiter: Waiter
        /// The request the turn passes to, to resume, if its answer gave the turn back.
        var nextTurn: Turn?
    }

    /// An answer arrived; `nil` when no request waits for one.
    mutating func answerReceived() -> Answer? {
        guard let inFlight else { return nil }
        self.inFlight = nil
        return Answer(waiter: inFlight.waiter, nextTurn: inFlight.releasesTurn ? releaseTurn() : nil)
    }

    /// What the timer does when it fires.
    enum TimerAction {
        /// Nothing is in flight: stop; the next request schedules it again.
        case stop
        /// The request now in flight is due later: schedule the timer for then.
        case rearm(NIODeadline)
        /// The request in flight is late: drop the channel, failing it with ``HAPControllerError/timedOut``.
        case timeOut
    }

    /// The timer fired at `now`.
    ///
    /// Requests answered in time leave it running, so it may find a later request in flight.
    mutating func timerFired(now: NIODeadline) -> TimerAction {
        isTimerArmed = false
        guard let inFlight else { return .stop }
        if inFlight.deadline <= now { return .timeOut }
        isTimerArmed = true
        return .rearm(inFlight.deadline)
    }

    // MARK: The channel's end

    /// What to do when the channel goes.
    struct Drop {
        /// The channel to close.
        var channel: Channel?
        /// The request in flight, to fail.
        var failing: Waiter?
        /// The request the turn passes to, to resume, if the failed request gave the turn back.
        var nextTurn: Turn?
        /// Whether to cancel the timer.
        var cancelsTimer = false
        /// Whether an open session ended, to report.
        var endsSession = false
    }

    /// The channel numbered `generation` closed; `nil` when it is not the one in use.
    mutating func channelClosed(generation: Int) -> Drop? {
        guard isCurrent(generation: generation) else { return nil }
        return dropChannel()
    }

    /// Drops the channel (a timeout, bad bytes, its end): fails the request in flight and returns to idle.
    mutating func dropChannel() -> Drop {
        var drop = Drop()
        drop.cancelsTimer = isTimerArmed
        isTimerArmed = false
        if let inFlight {
            self.inFlight = nil
            drop.failing = inFlight.waiter
            if inFlight.releasesTurn { drop.nextTurn = releaseTurn() }
        }
        switch state {
        case .verifying(let channel):
            drop.channel = channel
            state = .idle
        case .open(let channel):
            drop.channel = channel
            drop.endsSession = true
            state = .idle
        // A connection being made is superseded: its channel is closed when it arrives.
        case .idle, .connecting, .closed:
            break
        }
        generation += 1
        return drop
    }

    /// Closes for good: drops the channel without reporting the session's end; later requests fail.
    mutating func shutDown() -> Drop {
        var drop = dropChannel()
        drop.endsSession = false
        state = .closed
        return drop
    }
}

extension ConnectionStateMachine: Sendable where Channel: Sendable, Waiter: Sendable, Turn: Sendable {}
extension ConnectionStateMachine.State: Sendable where Channel: Sendable, Waiter: Sendable, Turn: Sendable {}
extension ConnectionStateMachine.InFlight: Sendable where Channel: Sendable, Waiter: Sendable, Turn: Sendable {}
