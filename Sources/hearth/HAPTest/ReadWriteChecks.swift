import Foundation
import HAP
import HAPTypes

/// Checks of `/characteristics`, `/prepare` and events (hap-protocol.md §7.5–7.8).
extension HAPTester {
    /// An answer to a read or write: the HTTP status and the items of its body.
    struct Answer {
        var code: Int
        var items: [CharacteristicReadResponse.Item]

        /// The item for `id`, if the body had one.
        func item(_ id: CharacteristicID) -> CharacteristicReadResponse.Item? { items.first { $0.id == id } }

        /// The HAP status the answer gives `id`: its own, or success for a 200/204 without one.
        func status(_ id: CharacteristicID) -> Int? {
            if let status = item(id)?.status { return status.rawValue }
            return code == 204 || (code == 200 && item(id) != nil) ? 0 : nil
        }
    }

    /// The most characteristics in one request (hap-protocol.md §7.5, Home Assistant's cap).
    static let batch = 49

    /// `GET /characteristics?id=…`.
    func read(_ ids: [CharacteristicID], on session: WireConnection) throws(WireError) -> Answer {
        let list = ids.map(\.description).joined(separator: ",")
        return try answer(session.send(HTTPRequest(method: .get, target: "/characteristics?id=" + list)))
    }

    /// `PUT /characteristics` with these items, and the prepared write id when given.
    func write(
        _ items: [CharacteristicWriteRequest.Item],
        preparedWriteID: UInt64? = nil,
        on session: WireConnection
    ) throws(WireError) -> Answer {
        for item in items where item.events == true {
            session.noteSubscribed(CharacteristicID(accessoryID: item.accessoryID, instanceID: item.instanceID))
        }
        let request = CharacteristicWriteRequest(characteristics: items, preparedWriteID: preparedWriteID)
        guard let body = try? HAPJSON.encode(request) else {
            throw WireError(description: "a write could not be encoded")
        }
        return try answer(
            session.send(
                HTTPRequest(
                    method: .put,
                    target: "/characteristics",
                    headers: ["Content-Type": HTTPContentType.hapJSON.rawValue],
                    body: Array(body)
                )
            )
        )
    }

    private func answer(_ response: HTTPResponse) throws(WireError) -> Answer {
        guard !response.body.isEmpty else { return Answer(code: response.status.code, items: []) }
        guard let decoded = try? HAPJSON.decodeReadResponse(response.body) else {
            throw WireError(
                description:
                    "HTTP \(response.status.code) with a body that is not a characteristics list: \(bodyText(response))"
            )
        }
        return Answer(code: response.status.code, items: decoded.characteristics)
    }

    /// A write item; bools go out as 0 and 1 (hap-protocol.md §7.6).
    func item(_ id: CharacteristicID, _ value: HAPValue) -> CharacteristicWriteRequest.Item {
        var sent = value
        if case .bool(let flag) = value { sent = .int(flag ? 1 : 0) }
        return CharacteristicWriteRequest.Item(accessoryID: id.accessoryID, instanceID: id.instanceID, value: sent)
    }

    /// Every characteristic of the database with its id.
    var characteristics: [(id: CharacteristicID, characteristic: HAPCharacteristic)] {
        guard let database else { return [] }
        return database.accessories.flatMap { accessory in
            accessory.services.flatMap { service in
                service.characteristics.map {
                    (CharacteristicID(accessoryID: accessory.accessoryID, instanceID: $0.instanceID), $0)
                }
            }
        }
    }

    /// Another valid value for a readable, writable characteristic: a flipped bool, another valid value, or the
    /// minimum or maximum; `nil` for strings, bytes and numbers without limits.
    func alternative(to characteristic: HAPCharacteristic) -> HAPValue? {
        guard let value = characteristic.value else { return nil }
        if characteristic.format == .bool { return .bool(value != .bool(true)) }
        guard characteristic.format.isNumeric, let current = value.numericValue else { return nil }
        var candidates: [Double] = []
        if let valid = characteristic.validValues {
            candidates = valid.map(Double.init)
        } else if let range = characteristic.validValuesRange {
            candidates = [Double(range.lowerBound), Double(range.upperBound)]
        } else {
            candidates = [characteristic.minValue, characteristic.maxValue].compactMap { $0 }
        }
        guard let other = candidates.first(where: { abs($0 - current) > 1e-6 }) else { return nil }
        return try? characteristic.normalized(.float(other))
    }

