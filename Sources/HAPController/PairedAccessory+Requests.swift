import Foundation
import HAP
import HAPTypes

/// Reads, writes and the request path: they run where their caller runs and cross to the event loop at most once.
extension PairedAccessory {
    /// Reads characteristics in batches of at most ``Configuration/maximumReadBatch``; one result per id.
    ///
    /// An id the accessory leaves out of its answer reads as ``HAPStatus/resourceDoesNotExist``. It runs where its
    /// caller runs: a caller on ``taskExecutor`` makes no executor hop (see ``send(_:path:readQuery:body:)``).
    public nonisolated(nonsending) func read(
        _ ids: [CharacteristicID]
    ) async throws(HAPControllerError) -> [CharacteristicID: Result<HAPValue?, HAPStatus>] {
        let unique = Self.withoutRepeats(ids)
        var results: [CharacteristicID: Result<HAPValue?, HAPStatus>] = Dictionary(minimumCapacity: unique.count)
        var start = 0
        while start < unique.count {
            let chunk =
                unique.count <= configuration.maximumReadBatch
                ? unique : Array(unique[start..<min(start + configuration.maximumReadBatch, unique.count)])
            start += chunk.count
            let response = try await send(
                .get,
                path: "/characteristics",
                readQuery: CharacteristicReadQuery(ids: chunk)
            )
            guard response.status.code == 200 || response.status.code == 207 else {
                throw Self.statusError(response)
            }
            let items = try await itemsOrDrop(response)
            let formats = self.formats
            for item in items {
                if let status = item.status, !status.isSuccess {
                    results[item.id] = .failure(status)
                } else {
                    results[item.id] = .success(Self.converted(item.value, to: formats[item.id]))
                }
            }
            for id in chunk where results[id] == nil { results[id] = .failure(.resourceDoesNotExist) }
        }
        return results
    }

