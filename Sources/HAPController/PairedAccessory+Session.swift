import Foundation
import HAP
import HAPTypes

/// The session's life: events from the connection, reachability, reconnecting and re-subscribing.
extension PairedAccessory {
    /// Starts hearing the connection's sessions and events, once per connection.
    ///
    /// The connection runs on this actor's event loop and calls the handler there, so the handler enters the actor
    /// without a hop (``EventLoopBoundActor/runOnLoop(_:_:)``).
    func listen() {
        guard !isListening, !isClosed else { return }
        isListening = true
        let handler: @Sendable (ConnectionEvent) -> Void = { [weak self] event in
            self?.runOnLoop(event) { $0.handle($1) }
        }
        connection.runOnLoop(handler) { $0.setEventHandler($1) }
    }

    private func handle(_ event: ConnectionEvent) {
        switch event {
        case .connected:
            // Re-subscribing sends a request, which waits its turn behind the one that opened the session.
            sessionNumber += 1
            let session = sessionNumber
            Task { await self.sessionStarted(session) }
        case .disconnected:
            sessionNumber += 1
            sessionLost()
        case .unreachable:
            setReachable(false)
        case .event(let message):
            deliver(message)
        }
    }

    /// A verified session is up: subscribe again, then report reachable, so the next event is not missed.
    private func sessionStarted(_ session: Int) async {
        guard session == sessionNumber else { return }
        if !subscriptions.isEmpty {
            let ids = subscriptions.sorted { ($0.accessoryID, $0.instanceID) < ($1.accessoryID, $1.instanceID) }
            let items = ids.map {
                CharacteristicWriteRequest.Item(accessoryID: $0.accessoryID, instanceID: $0.instanceID, events: true)
            }
            let request = CharacteristicWriteRequest(characteristics: items)
            if let body = try? HAPJSON.encode(request) {
                do {
                    _ = try await connection.sendJSON(.put, path: "/characteristics", body: Array(body))
                } catch {
                    // The session failed again; its `.disconnected` starts another round.
                    logger.debug("Re-subscribing failed", metadata: ["error": "\(error)"])
                    return
                }
            }
        }
        // The session may have ended while re-subscribing; its `.disconnected` has reported it.
        guard session == sessionNumber else { return }
        setReachable(true)
    }

    func sessionLost() {
        setReachable(false)
        guard !isClosed, reconnect == nil else { return }
        reconnect = Task { [weak self] in
            await self?.reconnectLoop()
        }
    }

    private func reconnectLoop() async {
        var attempt = 0
        let backoff = configuration.backoff
        while !isClosed, !Task.isCancelled {
            let delay = backoff.delay(forAttempt: attempt)
            attempt += 1
            do {
                try await backoff.sleep(delay)
            } catch {
                break
            }
            guard !isClosed else { break }
            do {
                try await connection.connect()
                break
            } catch {
                logger.debug("Reconnect failed", metadata: ["attempt": "\(attempt)", "error": "\(error)"])
                setReachable(false)
            }
        }
        reconnect = nil
    }

    func setReachable(_ reachable: Bool) {
        guard isReachable != reachable else { return }
        isReachable = reachable
        reachabilityContinuation.yield(reachable)
    }

    /// Turns an EVENT message into value changes; unknown characteristics are reported, not delivered.
    private func deliver(_ message: HTTPResponse) {
        guard let decoded = try? HAPJSON.decodeReadResponse(message.body) else {
            eventContinuation.yield(.invalidEvent(.malformedBody))
            return
        }
        var changes: [CharacteristicValueChange] = []
        let formats = self.formats
        for item in decoded.characteristics {
            let format = formats[item.id]
            if database != nil, format == nil {
                eventContinuation.yield(.invalidEvent(.unknownCharacteristic(item.id)))
                continue
            }
            var value = item.value
            if let known = value, let format {
                value = (try? known.converted(to: format)) ?? known
            }
            changes.append(CharacteristicValueChange(id: item.id, value: value))
        }
        if !changes.isEmpty { eventContinuation.yield(.valuesChanged(changes)) }
    }
}
