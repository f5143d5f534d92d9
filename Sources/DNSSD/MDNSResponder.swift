import Logging
import NIOCore

/// Advertises one service instance over mDNS on the given interfaces (RFC 6762, RFC 6763).
///
/// `register` probes the names (three probes 250 ms apart), renames the instance to `Name (2)`, `Name (3)`… on a
/// conflict, then announces (twice, one second apart) and answers queries until `stop()` says goodbye. A conflicting
/// answer heard after announcing sends it back to probing (RFC 6762 §9): it keeps its name if nobody defends the
/// other data, else it takes the next free `Name (n)` and announces that. Records identical to ours, and our own
/// messages heard back through multicast loopback, are no conflict.
/// Answers go to the multicast group, except legacy unicast queries (source port not 5353), which are answered
/// to the sender. The QU bit is honoured by answering on multicast too. IPv4 only.
public actor MDNSResponder {
    /// RFC 6762 §8.1: 250 ms between probes.
    static let probeInterval = Duration.milliseconds(250)
    /// RFC 6762 §8.1: three probes.
    static let probeCount = 3
    /// RFC 6762 §8.3: one second between announcements; at least two are sent.
    static let announcementInterval = Duration.seconds(1)
    /// Renames tried before `register` gives up with `MDNSError.tooManyConflicts`.
    public static let maximumRenames = 30

    private enum Phase {
        case idle
        case probing
        case announced
        case stopped
    }

    private let interfaces: [IPv4Address]
    private let group: any EventLoopGroup
    private let logger: Logger
    private var transport: MulticastTransport?
    private var receiveTask: Task<Void, Never>?
    private var announceTask: Task<Void, Never>?
    private var records: ServiceRecords?
    private var phase = Phase.idle
    private var conflictSeen = false
    private var lostTieBreak = false
    private var baseName = ""
    private var renames = 0
    private var reprobeTask: Task<Void, Never>?
    /// The TXT entries of an update that came while probing: every later probe and the announcement carry them.
    private var pendingTXT: [(key: String, value: String)]?
    private var sent = SentMessageLog()

    /// Makes a responder for these interface addresses, whose sockets live on `group`'s event loops.
    public init(interfaces: [IPv4Address], group: any EventLoopGroup, logger: Logger? = nil) {
        self.interfaces = interfaces
        self.group = group
        self.logger = logger ?? Logger(label: "hearth.dnssd.responder")
    }

    deinit {
        // Released without stop(): close the sockets so nothing keeps answering or querying.
        transport?.closeWithoutWaiting()
    }

    /// The service as currently advertised (its name may differ from the one registered), or nil.
    public var service: ServiceInstance? { records?.service }

    /// Whether the service is announced and answers for its name: not probing (again), not stopped.
    var isAnnounced: Bool { phase == .announced }

    /// Probes, announces and then keeps answering for `service`; returns it with the name it won.
    ///
    /// Returns after the first announcement; the second follows a second later. One service per responder.
    public func register(_ service: ServiceInstance) async throws(MDNSError) -> ServiceInstance {
        guard case .idle = phase else { throw .alreadyRegistered }
        do {
            _ = try ServiceRecords.announcement(ServiceRecords(service: service).allRecords).encoded()
        } catch {
            throw .invalidService(error)
        }
        let transport = try await MulticastTransport.open(interfaces: interfaces, group: group, logger: logger)
        self.transport = transport
        receiveTask = Task { [weak self] in
            for await received in transport.incoming {
                await self?.handle(received)
            }
        }
        baseName = service.name
        renames = 0
        // RFC 6762 §8.1: wait 0–250 ms before the first probe.
        try? await Task.sleep(for: .milliseconds(Int.random(in: 0...250)))
        return try await probeUntilWon(service)
    }

    /// Probes `service`, renaming it on each conflict, until a name is won; then announces it and returns it.
    private func probeUntilWon(_ service: ServiceInstance) async throws(MDNSError) -> ServiceInstance {
        var candidate = service
        while true {
            guard phase != .stopped else { throw .notRegistered }
            let outcome = await probe(candidate)
            switch outcome {
            case .won:
                phase = .announced
                if let pendingTXT { candidate.txt = pendingTXT }
                pendingTXT = nil
                await announce()
                return candidate
            case .conflict:
                renames += 1
                guard renames <= Self.maximumRenames else {
                    await shutDown()
                    throw .tooManyConflicts
                }
                candidate.name = "\(baseName) (\(renames + 1))"
                logger.info("mDNS name conflict; renamed", metadata: ["name": "\(candidate.name)"])
                // RFC 6762 §8.1: after 15 conflicts in ten seconds, wait five seconds between attempts.
                if renames >= 15 { try? await Task.sleep(for: .seconds(5)) }
            case .deferred:
                // RFC 6762 §8.2: the loser of a tie-break waits one second and probes again.
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// RFC 6762 §9: after a conflicting answer to an announced record, probe again (and rename if defended).
    private func reprobe() async {
        guard let current = records?.service else { return }
        announceTask?.cancel()
        logger.warning("mDNS conflict after announcing; probing again", metadata: ["name": "\(current.name)"])
        do {
            let won = try await probeUntilWon(current)
            if won.name != current.name {
                logger.info("mDNS name conflict after announcing; renamed", metadata: ["name": "\(won.name)"])
            }
        } catch {
            logger.error("mDNS conflict after announcing could not be resolved", metadata: ["error": "\(error)"])
        }
        reprobeTask = nil
    }

    /// Replaces the TXT entries and announces the new record twice (HAP: when `c#` or `sf` changes).
    ///
    /// While the service probes again after a conflict, the new entries are kept and go out with the announcement
    /// that follows the probe, so an update is never lost.
    public func updateTXT(_ txt: [(key: String, value: String)]) async throws(MDNSError) {
        guard var service = records?.service, phase == .announced || phase == .probing else { throw .notRegistered }
        service.txt = txt
        let updated = ServiceRecords(service: service)
        do {
            _ = try ServiceRecords.announcement([updated.text]).encoded()
        } catch {
            throw .invalidService(error)
        }
        records = updated
        guard phase == .announced else {
            pendingTXT = txt
            return
        }
        await announce(only: [updated.text])
    }

    /// Sends goodbyes (every record with TTL 0) and closes the sockets; the responder cannot be reused.
    public func stop() async {
        if phase == .announced, let records {
            announceTask?.cancel()
            await sendMulticast(ServiceRecords.announcement(records.allRecords, goodbye: true))
        }
        await shutDown()
    }

    private func shutDown() async {
        phase = .stopped
        announceTask?.cancel()
        reprobeTask?.cancel()
        await transport?.close()
        receiveTask?.cancel()
        transport = nil
    }

    private enum ProbeOutcome {
        case won
        case conflict
        case deferred
    }

    private func probe(_ candidate: ServiceInstance) async -> ProbeOutcome {
        var candidate = candidate
        if let pendingTXT { candidate.txt = pendingTXT }
        let candidateRecords = ServiceRecords(service: candidate)
        records = candidateRecords
        phase = .probing
        conflictSeen = false
        lostTieBreak = false
        for index in 0..<Self.probeCount {
            await sendMulticast(candidateRecords.probe(unicastResponseWanted: index == 0))
            try? await Task.sleep(for: Self.probeInterval)
            if conflictSeen { return .conflict }
            if lostTieBreak { return .deferred }
            if phase == .stopped { return .conflict }
        }
        return .won
    }

    private func announce(only subset: [DNSResourceRecord]? = nil) async {
        guard let records else { return }
        let message = ServiceRecords.announcement(subset ?? records.allRecords)
        await sendMulticast(message)
        announceTask?.cancel()
        announceTask = Task { [weak self] in
            try? await Task.sleep(for: Self.announcementInterval)
            guard !Task.isCancelled else { return }
            await self?.sendIfAnnounced(message)
        }
    }

    private func sendIfAnnounced(_ message: DNSMessage) async {
        guard phase == .announced else { return }
        await sendMulticast(message)
    }

    /// Sends on every interface (or one), remembering the message so that hearing it back is no conflict.
    private func sendMulticast(_ message: DNSMessage, on interface: IPv4Address? = nil) async {
        guard let transport else { return }
        sent.record(message, at: .now)
        await transport.sendMulticast(message, on: interface)
    }

    private func handle(_ received: ReceivedMessage) async {
        guard let records else { return }
        let message = received.message
        // Our own response, heard back through multicast loopback, is no conflict even if our records changed since.
        if message.isResponse, sent.contains(message, at: .now) { return }
        switch phase {
        case .probing:
            if message.isResponse {
                if records.conflicts(with: message) { conflictSeen = true }
            } else if records.losesTieBreak(against: message) {
                lostTieBreak = true
            }
        case .announced:
            if message.isResponse {
                if records.conflicts(with: message), reprobeTask == nil {
                    phase = .probing
                    reprobeTask = Task { [weak self] in await self?.reprobe() }
                }
            } else {
                await answer(message, from: received, using: records)
            }
        case .idle, .stopped:
            return
        }
    }

    private func answer(_ query: DNSMessage, from received: ReceivedMessage, using records: ServiceRecords) async {
        let (answers, additionals) = records.response(to: query)
        guard !answers.isEmpty, let transport else { return }
        let flags = DNSMessage.responseFlag | DNSMessage.authoritativeFlag
        if let port = received.source.port, port != MulticastTransport.port {
            // RFC 6762 §6.7: a legacy unicast query gets its ID and questions back, TTLs of at most 10 s and no
            // cache-flush bits, sent to the asker.
            let legacy: (DNSResourceRecord) -> DNSResourceRecord = { record in
                var record = record
                record.ttl = min(record.ttl, 10)
                record.isCacheFlush = false
                return record
            }
            let response = DNSMessage(
                id: query.id,
                flags: flags,
                questions: query.questions,
                answers: answers.map(legacy),
                additionals: additionals.map(legacy)
            )
            await transport.sendUnicast(response, to: received.source, on: received.interface)
            return
        }
        // RFC 6762 §6: shared answers wait 20–120 ms so several responders do not answer at once.
        if answers.contains(where: { !$0.isCacheFlush }) {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 20...120)))
        }
        let response = DNSMessage(flags: flags, answers: answers, additionals: additionals)
        await sendMulticast(response, on: received.interface)
    }
}