    /// Whether two values are the same, floats within a thousandth.
    func same(_ left: HAPValue?, _ right: HAPValue?) -> Bool {
        if let a = left?.numericValue, let b = right?.numericValue { return abs(a - b) < 0.001 }
        if case .bool(let flag)? = left, let b = right?.numericValue { return (flag ? 1 : 0) == b }
        if case .bool(let flag)? = right, let a = left?.numericValue { return (flag ? 1 : 0) == a }
        return left == right
    }

    func runReadWriteChecks() {
        let checks = [
            Checks.readAll, Checks.writeRestore, Checks.writeReadOnly, Checks.readWriteOnly, Checks.outOfRange,
            Checks.unknownIID, Checks.timedWrite, Checks.writeResponse,
        ]
        guard database != nil, let session = session(for: Checks.readAll) else {
            for check in checks { record(check, .skipped, ["needs the database and a session"]) }
            return
        }
        defer { session.close() }
        checkReadAll(on: session)
        checkWriteRestore(on: session)
        checkStatuses(on: session)
        checkTimedWrite(on: session)
        checkWriteResponse(on: session)
    }

    private func checkReadAll(on session: WireConnection) {
        let readable = characteristics.filter { $0.characteristic.has(.read) }
        var problems: [String] = []
        var start = 0
        while start < readable.count {
            let chunk = Array(readable[start..<min(start + Self.batch, readable.count)])
            start += Self.batch
            do {
                let answer = try read(chunk.map(\.id), on: session)
                if answer.code != 200 {
                    problems.append("reading \(chunk.count) characteristics answered HTTP \(answer.code)")
                }
                for (id, characteristic) in chunk {
                    guard let item = answer.item(id) else {
                        problems.append("\(id) is missing from the answer")
                        continue
                    }
                    if let status = item.status, status != .success {
                        problems.append("\(id) read with status \(status.rawValue)")
                    }
                    if let value = item.value, (try? characteristic.normalized(value)) == nil {
                        problems.append("\(id) read as \(value), outside its format or metadata")
                    }
                }
            } catch {
                problems.append(error.description)
                break
            }
        }
        record(Checks.readAll, problems: problems, passDetails: ["\(readable.count) characteristics read"])
    }

    private func checkWriteRestore(on session: WireConnection) {
        let writable = characteristics.filter {
            $0.characteristic.has(.read) && $0.characteristic.has(.write) && !$0.characteristic.has(.timedWrite)
                && !$0.characteristic.has(.additionalAuthorization) && $0.characteristic.value != nil
        }
        var problems: [String] = []
        var start = 0
        var changed = 0
        while start < writable.count {
            let chunk = Array(writable[start..<min(start + Self.batch, writable.count)])
            start += Self.batch
            let plan = chunk.map {
                ($0.id, $0.characteristic.value, alternative(to: $0.characteristic) ?? $0.characteristic.value)
            }
            do {
                let written = try write(plan.compactMap { id, _, new in new.map { item(id, $0) } }, on: session)
                if written.code != 204, written.code != 207 { problems.append("a write answered HTTP \(written.code)") }
                for (id, _, _) in plan where written.status(id) != 0 {
                    problems.append("writing \(id) answered status \(written.status(id).map(String.init) ?? "none")")
                }
                let back = try read(plan.map(\.0), on: session)
                for (id, _, new) in plan where !same(back.item(id)?.value, new) {
                    problems.append(
                        "\(id) was written \(new.map(\.description) ?? "null") but reads \(back.item(id)?.value?.description ?? "null")"
                    )
                }
                changed += plan.filter { !same($0.1, $0.2) }.count
                let restored = try write(plan.compactMap { id, old, _ in old.map { item(id, $0) } }, on: session)
                for (id, _, _) in plan where restored.status(id) != 0 {
                    problems.append("restoring \(id) answered status \(restored.status(id).map(String.init) ?? "none")")
                }
            } catch {
                problems.append(error.description)
                break
            }
        }
        record(
            Checks.writeRestore,
            problems: problems,
            passDetails: ["\(writable.count) characteristics written (\(changed) to another value) and restored"]
        )
    }

