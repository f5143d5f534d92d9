import HAP
import HAPTypes

extension AccessoryServer {
    /// A read or write checked against the database, waiting only for the backend's values or outcomes.
    enum Prepared<Plan> {
        /// Answered without the backend.
        case answered(RouteOutcome)
        /// The backend must read or write what the plan says.
        case pending(Plan)
    }

    /// A `GET /characteristics` whose items are built, with the ids the backend must read.
    struct ReadPlan {
        var items: [CharacteristicReadResponse.Item]
        var toRead: [CharacteristicID]
    }

    /// A `PUT /characteristics` checked and with its subscriptions changed, with the writes the backend must apply.
    struct WritePlan {
        var request: CharacteristicWriteRequest
        var statuses: [HAPStatus?]
        var values: [HAPValue?]
        var writes: [BackendWrite]
        var writeIndices: [Int]
    }

    /// `GET /characteristics`; hap-protocol.md §7.5, peers/README.md quirk 4.
    func readCharacteristics(
        query: String?,
        session: ConnectionSession,
        connection: ObjectIdentifier
    ) async -> RouteOutcome {
        switch prepareRead(query: query, session: session, connection: connection) {
        case .answered(let outcome):
            return outcome
        case .pending(let plan):
            let values = plan.toRead.isEmpty ? [:] : await backend.read(plan.toRead)
            return completeRead(plan, values: values, session: session)
        }
    }

    /// `GET /characteristics` answered without suspending, or `nil` (nothing done) when the backend cannot read now.
    func readCharacteristicsImmediately(
        query: String?,
        session: ConnectionSession,
        connection: ObjectIdentifier
    ) -> RouteOutcome? {
        switch prepareRead(query: query, session: session, connection: connection) {
        case .answered(let outcome):
            return outcome
        case .pending(let plan):
            if plan.toRead.isEmpty { return completeRead(plan, values: [:], session: session) }
            guard let values = backend.readImmediately(plan.toRead) else { return nil }
            return completeRead(plan, values: values, session: session)
        }
    }

    /// Parses the query and builds one item per id from the database; changes nothing.
    private func prepareRead(
        query: String?,
        session: ConnectionSession,
        connection: ObjectIdentifier
    ) -> Prepared<ReadPlan> {
        guard let query, let parsed = try? CharacteristicReadQuery(query: query) else {
            return .answered(
                RouteOutcome(response: Self.json(.badRequest, status: .invalidValueInRequest), session: session)
            )
        }
        guard !parsed.ids.isEmpty else {
            return .answered(RouteOutcome(response: Self.status(.noContent), session: session))
        }
        var items: [CharacteristicReadResponse.Item] = []
        items.reserveCapacity(parsed.ids.count)
        var toRead: [CharacteristicID] = []
        for id in parsed.ids {
            var item = CharacteristicReadResponse.Item(accessoryID: id.accessoryID, instanceID: id.instanceID)
            if let characteristic = database.characteristic(at: id) {
                do throws(ValueError) {
                    // hap-protocol.md §7.5: ProgrammableSwitchEvent always reads as null over IP.
                    if try characteristic.readValue() == nil, characteristic.type == HAPUUID(apple: 0x73) {
                        item.includesNullValue = true
                        item.status = .success
                    } else {
                        toRead.append(id)
                    }
                } catch {
                    item.status = error.hapStatus
                }
                item.addDetails(of: characteristic, askedFor: parsed)
                if parsed.includesEventState {
                    item.isNotifying = connections[connection]?.subscriptions.contains(id) ?? false
                }
            } else {
                item.status = .resourceDoesNotExist
            }
            items.append(item)
        }
        return .pending(ReadPlan(items: items, toRead: toRead))
    }

    /// The answer once the backend's values are in: 200 when every item succeeded, else 207 with statuses.
    private func completeRead(
        _ plan: ReadPlan,
        values: [CharacteristicID: Result<HAPValue?, HAPStatus>],
        session: ConnectionSession
    ) -> RouteOutcome {
        var items = plan.items
        for index in items.indices where items[index].status == nil {
            switch values[items[index].id] {
            case .success(let value)?:
                items[index].value = value
                items[index].includesNullValue = value == nil
                items[index].status = .success
            case .failure(let status)?:
                items[index].status = status
            case nil:
                items[index].status = .serviceCommunicationFailure
            }
        }
        let allSucceeded = items.allSatisfy { $0.status == .success }
        if allSucceeded {
            for index in items.indices { items[index].status = nil }
        } else {
            for index in items.indices where items[index].status != .success {
                items[index].value = nil
                items[index].includesNullValue = false
            }
        }
        let response = CharacteristicReadResponse(characteristics: items)
        return RouteOutcome(response: Self.json(allSucceeded ? .ok : .multiStatus, response), session: session)
    }

    /// `PUT /characteristics`: writes, subscriptions, write-response and timed writes; hap-protocol.md §7.6–7.7.
    func writeCharacteristics(
        _ body: [UInt8],
        session: ConnectionSession,
        connection: ObjectIdentifier
    ) async -> RouteOutcome {
        var session = session
        switch prepareWrite(body, session: &session, connection: connection) {
        case .answered(let outcome):
            return outcome
        case .pending(let plan):
            let outcomes = plan.writes.isEmpty ? [] : await backend.write(plan.writes)
            return completeWrite(plan, outcomes: outcomes, session: session, connection: connection)
        }
    }