    /// Writes values in one request; one status per characteristic.
    public nonisolated(nonsending) func write(
        _ writes: [(CharacteristicID, HAPValue)]
    ) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        let items = writes.map { id, value in
            Self.writeItem(id, value)
        }
        return try await put(items, preparedWriteID: nil)
    }

    /// Writes values asking for the accessory's answer (`"r": true`, hap-protocol.md §7); one outcome each.
    ///
    /// A success carries the value the accessory answered with, typed by the database's format when it was read;
    /// it is `nil` when the accessory sent none (a characteristic without the `wr` permission answers 204) or null.
    public nonisolated(nonsending) func writeWithResponse(
        _ writes: [(CharacteristicID, HAPValue)]
    ) async throws(HAPControllerError) -> [CharacteristicID: Result<HAPValue?, HAPStatus>] {
        let items = writes.map { id, value in
            var item = Self.writeItem(id, value)
            item.requestsResponse = true
            return item
        }
        var results: [CharacteristicID: Result<HAPValue?, HAPStatus>] = [:]
        let answers = try await exchange(items, preparedWriteID: nil)
        let formats = self.formats
        for (id, answer) in answers {
            results[id] =
                answer.status.isSuccess
                ? .success(Self.converted(answer.value, to: formats[id])) : .failure(answer.status)
        }
        return results
    }

    /// A timed write (hap-protocol.md §7.7): `PUT /prepare` with a fresh id, then the write carrying it.
    public nonisolated(nonsending) func timedWrite(
        _ writes: [(CharacteristicID, HAPValue)],
        timeToLive: Duration = .seconds(5)
    ) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        let preparedWriteID = UInt64.random(in: 1...UInt64(UInt32.max))
        let milliseconds =
            UInt64(max(0, timeToLive.components.seconds)) * 1000
            + UInt64(max(0, timeToLive.components.attoseconds) / 1_000_000_000_000_000)
        let prepare = PrepareWriteRequest(timeToLiveMilliseconds: milliseconds, preparedWriteID: preparedWriteID)
        guard let body = try? HAPJSON.encode(prepare) else { throw .malformedBody }
        let response = try await send(.put, path: "/prepare", body: Array(body))
        guard response.status.code == 200 else { throw Self.statusError(response) }
        if let status = AccessoryConnection.hapStatus(in: response.body), !status.isSuccess {
            throw .accessoryRefused(status)
        }
        let items = writes.map { id, value in
            Self.writeItem(id, value)
        }
        return try await put(items, preparedWriteID: preparedWriteID)
    }

    nonisolated(nonsending) func put(
        _ items: [CharacteristicWriteRequest.Item],
        preparedWriteID: UInt64?
    ) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        try await exchange(items, preparedWriteID: preparedWriteID).mapValues(\.status)
    }

    /// One characteristic's answer to a write: its status and, for a write response, its value.
    private struct WriteAnswer {
        var status: HAPStatus
        var value: HAPValue?
    }

    private nonisolated(nonsending) func exchange(
        _ items: [CharacteristicWriteRequest.Item],
        preparedWriteID: UInt64?
    ) async throws(HAPControllerError) -> [CharacteristicID: WriteAnswer] {
        guard !items.isEmpty else { return [:] }
        let request = CharacteristicWriteRequest(characteristics: items, preparedWriteID: preparedWriteID)
        guard let body = try? HAPJSON.encode(request) else { throw .malformedBody }
        let response = try await send(.put, path: "/characteristics", body: Array(body))
        var results: [CharacteristicID: WriteAnswer] = [:]
        switch response.status.code {
        case 204:
            for item in items { results[item.id] = WriteAnswer(status: .success) }
        case 200, 207:
            for item in try await itemsOrDrop(response) {
                results[item.id] = WriteAnswer(status: item.status ?? .success, value: item.value)
            }
            for item in items where results[item.id] == nil {
                results[item.id] = WriteAnswer(status: .resourceDoesNotExist)
            }
        default:
            throw Self.statusError(response)
        }
        return results
    }

    /// The items of an answer; an answer whose body cannot be read ends the session, because the bytes around it
    /// (a wrong Content-Length, say) cannot be trusted either, and the next session starts clean.
    private nonisolated(nonsending) func itemsOrDrop(
        _ response: HTTPResponse
    ) async throws(HAPControllerError) -> [CharacteristicReadResponse.Item] {
        do {
            return try Self.items(of: response)
        } catch {
            logger.debug("Ending the session after an answer that could not be read", metadata: ["error": "\(error)"])
            await dropSession(failing: error)
            throw error
        }
    }

    /// Closes the channel of the session in use; the reconnect logic makes a new one.
    private func dropSession(failing error: HAPControllerError) async {
        await connection.dropChannel(failing: error)
    }

    /// Sends a hap+json request on the session and returns the answer.
    ///
    /// It runs where its caller runs and crosses to ``eventLoop`` at most once: on the loop (a caller preferring
    /// ``taskExecutor``, or this actor) it goes on at once; elsewhere one job on the loop takes it. There, with the
    /// session open and no request waiting, it is written before the caller suspends and the answer resumes the
    /// caller; otherwise a task sends it in its turn, connecting first if needed
    /// (``AccessoryConnection/startJSONOnLoop(_:path:readQuery:body:waiter:)``).
    nonisolated(nonsending) func send(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery? = nil,
        body: [UInt8] = []
    ) async throws(HAPControllerError) -> HTTPResponse {
        let result: Result<HTTPResponse, HAPControllerError>
        if eventLoop.inEventLoop {
            result = await withUnsafeContinuation { (waiter: AccessoryConnection.Waiter) in
                startOnLoop(method, path: path, readQuery: readQuery, body: body, waiter: waiter)
            }
        } else {
            result = await withUnsafeContinuation { (waiter: AccessoryConnection.Waiter) in
                eventLoop.execute {
                    self.startOnLoop(method, path: path, readQuery: readQuery, body: body, waiter: waiter)
                }
            }
        }
        // A failure to connect has been reported as unreachable on the loop already (`ConnectionEvent.unreachable`).
        return try result.get()
    }

    /// Checks the client is open and listening, then hands the request to the connection; on ``eventLoop``.
    private nonisolated func startOnLoop(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery?,
        body: [UInt8],
        waiter: AccessoryConnection.Waiter
    ) {
        do throws(HAPControllerError) {
            try prepareSendOnLoop().startJSONOnLoop(
                method,
                path: path,
                readQuery: readQuery,
                body: body,
                waiter: waiter
            )
        } catch {
            waiter.resume(returning: .failure(error))
        }
    }

    /// Checks the client is open, starts listening for sessions and events, and returns the connection.
    private func prepareSend() throws(HAPControllerError) -> AccessoryConnection {
        if isClosed { throw .closed }
        listen()
        return connection
    }

    /// ``prepareSend()`` from ``eventLoop``, this actor's executor (``EventLoopBoundActor/runOnLoop(_:)``).
    private nonisolated func prepareSendOnLoop() throws(HAPControllerError) -> AccessoryConnection {
        try runOnLoop { (accessory) throws(HAPControllerError) in try accessory.prepareSend() }
    }

    /// A write item; hap-protocol.md §7.6: bools go out as 0 and 1, which every peer accepts (aiohomekit README).
    static func writeItem(_ id: CharacteristicID, _ value: HAPValue) -> CharacteristicWriteRequest.Item {
        var sent = value
        if case .bool(let flag) = value { sent = .int(flag ? 1 : 0) }
        return CharacteristicWriteRequest.Item(accessoryID: id.accessoryID, instanceID: id.instanceID, value: sent)
    }

    /// `ids` in order with repeats left out; a list without repeats is returned as it is, without a copy.
    static func withoutRepeats(_ ids: [CharacteristicID]) -> [CharacteristicID] {
        // A short list is checked pair by pair, which needs no set.
        if ids.count <= 16 {
            var hasRepeat = false
            for index in ids.indices.dropFirst() where ids[..<index].contains(ids[index]) {
                hasRepeat = true
                break
            }
            if !hasRepeat { return ids }
        }
        var seen: Set<CharacteristicID> = []
        return ids.filter { seen.insert($0).inserted }
    }
}