    private func checkStatuses(on session: WireConnection) {
        let all = characteristics
        // Writing a read-only characteristic.
        if let readOnly = all.first(where: {
            $0.characteristic.has(.read) && !$0.characteristic.has(.write) && $0.characteristic.value != nil
        }),
            let value = readOnly.characteristic.value
        {
            expect(Checks.writeReadOnly, -70404, "writing read-only \(readOnly.id)") { () throws(WireError) in
                try write([item(readOnly.id, value)], on: session).status(readOnly.id)
            }
        } else {
            record(Checks.writeReadOnly, .skipped, ["no read-only characteristic"])
        }
        if let writeOnly = all.first(where: { $0.characteristic.has(.write) && !$0.characteristic.has(.read) }) {
            expect(Checks.readWriteOnly, -70405, "reading write-only \(writeOnly.id)") { () throws(WireError) in
                try read([writeOnly.id], on: session).status(writeOnly.id)
            }
        } else {
            record(Checks.readWriteOnly, .skipped, ["no write-only characteristic"])
        }
        let ranged = all.first {
            $0.characteristic.has(.write) && $0.characteristic.has(.read) && $0.characteristic.format.isNumeric
                && $0.characteristic.maxValue != nil && !$0.characteristic.has(.timedWrite)
        }
        if let ranged, let maximum = ranged.characteristic.maxValue {
            let step = ranged.characteristic.minStep ?? 1
            let outside: HAPValue =
                ranged.characteristic.format == .float ? .float(maximum + step * 10) : .int(Int64(maximum + step * 10))
            expect(Checks.outOfRange, -70410, "writing \(outside) to \(ranged.id) (maxValue \(maximum))") {
                () throws(WireError) in
                let status = try write([item(ranged.id, outside)], on: session).status(ranged.id)
                if status == 0, let old = ranged.characteristic.value {
                    _ = try write([item(ranged.id, old)], on: session)
                }
                return status
            }
        } else {
            record(Checks.outOfRange, .skipped, ["no writable number with a maxValue"])
        }
        let unknown = CharacteristicID(accessoryID: 1, instanceID: 987_654)
        var problems: [String] = []
        do {
            let readStatus = try read([unknown], on: session).status(unknown)
            if readStatus != -70409 {
                problems.append("reading \(unknown) answered status \(readStatus.map(String.init) ?? "none")")
            }
            let writeStatus = try write([item(unknown, .int(1))], on: session).status(unknown)
            if writeStatus != -70409 {
                problems.append("writing \(unknown) answered status \(writeStatus.map(String.init) ?? "none")")
            }
        } catch {
            problems.append(error.description)
        }
        record(Checks.unknownIID, problems: problems)
    }

    /// Records a pass when `body` gives `status`, else a failure saying what it gave.
    private func expect(
        _ check: CheckDefinition,
        _ status: Int,
        _ what: String,
        _ body: () throws(WireError) -> Int?
    ) {
        do {
            let seen = try body()
            if seen == status {
                record(check, .pass)
            } else {
                record(check, .fail, ["\(what) answered status \(seen.map(String.init) ?? "none"), not \(status)"])
            }
        } catch {
            record(check, .fail, ["\(what): \(error)"])
        }
    }

