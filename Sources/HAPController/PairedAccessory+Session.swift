import Foundation
import HAP

/// The session's life: events from the connection, reachability, reconnecting and re-subscribing.
extension PairedAccessory {
    /// Starts following the connection's events, once.
    func startPump() {
        guard pump == nil, !isClosed else { return }
        let events = connection.events
        pump = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handle(event)
            }
        }
    }

    private func handle(_ event: ConnectionEvent) async {
        switch event {
        case .connected:
            await sessionStarted()
        case .disconnected:
            sessionLost()
        case .event(let message):
            deliver(message)
        }
    }

    /// A verified session is up: subscribe again, then report reachable, so the next event is not missed.
    private func sessionStarted() async {
        if !subscriptions.isEmpty {
            let ids = subscriptions.sorted { ($0.accessoryID, $0.instanceID) < ($1.accessoryID, $1.instanceID) }
            let items = ids.map {
                CharacteristicWriteRequest.Item(accessoryID: $0.accessoryID, instanceID: $0.instanceID, events: true)
            }
            let request = CharacteristicWriteRequest(characteristics: items)
            if let body = try? HAPJSON.encode(request) {
                let headers: HTTPHeaders = [
                    "Host": connection.hostHeader, "Content-Type": HTTPContentType.hapJSON.rawValue,
                ]
                do {
                    _ = try await connection.send(
                        HTTPRequest(method: .put, target: "/characteristics", headers: headers, body: Array(body))
                    )
                } catch {
                    // The session failed again; its `.disconnected` starts another round.
                    logger.debug("Re-subscribing failed", metadata: ["error": "\(error)"])
                    return
                }
            }
        }
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
        guard let decoded = try? HAPJSON.decode(CharacteristicReadResponse.self, from: Data(message.body)) else {
            eventContinuation.yield(.invalidEvent(.malformedBody))
            return
        }
        var changes: [CharacteristicValueChange] = []
        for item in decoded.characteristics {
            if let database, database.characteristic(at: item.id) == nil {
                eventContinuation.yield(.invalidEvent(.unknownCharacteristic(item.id)))
                continue
            }
            var value = item.value
            if let known = value, let format = database?.characteristic(at: item.id)?.format {
                value = (try? known.converted(to: format)) ?? known
            }
            changes.append(CharacteristicValueChange(id: item.id, value: value))
        }
        if !changes.isEmpty { eventContinuation.yield(.valuesChanged(changes)) }
    }
}