    /// `PUT /characteristics` answered without suspending, or `nil` (nothing done) when the backend cannot write now.
    func writeCharacteristicsImmediately(
        _ body: [UInt8],
        session: ConnectionSession,
        connection: ObjectIdentifier
    ) -> RouteOutcome? {
        guard backend.canWriteImmediately else { return nil }
        var session = session
        switch prepareWrite(body, session: &session, connection: connection) {
        case .answered(let outcome):
            return outcome
        case .pending(let plan):
            // The backend said it can write now; a backend that then does not fails every write.
            let outcomes = plan.writes.isEmpty ? [] : backend.writeImmediately(plan.writes) ?? []
            return completeWrite(plan, outcomes: outcomes, session: session, connection: connection)
        }
    }

    /// Decodes and checks the body, settles timed writes and changes subscriptions; the values are left to write.
    private func prepareWrite(
        _ body: [UInt8],
        session: inout ConnectionSession,
        connection: ObjectIdentifier
    ) -> Prepared<WritePlan> {
        guard let request = try? HAPJSON.decodeWriteRequest(body) else {
            return .answered(
                RouteOutcome(response: Self.json(.badRequest, status: .invalidValueInRequest), session: session)
            )
        }
        var isTimedWrite = false
        if let preparedWriteID = request.preparedWriteID {
            let prepared = session.preparedWrite
            session.preparedWrite = nil
            // hap-protocol.md §7.7: no prepare, another pid or an expired ttl → every item -70410, nothing written.
            guard let prepared, prepared.id == preparedWriteID, uptime() <= prepared.deadline else {
                let items = request.characteristics.map {
                    CharacteristicReadResponse.Item(
                        accessoryID: $0.accessoryID,
                        instanceID: $0.instanceID,
                        status: .invalidValueInRequest
                    )
                }
                let response = CharacteristicReadResponse(characteristics: items)
                return .answered(RouteOutcome(response: Self.json(.multiStatus, response), session: session))
            }
            isTimedWrite = true
        }
        var statuses: [HAPStatus?] = Array(repeating: nil, count: request.characteristics.count)
        var values: [HAPValue?] = Array(repeating: nil, count: request.characteristics.count)
        var writes: [BackendWrite] = []
        var writeIndices: [Int] = []
        for (index, item) in request.characteristics.enumerated() {
            guard let characteristic = database.characteristic(at: item.id) else {
                statuses[index] = .resourceDoesNotExist
                continue
            }
            guard item.value != nil || item.events != nil else {
                statuses[index] = .invalidValueInRequest
                continue
            }
            do throws(ValueError) {
                if let events = item.events {
                    try characteristic.checkNotifiable()
                    if events {
                        connections[connection]?.subscriptions.insert(item.id)
                    } else {
                        connections[connection]?.subscriptions.remove(item.id)
                    }
                }
                if let value = item.value {
                    try characteristic.checkWritable(
                        isTimedWrite: isTimedWrite,
                        hasAuthorizationData: item.authorizationData != nil
                    )
                    let normalized = try characteristic.normalized(value)
                    let wantsResponse = item.requestsResponse == true && characteristic.has(.writeResponse)
                    writes.append(BackendWrite(id: item.id, value: normalized, wantsResponse: wantsResponse))
                    writeIndices.append(index)
                    values[index] = normalized
                }
            } catch {
                statuses[index] = error.hapStatus
            }
        }
        return .pending(
            WritePlan(
                request: request,
                statuses: statuses,
                values: values,
                writes: writes,
                writeIndices: writeIndices
            )
        )
    }

    /// Sends events for what was written and answers: 204 when all succeeded and nothing is sent back, else 207.
    private func completeWrite(
        _ plan: WritePlan,
        outcomes: [BackendWriteOutcome],
        session: ConnectionSession,
        connection: ObjectIdentifier
    ) -> RouteOutcome {
        var statuses = plan.statuses
        var changes: [CharacteristicChange] = []
        var responseValues: [Int: HAPValue?] = [:]
        for (position, index) in plan.writeIndices.enumerated() {
            let outcome =
                position < outcomes.count
                ? outcomes[position] : BackendWriteOutcome(status: .serviceCommunicationFailure)
            statuses[index] = outcome.status
            guard outcome.status.isSuccess else { continue }
            let written = plan.writes[position]
            if written.wantsResponse { responseValues[index] = outcome.value ?? written.value }
            changes.append(CharacteristicChange(id: written.id, value: outcome.value ?? plan.values[index]))
        }
        fanOut(changes, except: connection)
        let allSucceeded = statuses.allSatisfy { $0 == nil || $0 == .success }
        if allSucceeded, responseValues.isEmpty {
            return RouteOutcome(response: Self.status(.noContent), session: session)
        }
        let items = plan.request.characteristics.enumerated().map { index, item in
            var entry = CharacteristicReadResponse.Item(
                accessoryID: item.accessoryID,
                instanceID: item.instanceID,
                status: statuses[index] ?? .success
            )
            if let value = responseValues[index] {
                entry.value = value
                entry.includesNullValue = value == nil
            }
            return entry
        }
        let response = CharacteristicReadResponse(characteristics: items)
        return RouteOutcome(response: Self.json(.multiStatus, response), session: session)
    }
}