    private func checkTimedWrite(on session: WireConnection) {
        guard
            let timed = characteristics.first(where: {
                $0.characteristic.has(.timedWrite) && $0.characteristic.value != nil
            }),
            let value = timed.characteristic.value
        else {
            record(Checks.timedWrite, .skipped, ["no characteristic requires timed writes (tw)"])
            return
        }
        var problems: [String] = []
        do {
            let plain = try write([item(timed.id, value)], on: session).status(timed.id)
            if plain != -70410 {
                problems.append(
                    "writing \(timed.id) without /prepare answered status \(plain.map(String.init) ?? "none")"
                )
            }
            let pid = UInt64.random(in: 1...UInt64(UInt32.max))
            guard
                let body = try? HAPJSON.encode(PrepareWriteRequest(timeToLiveMilliseconds: 5000, preparedWriteID: pid))
            else { return }
            let prepared = try session.send(
                HTTPRequest(
                    method: .put,
                    target: "/prepare",
                    headers: ["Content-Type": HTTPContentType.hapJSON.rawValue],
                    body: Array(body)
                )
            )
            if prepared.status.code != 200 {
                problems.append("PUT /prepare answered HTTP \(prepared.status.code) \(bodyText(prepared))")
            }
            let executed = try write([item(timed.id, value)], preparedWriteID: pid, on: session).status(timed.id)
            if executed != 0 {
                problems.append(
                    "the prepared write of \(timed.id) answered status \(executed.map(String.init) ?? "none")"
                )
            }
        } catch {
            problems.append(error.description)
        }
        record(Checks.timedWrite, problems: problems)
    }

    private func checkWriteResponse(on session: WireConnection) {
        guard
            let target = characteristics.first(where: {
                $0.characteristic.has(.writeResponse) && $0.characteristic.has(.write)
                    && !$0.characteristic.has(.timedWrite)
                    && $0.characteristic.value != nil
            }), let value = target.characteristic.value
        else {
            record(Checks.writeResponse, .skipped, ["no characteristic supports write-response (wr)"])
            return
        }
        var request = item(target.id, value)
        request.requestsResponse = true
        do {
            let answer = try write([request], on: session)
            if answer.code == 207, answer.status(target.id) == 0, answer.item(target.id)?.value != nil {
                record(Checks.writeResponse, .pass)
            } else {
                record(
                    Checks.writeResponse,
                    .fail,
                    [
                        "answered HTTP \(answer.code), status \(answer.status(target.id).map(String.init) ?? "none"), value \(answer.item(target.id)?.value?.description ?? "none")"
                    ]
                )
            }
        } catch {
            record(Checks.writeResponse, .fail, [error.description])
        }
    }

    func checkEvents() {
        guard let (id, old, new, listener, writer) = eventSessions(for: Checks.events) else { return }
        defer {
            listener.close()
            writer.close()
        }
        var problems: [String] = []
        do {
            var subscribe = CharacteristicWriteRequest.Item(
                accessoryID: id.accessoryID,
                instanceID: id.instanceID,
                events: true
            )
            let subscribed = try write([subscribe], on: listener)
            if subscribed.status(id) != 0 {
                problems.append(
                    "subscribing to \(id) answered status \(subscribed.status(id).map(String.init) ?? "none")"
                )
            }
            _ = try write([item(id, new)], on: writer)
            let changed = try event(for: id, on: listener, within: 3)
            if changed == nil { problems.append("no event for \(id) within 3 s of writing \(new) on another session") }
            if let changed, !same(changed.value, new) {
                problems.append("the event for \(id) carried \(changed.value?.description ?? "null"), not \(new)")
            }
            subscribe.events = false
            _ = try write([subscribe], on: listener)
            _ = try write([item(id, old)], on: writer)
            if let late = try event(for: id, on: listener, within: 1.5) {
                problems.append("an event came after unsubscribing: \(id) = \(late.value?.description ?? "null")")
            }
        } catch {
            problems.append(error.description)
            _ = try? write([item(id, old)], on: writer)
        }
        record(Checks.events, problems: problems, passDetails: ["on \(id)"])
    }

    /// The first event item for `id` on `session` within `seconds`; events for other characteristics are passed
    /// over (the connection notes those it never subscribed to).
    func event(
        for id: CharacteristicID,
        on session: WireConnection,
        within seconds: Double
    ) throws(WireError) -> CharacteristicReadResponse.Item? {
        let deadline = Date().addingTimeInterval(seconds)
        while let message = try session.nextEvent(within: max(0, deadline.timeIntervalSinceNow)) {
            let items = (try? HAPJSON.decodeReadResponse(message.body))?.characteristics ?? []
            if let item = items.first(where: { $0.id == id }) { return item }
            guard Date() < deadline else { return nil }
        }
        return nil
    }
}
