import Foundation
import HAPTypes

/// Every home as one value: the model and its rules, changed only by `apply(_:)`, which reports what changed.
///
/// Each home has its own sequence of changes, numbered from 1, and keeps its recent changes so that a client that
/// reconnects can ask for the ones it missed (`changes(after:inHome:)`).
public struct HomeGraph: Sendable, Equatable, Codable {
    /// The homes, in the order they were added.
    public internal(set) var homes: [Home]
    /// The last sequence number given out per home; kept after a home is removed so numbers never repeat.
    public internal(set) var lastSequences: [UUID: UInt64]
    /// Where the numbering of a home with none given out yet starts after: raised by `skipSequences(by:)`, so even
    /// a home the graph never recorded (its addition lost in a power cut) does not reuse a number.
    public internal(set) var sequenceFloor: UInt64
    /// The recent changes per home, oldest first, numbered in order; consecutive but for the holes
    /// `skipSequences(by:)` leaves.
    var history: [UUID: EventLog]
    /// How many recent changes per home are kept at least; up to twice as many are kept between trims.
    public let historyLimit: Int

    /// Makes a graph with no homes that keeps at least `historyLimit` recent changes per home.
    public init(historyLimit: Int = 1000) {
        precondition(historyLimit > 0, "historyLimit must be positive")
        homes = []
        lastSequences = [:]
        sequenceFloor = 0
        history = [:]
        self.historyLimit = historyLimit
    }

    /// The primary home, or `nil` when there are no homes.
    public var primaryHome: Home? { homes.first(where: \.isPrimary) }

    /// The home with `id`, if any.
    public func home(withID id: UUID) -> Home? { homes.first { $0.id == id } }

    /// The sequence number of the home's latest change, 0 before any.
    public func lastSequence(ofHome homeID: UUID) -> UInt64 { lastSequences[homeID] ?? sequenceFloor }

    /// Each home's kept changes, oldest first: the `history` of the graph's JSON, for a store that writes it itself.
    public var recentChanges: [UUID: [HomeEvent]] { history.mapValues(\.events) }

    /// Applies `operation` whole and returns its changes in order, or throws and changes nothing.
    ///
    /// An operation that would change nothing (renaming to the same name, reporting the value already known)
    /// succeeds with no changes. The events, and the history, say who made the change (`by`) and when (`at`).
    @discardableResult
    public mutating func apply(
        _ operation: HomeOperation,
        by author: ChangeAuthor? = nil,
        at date: Date? = nil
    ) throws(HomeGraphError) -> [HomeEvent] {
        try checkNewIDsAcrossHomes(of: operation)
        let changes = try perform(operation, names: .strict)
        return record(changes, by: author, at: date)
    }

    /// Applies an operation read back from a log of operations `apply(_:)` accepted, as opening a store does.
    ///
    /// Names are normalised as `apply(_:)` normalises them, but no naming rule is checked: the rules may have
    /// tightened since the operation was written (see ``Names``), and a store written then must still open. Every
    /// other rule is checked as by `apply(_:)`.
    @discardableResult
    public mutating func replay(
        _ operation: HomeOperation,
        by author: ChangeAuthor? = nil,
        at date: Date? = nil
    ) throws(HomeGraphError) -> [HomeEvent] {
        try checkNewIDsAcrossHomes(of: operation)
        let changes = try perform(operation, names: .replay)
        return record(changes, by: author, at: date)
    }

    /// The changes of a home after the one numbered `sequence`, or word that the client must reload the home.
    public func changes(after sequence: UInt64, inHome homeID: UUID) throws(HomeGraphError) -> ChangeHistory {
        guard home(withID: homeID) != nil else { throw .notFound(.home, homeID) }
        let current = lastSequence(ofHome: homeID)
        if sequence == current { return .events([]) }
        // The kept changes must run without a hole from `sequence + 1` to the latest: numbers skipped after an
        // unclean stop (`skipSequences(by:)`) are a hole, and a client from before it reloads.
        guard sequence < current, let log = history[homeID], let last = log.last, last.sequence == current,
            current - sequence <= UInt64(log.count)
        else {
            return .reloadRequired(currentSequence: current)
        }
        let missed = log.events(from: log.count - Int(current - sequence))
        guard missed.first?.sequence == sequence + 1 else { return .reloadRequired(currentSequence: current) }
        return .events(missed)
    }

    /// The home's newest `count` kept changes, oldest first, holes and all: what a history view shows.
    public func recentChanges(last count: Int, inHome homeID: UUID) throws(HomeGraphError) -> [HomeEvent] {
        guard home(withID: homeID) != nil else { throw .notFound(.home, homeID) }
        guard let log = history[homeID] else { return [] }
        return log.events(from: max(0, log.count - max(0, count)))
    }

    /// Moves every home's numbering `count` ahead (the homes removed included, and homes to come through
    /// `sequenceFloor`), leaving a hole in the history.
    ///
    /// A store that was not closed cleanly may have handed out numbers for changes that never reached its disk;
    /// skipping past them means no number is given to two different changes, and a client that saw any of them
    /// is told to reload (`changes(after:inHome:)`).
    public mutating func skipSequences(by count: UInt64) {
        for id in lastSequences.keys { lastSequences[id]? += count }
        sequenceFloor += count
    }

    // MARK: Dispatch

    /// Changes a home and the home they happened in, before stamping.
    typealias Changes = [(homeID: UUID, change: HomeChange)]

    /// Runs `body` on the home `id` in place; `body` checks everything before it changes anything.
    mutating func modifyHome(
        _ id: UUID,
        _ body: (inout Home) throws(HomeGraphError) -> [HomeChange]
    ) throws(HomeGraphError) -> Changes {
        guard let index = homes.firstIndex(where: { $0.id == id }) else { throw .notFound(.home, id) }
        return try body(&homes[index]).map { (homeID: id, change: $0) }
    }

    // MARK: History

    private mutating func record(_ changes: Changes, by author: ChangeAuthor?, at date: Date?) -> [HomeEvent] {
        var events: [HomeEvent] = []
        events.reserveCapacity(changes.count)
        for (homeID, change) in changes {
            let sequence = lastSequence(ofHome: homeID) + 1
            lastSequences[homeID] = sequence
            let event = HomeEvent(homeID: homeID, sequence: sequence, change: change, by: author, at: date)
            events.append(event)
            if case .homeRemoved = change {
                history[homeID] = nil
                continue
            }
            history[homeID, default: EventLog(limit: historyLimit)].append(event)
            // Trimming only at twice the limit keeps appends amortised O(1).
            if let count = history[homeID]?.count, count >= 2 * historyLimit {
                history[homeID]?.trim(keeping: historyLimit)
            }
        }
        return events
    }
}
