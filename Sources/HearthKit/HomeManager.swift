import Foundation
import HTTPTypes
import HearthAPI
import HomeGraph
import HummingbirdWSClient
import Logging

/// The homes of one user, mirrored on the client and kept current from the hub's event WebSocket.
///
/// `start()` loads the caller and every home they belong to, then keeps the event WebSocket open: it applies each
/// change to its `HomeMirror` in sequence order, reconnects with exponential backoff when the connection drops,
/// and resumes from the last sequence number it has of each home (`{"resume": {...}}`), so no change is missed or
/// applied twice. On `reloadRequired`, or when a change arrives out of order (a gap), it reloads that home with
/// `GET /v1/homes/{id}`. Objects are values that keep their identity (their UUID) across updates: look them up
/// again by id after a change. `updates()` and its filtered variants deliver each change as it is applied.
public actor HomeManager {
    /// How the manager reconnects and logs.
    public struct Configuration: Sendable {
        /// The wait before the first reconnection attempt; it doubles after each failure.
        public var initialBackoff: Duration
        /// The longest wait between two attempts.
        public var maximumBackoff: Duration
        /// Where the event connection logs (nothing by default; the token is never logged).
        public var logger: Logger

        /// Makes a configuration; by default 100 ms doubling up to 10 s, no logging.
        public init(
            initialBackoff: Duration = .milliseconds(100),
            maximumBackoff: Duration = .seconds(10),
            logger: Logger = Logger(label: "hearthkit", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
            self.logger = logger
        }
    }

    /// The API client the manager calls with; use it for every operation.
    public nonisolated let client: HearthClient
    /// How the manager reconnects.
    public nonisolated let configuration: Configuration
    /// The mirrored homes with the sequence number of the last change applied to each.
    public private(set) var mirror = HomeMirror()
    /// The user the token belongs to, once started.
    public private(set) var currentUser: MeResponse.Person?
    /// The state of the event connection.
    public private(set) var connectionState: ConnectionState = .idle

    private var roles: [UUID: UserRole] = [:]
    private var subscribers: [UUID: Subscriber] = [:]
    private var stateSubscribers: [UUID: AsyncStream<ConnectionState>.Continuation] = [:]
    private var nearbySubscribers: [UUID: AsyncStream<NearbyAccessoryUpdate>.Continuation] = [:]
    private var connectionTask: Task<Void, Never>?
    private var outbound: WebSocketOutboundWriter?
    private var caughtUp = false

    private struct Subscriber {
        let filter: @Sendable (HomeUpdate) -> Bool
        let continuation: AsyncStream<HomeUpdate>.Continuation
    }

    /// A manager of the homes `client`'s user belongs to; call `start()` to load them and follow their changes.
    public init(client: HearthClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
    }

    // MARK: The homes

    /// The homes, in the order they were added.
    public var homes: [Home] { mirror.homes }

    /// The primary home, if the user belongs to it.
    public var primaryHome: Home? { mirror.primaryHome }

    /// The home with `id`, if mirrored.
    public func home(withID id: UUID) -> Home? { mirror.home(withID: id) }

    /// The current user's role in the home `homeID`.
    public func role(inHome homeID: UUID) -> UserRole? { roles[homeID] }

    /// The sequence number of the last change applied to the home `homeID`.
    public func sequence(ofHome homeID: UUID) -> UInt64? { mirror.sequences[homeID] }

    // MARK: Starting and stopping

    /// Loads the current user and every home, then opens the event WebSocket (and keeps it open).
    public func start() async throws(HearthError) {
        let me = try await client.me()
        currentUser = me.user
        for summary in me.homes {
            let response = try await client.home(summary.id)
            mirror.load(response.home, sequence: response.sequence)
            roles[summary.id] = response.role
            publish(.reloaded(homeID: summary.id, sequence: response.sequence))
        }
        connect()
    }

    /// Opens the event WebSocket if it is not open; it resumes from the sequence numbers already mirrored.
    public func connect() {
        guard connectionTask == nil else { return }
        connectionTask = Task { await self.runConnection() }
    }

    /// Closes the event WebSocket and stays offline until `connect()`; the mirror is kept.
    public func disconnect() async {
        guard let task = connectionTask else { return }
        task.cancel()
        if let outbound { try? await outbound.close(.normalClosure, reason: "client disconnected") }
        await task.value
        connectionTask = nil
        outbound = nil
        setState(.idle)
    }

    /// Disconnects and ends every async sequence of updates.
    public func stop() async {
        await disconnect()
        for subscriber in subscribers.values { subscriber.continuation.finish() }
        subscribers = [:]
        for continuation in stateSubscribers.values { continuation.finish() }
        stateSubscribers = [:]
        for continuation in nearbySubscribers.values { continuation.finish() }
        nearbySubscribers = [:]
    }

    // MARK: Async sequences

    /// Every update of every home, as it is applied.
    public func updates() -> AsyncStream<HomeUpdate> {
        subscribe { _ in true }
    }

    /// The updates of one home.
    public func updates(inHome homeID: UUID) -> AsyncStream<HomeUpdate> {
        subscribe { $0.homeID == homeID }
    }

    /// The changes of one accessory, its services and characteristics (and reloads of its home).
    public func updates(ofAccessory accessoryID: UUID) -> AsyncStream<HomeUpdate> {
        let homeID = mirror.homes.first { $0.accessory(withID: accessoryID) != nil }?.id
        return subscribe { update in
            (homeID == nil || update.homeID == homeID) && update.concerns(accessory: accessoryID)
        }
    }

    /// The changes of one characteristic: value and notification changes (and reloads of its home).
    public func updates(ofCharacteristic characteristicID: UUID) -> AsyncStream<HomeUpdate> {
        let homeID = mirror.homes.first { home in
            home.accessories.contains { $0.characteristics.contains { $0.id == characteristicID } }
        }?.id
        return subscribe { update in
            (homeID == nil || update.homeID == homeID) && update.concerns(characteristic: characteristicID)
        }
    }

    /// The connection's state now and at every change.
    public func connectionStates() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self)
        let id = UUID()
        stateSubscribers[id] = continuation
        continuation.yield(connectionState)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeStateSubscriber(id) }
        }
        return stream
    }

    /// Unpaired accessories appearing and going nearby, as the hub's browser sees them from now on.
    ///
    /// Like `HMAccessoryBrowser`'s delegate; the hub sends them to owners and administrators only. Start from
    /// `HearthClient.nearbyAccessories(forHome:)` for those already there.
    public func nearbyAccessories() -> AsyncStream<NearbyAccessoryUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: NearbyAccessoryUpdate.self)
        let id = UUID()
        nearbySubscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeNearbySubscriber(id) }
        }
        return stream
    }

    /// Waits until the event connection is open and caught up; `false` if `timeout` passed or it was revoked.
    public func waitUntilConnected(timeout: Duration = .seconds(30)) async -> Bool {
        if connectionState == .connected { return true }
        let states = connectionStates()
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await state in states {
                    if state == .connected { return true }
                    if case .revoked = state { return false }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let result = await group.next() ?? false
            group.cancelAll()
            return result
        }
    }

    private func subscribe(_ filter: @escaping @Sendable (HomeUpdate) -> Bool) -> AsyncStream<HomeUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: HomeUpdate.self)
        let id = UUID()
        subscribers[id] = Subscriber(filter: filter, continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return stream
    }

    private func removeSubscriber(_ id: UUID) { subscribers[id] = nil }
    private func removeStateSubscriber(_ id: UUID) { stateSubscribers[id] = nil }
    private func removeNearbySubscriber(_ id: UUID) { nearbySubscribers[id] = nil }

    private func publish(_ update: NearbyAccessoryUpdate) {
        for continuation in nearbySubscribers.values { continuation.yield(update) }
    }

    private func publish(_ update: HomeUpdate) {
        for subscriber in subscribers.values where subscriber.filter(update) {
            subscriber.continuation.yield(update)
        }
    }

    private func setState(_ state: ConnectionState) {
        guard state != connectionState else { return }
        connectionState = state
        for continuation in stateSubscribers.values { continuation.yield(state) }
    }

    // MARK: The event connection

    private func runConnection() async {
        var failures = 0
        while !Task.isCancelled {
            setState(.connecting(attempt: failures))
            caughtUp = false
            var closeFrame: WebSocketCloseFrame?
            do {
                closeFrame = try await WebSocketClient.connect(
                    url: client.eventsURL,
                    configuration: .init(
                        maxFrameSize: 1 << 24,
                        additionalHeaders: client.eventHeaders
                    ),
                    logger: configuration.logger
                ) { inbound, outbound, _ in
                    try await self.session(inbound: inbound, outbound: outbound)
                }
            } catch {
                configuration.logger.debug("event connection failed", metadata: ["error": "\(type(of: error))"])
            }
            outbound = nil
            if let closeFrame, closeFrame.closeCode == .policyViolation {
                setState(.revoked(reason: closeFrame.reason ?? "access revoked"))
                return
            }
            if Task.isCancelled { return }
            failures = caughtUp ? 0 : failures + 1
            setState(.connecting(attempt: failures))
            try? await Task.sleep(for: backoff(afterFailures: failures))
        }
    }

    /// The wait before the next attempt: the initial backoff doubled per failure, capped, with ±20 % jitter.
    private func backoff(afterFailures failures: Int) -> Duration {
        let base = configuration.initialBackoff * Double(1 << min(failures, 16))
        let capped = min(base, configuration.maximumBackoff)
        return capped * Double.random(in: 0.8...1.2)
    }

    /// One connection: the hello, the resume, then every message in order.
    private nonisolated func session(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
        guard case .text(let first)? = try await messages.next(),
            case .hello(_, let homes)? = Self.decode(first)
        else { return }
        let resume = await prepareResume(after: homes, outbound: outbound)
        let data = try JSONEncoder.api.encode(resume)
        try await outbound.writeTextMessage(String(decoding: data, as: UTF8.self))
        await markCaughtUp()
        while let message = try await messages.next() {
            guard case .text(let text) = message, let decoded = Self.decode(text) else { continue }
            await handle(decoded)
        }
    }

    private static func decode(_ text: String) -> ServerMessage? {
        try? JSONDecoder.api.decode(ServerMessage.self, from: Data(text.utf8))
    }

    private func markCaughtUp() {
        caughtUp = true
        setState(.connected)
    }

    /// Loads the homes the hello names that are not mirrored, forgets those it does not name, and returns the
    /// resume message for the rest.
    private func prepareResume(
        after homes: [ServerMessage.HomeSequence],
        outbound: WebSocketOutboundWriter
    ) async -> ClientMessage {
        self.outbound = outbound
        let visible = Set(homes.map(\.homeID))
        for home in mirror.homes where !visible.contains(home.id) { forget(home.id) }
        for home in homes where mirror.sequences[home.homeID] == nil { await reload(home.homeID) }
        var positions: [UUID: UInt64] = [:]
        for home in homes {
            if let sequence = mirror.sequences[home.homeID] { positions[home.homeID] = sequence }
        }
        return ClientMessage(resumingAfter: positions)
    }

    private func handle(_ message: ServerMessage) async {
        switch message {
        case .event(let event): await apply(event)
        case .reloadRequired(let homeID, _): await reload(homeID)
        case .hello: break
        case .found(let accessory): publish(NearbyAccessoryUpdate.found(accessory))
        case .removed(let deviceID): publish(NearbyAccessoryUpdate.removed(deviceID: deviceID))
        case .error(let detail):
            configuration.logger.warning("the hub refused a message", metadata: ["code": "\(detail.code)"])
        }
    }

    /// Applies one event to the mirror and publishes it; reloads the home on a gap.
    private func apply(_ event: HomeEvent) async {
        if case .userRemoved(let userID) = event.change, userID == currentUser?.id {
            forget(event.homeID)
            return
        }
        switch mirror.apply(event) {
        case .applied:
            switch event.change {
            case .homeRemoved:
                roles[event.homeID] = nil
            case .homeAdded(let home):
                roles[event.homeID] = home.users.first { $0.id == currentUser?.id }?.role ?? roles[event.homeID]
            case .userRoleChanged(let userID, _, let new) where userID == currentUser?.id:
                roles[event.homeID] = new
            default:
                break
            }
            publish(.changed(event))
        case .alreadySeen:
            break
        case .gap:
            await reload(event.homeID)
        }
    }

    /// Loads the home whole with `GET /v1/homes/{id}`; forgets it when the user no longer sees it.
    private func reload(_ homeID: UUID) async {
        do throws(HearthError) {
            let response = try await client.home(homeID)
            mirror.load(response.home, sequence: response.sequence)
            roles[homeID] = response.role
            publish(.reloaded(homeID: homeID, sequence: response.sequence))
        } catch {
            if error.isNotFound {
                forget(homeID)
            } else {
                configuration.logger.warning("reloading a home failed", metadata: ["code": "\(error.code)"])
            }
        }
    }

    private func forget(_ homeID: UUID) {
        guard mirror.sequences[homeID] != nil else { return }
        mirror.forget(homeID)
        roles[homeID] = nil
        publish(.forgotten(homeID: homeID))
    }
}

extension HearthClient {
    /// The headers of the event WebSocket's upgrade: the token, or the tunnel's secret.
    var eventHeaders: HTTPFields {
        if let tunnel, let name = HTTPField.Name(SecureTunnel.header) { return [name: tunnel.secret] }
        return token.map { [.authorization: "Bearer \($0)"] } ?? [:]
    }
}

/// An accessory appearing near the hub or going, as ``HomeManager/nearbyAccessories()`` reports it.
public enum NearbyAccessoryUpdate: Sendable, Equatable {
    /// An unpaired accessory appeared or changed its advertisement; `isPairable` false: it was just paired.
    case found(NearbyAccessory)
    /// The accessory with this device ID is no longer advertised.
    case removed(deviceID: String)
}
