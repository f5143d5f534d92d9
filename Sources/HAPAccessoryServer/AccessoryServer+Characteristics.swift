import HAP

extension AccessoryServer {
    /// `GET /characteristics`; hap-protocol.md §7.5, peers/README.md quirk 4.
    func readCharacteristics(
        query: String?,
        session: ConnectionSession,
        connection: ObjectIdentifier
    ) async -> RouteOutcome {
        guard let query, let parsed = try? CharacteristicReadQuery(query: query) else {
            return RouteOutcome(response: Self.json(.badRequest, status: .invalidValueInRequest), session: session)
        }
        guard !parsed.ids.isEmpty else { return RouteOutcome(response: Self.status(.noContent), session: session) }
        var items: [CharacteristicReadResponse.Item] = []
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
        let values = toRead.isEmpty ? [:] : await backend.read(toRead)
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
        guard let request = try? HAPJSON.decodeWriteRequest(body) else {
            return RouteOutcome(response: Self.json(.badRequest, status: .invalidValueInRequest), session: session)
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
                return RouteOutcome(response: Self.json(.multiStatus, response), session: session)
            }
            isTimedWrite = true
        }
        var statuses: [HAPStatus?] = Array(repeating: nil, count: request.characteristics.count)
        var values: [HAPValue?] = Array(repeating: nil, count: request.characteristics.count)
        var writes: [CharacteristicWrite] = []
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
                    writes.append(CharacteristicWrite(id: item.id, value: normalized, wantsResponse: wantsResponse))
                    writeIndices.append(index)
                    values[index] = normalized
                }
            } catch {
                statuses[index] = error.hapStatus
            }
        }
        let outcomes = writes.isEmpty ? [] : await backend.write(writes)
        var changes: [CharacteristicChange] = []
        var responseValues: [Int: HAPValue?] = [:]
        for (position, index) in writeIndices.enumerated() {
            let outcome =
                position < outcomes.count ? outcomes[position] : WriteOutcome(status: .serviceCommunicationFailure)
            statuses[index] = outcome.status
            guard outcome.status.isSuccess else { continue }
            let written = writes[position]
            if written.wantsResponse { responseValues[index] = outcome.value ?? written.value }
            changes.append(CharacteristicChange(id: written.id, value: outcome.value ?? values[index]))
        }
        fanOut(changes, except: connection)
        let allSucceeded = statuses.allSatisfy { $0 == nil || $0 == .success }
        if allSucceeded, responseValues.isEmpty {
            return RouteOutcome(response: Self.status(.noContent), session: session)
        }
        let items = request.characteristics.enumerated().map { index, item in
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
