import ByteStreams
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// One open API connection as the shedding policy sees it: whether it has authenticated, and when it was last
/// active.
final class ConnectionRecord: Sendable {
    /// The connection.
    let channel: any Channel
    private let authenticated = Synchronization.Atomic<Bool>(false)
    private let sentHead = Synchronization.Atomic<Bool>(false)
    /// Uptime nanoseconds of the last activity: atomics, so a request costs no lock.
    private let lastActivityNanoseconds: Synchronization.Atomic<Int64>

    /// Records `channel`, active now.
    init(channel: any Channel) {
        self.channel = channel
        self.lastActivityNanoseconds = Synchronization.Atomic(NIODeadline.now().uptimeNanoseconds.clampedToInt64)
    }

    /// Whether a request on the connection carried a token the hub accepted.
    var isAuthenticated: Bool { authenticated.load(ordering: .relaxed) }
    /// Whether the connection has sent at least one complete request head.
    var hasSentHead: Bool { sentHead.load(ordering: .relaxed) }
    /// When the connection last started a request or finished an answer, in uptime nanoseconds.
    var lastActivity: Int64 { lastActivityNanoseconds.load(ordering: .relaxed) }

    /// A request head arrived.
    func noteRequest() {
        sentHead.store(true, ordering: .relaxed)
        noteActivity()
    }

    /// An answer was finished.
    func noteActivity() {
        lastActivityNanoseconds.store(NIODeadline.now().uptimeNanoseconds.clampedToInt64, ordering: .relaxed)
    }

    /// A request on the connection carried a token the hub accepted.
    func markAuthenticated() {
        if !authenticated.load(ordering: .relaxed) { authenticated.store(true, ordering: .relaxed) }
    }
}

extension UInt64 {
    fileprivate var clampedToInt64: Int64 { Int64(clamping: self) }
}

/// The API's open connections, kept under a cap below the process's open-file limit.
///
/// When a new connection would pass the cap, the idlest unauthenticated connection is closed to make room (the new
/// one itself when every other has authenticated), so a flood of idle or anonymous connections never locks out a
/// client with a token. The first time the cap is reached in an episode it is logged once.
final class OpenConnections: Sendable {
    private struct State {
        var records: [ObjectIdentifier: ConnectionRecord] = [:]
        var warned = false
    }

    /// The most connections kept open at once.
    let limit: Int
    private let state = NIOLockedValueBox(State())
    private let logger: Logger

    /// Keeps at most `limit` connections open.
    init(limit: Int, logger: Logger) {
        self.limit = max(1, limit)
        self.logger = logger
    }

    /// How many connections are open.
    var count: Int { state.withLockedValue { $0.records.count } }

    /// Records a new connection and closes whatever must go to keep under the limit.
    func admit(_ record: ConnectionRecord) {
        let (victim, warn, open) = state.withLockedValue { state -> (ConnectionRecord?, Bool, Int) in
            state.records[ObjectIdentifier(record.channel)] = record
            guard state.records.count > limit else { return (nil, false, state.records.count) }
            // One over the limit (each admission sheds at most one): the idlest anonymous connection goes, the
            // new one itself when every other has authenticated. One pass, no sort.
            var victim = record
            var oldest = Int64.max
            for candidate in state.records.values where !candidate.isAuthenticated {
                let activity = candidate.lastActivity
                if activity < oldest {
                    oldest = activity
                    victim = candidate
                }
            }
            state.records[ObjectIdentifier(victim.channel)] = nil
            let warn = !state.warned
            state.warned = true
            return (victim, warn, state.records.count)
        }
        if warn {
            logger.warning(
                "API connections reached their limit; closing the idlest unauthenticated ones to make room",
                metadata: ["limit": "\(limit)", "open": "\(open)"]
            )
        }
        victim?.channel.close(promise: nil)
    }

    /// The record of the connection on `channel`, while it is open.
    func record(for channel: any Channel) -> ConnectionRecord? {
        state.withLockedValue { $0.records[ObjectIdentifier(channel)] }
    }

    /// Forgets a connection that closed; the next time the limit is reached is logged again once the table has
    /// fallen below nine tenths of it.
    func remove(_ record: ConnectionRecord) {
        state.withLockedValue {
            $0.records[ObjectIdentifier(record.channel)] = nil
            if $0.records.count < limit * 9 / 10 { $0.warned = false }
        }
    }

    /// The connection cap for this process: the open-file soft limit less a reserve for the store, accessory
    /// connections and logs (a quarter of the limit, at most 256), and at most 4,096: a home hub serves a household.
    static func defaultLimit() -> Int {
        let soft = OpenFileLimit.current().soft
        return min(4096, max(16, soft - min(256, soft / 4)))
    }
}
