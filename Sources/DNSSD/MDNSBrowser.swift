import Logging
import NIOCore

/// A service instance found by browsing, resolved to host, port, addresses and TXT.
public struct ResolvedService: Sendable, Equatable {
    /// The instance name, such as `Hearth Bridge 1A2B`.
    public var name: String
    /// The service type, such as `_hap._tcp`.
    public var type: String
    /// The host name from the SRV record, such as `Hearth-1A2B.local.`.
    public var hostName: String
    /// The port from the SRV record.
    public var port: UInt16
    /// The host's IPv4 addresses, sorted.
    public var addresses: [IPv4Address]
    /// The TXT entries, keys lower-cased.
    public var txt: [String: String]

    /// Makes a resolved service.
    public init(
        name: String,
        type: String,
        hostName: String,
        port: UInt16,
        addresses: [IPv4Address],
        txt: [String: String]
    ) {
        self.name = name
        self.type = type
        self.hostName = hostName
        self.port = port
        self.addresses = addresses
        self.txt = txt
    }
}

/// What a browser reports as services come, change and go.
public enum BrowseEvent: Sendable, Equatable {
    /// A new instance, fully resolved.
    case added(ResolvedService)
    /// A known instance whose TXT, port, host or addresses changed.
    case updated(ResolvedService)
    /// An instance that said goodbye, or whose records expired; carries its instance name.
    case removed(String)
}

/// Browses one service type over mDNS on the given interfaces, resolving and caching what it finds.
///
/// Sends PTR queries at 1, 2, 4… seconds (capped at an hour, RFC 6762 §5.2) with known answers, asks for SRV,
/// TXT and A records an answer left out, refreshes records at 80 % of their TTL, and reports changes on `events`.
public actor MDNSBrowser {
    /// How often the cache is swept for expiry and refreshes.
    static let tick = Duration.milliseconds(250)
    /// RFC 6762 §5.2: the interval between browse queries doubles up to an hour.
    static let maximumQueryInterval = Duration.seconds(3600)

    /// Added, updated and removed services, in the order seen; finishes after `stop()`.
    public nonisolated let events: AsyncStream<BrowseEvent>

    private let continuation: AsyncStream<BrowseEvent>.Continuation
    private let serviceType: String
    private let serviceTypeName: DNSName
    private let interfaces: [IPv4Address]
    private let group: any EventLoopGroup
    private let logger: Logger
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var transport: MulticastTransport?
    private var tasks: [Task<Void, Never>] = []
    private var cache = RecordCache()
    private var known: [DNSName: ResolvedService] = [:]
    private var lastAsked: [DNSName: Duration] = [:]
    private var nextBrowseQuery = Duration.zero
    private var browseInterval = Duration.seconds(1)

    /// Makes a browser for `type` (such as `_hap._tcp`) in `domain` on these interfaces, sockets on `group`.
    public init(
        type: String = "_hap._tcp",
        domain: String = "local",
        interfaces: [IPv4Address],
        group: any EventLoopGroup,
        logger: Logger? = nil
    ) {
        self.serviceType = type
        self.serviceTypeName = DNSName("\(type).\(domain)")
        self.interfaces = interfaces
        self.group = group
        self.logger = logger ?? Logger(label: "hearth.dnssd.browser")
        self.start = clock.now
        (events, continuation) = AsyncStream.makeStream(of: BrowseEvent.self)
    }

    deinit {
        // Released without stop(): close the sockets so nothing keeps answering or querying.
        transport?.closeWithoutWaiting()
    }

    /// Opens the sockets and starts querying; events arrive on `events`.
    public func start() async throws(MDNSError) {
        guard transport == nil else { return }
        let transport = try await MulticastTransport.open(interfaces: interfaces, group: group, logger: logger)
        self.transport = transport
        tasks.append(
            Task { [weak self] in
                for await received in transport.incoming {
                    await self?.handle(received.message)
                }
            }
        )
        tasks.append(
            Task { [weak self] in
                // Ends when the browser is stopped or released.
                while !Task.isCancelled {
                    guard let self else { return }
                    await self.maintain()
                    try? await Task.sleep(for: MDNSBrowser.tick)
                }
            }
        )
    }

    /// Closes the sockets and finishes `events`.
    public func stop() async {
        for task in tasks { task.cancel() }
        tasks = []
        await transport?.close()
        transport = nil
        continuation.finish()
    }

    private var now: Duration { clock.now - start }

    private func maintain() async {
        let now = self.now
        cache.expire(now: now)
        var questions: [DNSQuestion] = []
        if now >= nextBrowseQuery {
            questions.append(DNSQuestion(name: serviceTypeName, type: .ptr))
            nextBrowseQuery = now + browseInterval
            browseInterval = min(browseInterval * 2, Self.maximumQueryInterval)
        }
        for record in cache.recordsDueForRefresh(now: now) {
            let question = DNSQuestion(name: record.name, type: record.type)
            if !questions.contains(question) { questions.append(question) }
        }
        questions += missingPieces(now: now)
        if !questions.isEmpty {
            // RFC 6762 §7.1: list the PTR answers we hold with more than half their TTL left.
            let knownAnswers = cache.records(named: serviceTypeName, type: .ptr, now: now).filter {
                $0.ttl > ServiceRecords.otherRecordTTL / 2
            }
            await transport?.sendMulticast(DNSMessage(questions: questions, answers: knownAnswers))
        }
        report()
    }

    /// Questions for the SRV, TXT and A records of instances not yet resolved, at most once a second per name.
    private func missingPieces(now: Duration) -> [DNSQuestion] {
        var questions: [DNSQuestion] = []
        func ask(_ name: DNSName, _ types: [DNSRecordType]) {
            if let last = lastAsked[name], now - last < .seconds(1) { return }
            lastAsked[name] = now
            questions += types.map { DNSQuestion(name: name, type: $0) }
        }
        for pointer in cache.records(named: serviceTypeName, type: .ptr, now: now) {
            guard case .ptr(let instance) = pointer.data else { continue }
            let location = cache.records(named: instance, type: .srv, now: now)
            let text = cache.records(named: instance, type: .txt, now: now)
            if location.isEmpty || text.isEmpty { ask(instance, [.srv, .txt]) }
            if case .srv(_, _, _, let host)? = location.first?.data,
                cache.records(named: host, type: .a, now: now).isEmpty
            {
                ask(host, [.a])
            }
        }
        return questions
    }

    private func handle(_ message: DNSMessage) async {
        guard message.isResponse else { return }
        let now = self.now
        for record in message.allRecords {
            cache.insert(record, now: now)
        }
        report()
    }

    /// Compares what the cache resolves to now with what was reported, and reports the difference.
    private func report() {
        let now = self.now
        var current: [DNSName: ResolvedService] = [:]
        for pointer in cache.records(named: serviceTypeName, type: .ptr, now: now) {
            guard case .ptr(let instance) = pointer.data,
                let resolved = resolve(instance, now: now)
            else { continue }
            current[instance] = resolved
        }
        for (name, service) in current.sorted(by: { $0.value.name < $1.value.name }) {
            if let previous = known[name] {
                if previous != service { continuation.yield(.updated(service)) }
            } else {
                continuation.yield(.added(service))
            }
        }
        for (name, service) in known where current[name] == nil {
            continuation.yield(.removed(service.name))
        }
        known = current
    }

    private func resolve(_ instance: DNSName, now: Duration) -> ResolvedService? {
        guard let instanceLabel = instance.labels.first,
            case .srv(_, _, let port, let host)? = cache.records(named: instance, type: .srv, now: now).first?.data,
            case .txt(let strings)? = cache.records(named: instance, type: .txt, now: now).first?.data
        else { return nil }
        let addresses = cache.records(named: host, type: .a, now: now).compactMap { record -> IPv4Address? in
            if case .a(let address) = record.data { return address }
            return nil
        }
        guard !addresses.isEmpty else { return nil }
        return ResolvedService(
            name: instanceLabel,
            type: serviceType,
            hostName: host.description,
            port: port,
            addresses: addresses.sorted { $0.value < $1.value },
            txt: TXTCoding.dictionary(from: strings)
        )
    }
}
