import Foundation
import HearthAPI
import HomeGraph
import Hub
import HubServer
import Testing

@Suite(.serialized) struct EventSocketTests {
    /// Waits for the hello, then starts live events at once.
    func start(_ client: EventClient) async throws -> [String: Any] {
        let hello = try #require(try await client.first { $0["hello"] != nil }?.message["hello"] as? [String: Any])
        client.send(#"{"resume": {}}"#)
        return hello
    }

    @Test func aChangeByOneClientReachesTheOtherLiveAndInOrder() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        let room = fixture.home.roomForEntireHome.id.uuidString
        // A grace far longer than any delivery on a loaded machine: an event held back until it ends would miss.
        try await fixture.withServer(resumeGrace: .seconds(60)) { api in
            let owner = EventClient(port: api.port, token: fixture.owner.token)
            let guest = EventClient(port: api.port, token: fixture.guest.token)
            defer {
                owner.close()
                guest.close()
            }
            let hello = try await start(guest)
            _ = try await start(owner)
            let homes = try #require(hello["homes"] as? [[String: Any]])
            var sequence = try #require(homes.first?["sequence"] as? Int)
            try await Task.sleep(for: .milliseconds(100))
            var latencies: [Duration] = []
            for round in 1...5 {
                let name = "Hall \(round)"
                let sent = ContinuousClock.now
                let reply = try await api.call(
                    .patch,
                    "/v1/homes/{homeID}/rooms/{roomID}",
                    ["homeID": h, "roomID": room],
                    token: fixture.owner.token,
                    body: #"{"name": "\#(name)"}"#
                )
                #expect(reply.status == 200)
                // Waited for longer than the bound below, so that bound is what fails a slow event; one held
                // back until the grace ended (60 s) misses even this wait.
                let arrival = try #require(
                    try await guest.first(timeout: .seconds(30)) { message in
                        let event = message["event"] as? [String: Any]
                        let change = event?["change"] as? [String: Any]
                        return change?["type"] as? String == "roomRenamed" && change?["new"] as? String == name
                    }
                )
                let event = try #require(arrival.message["event"] as? [String: Any])
                sequence += 1
                #expect(event["homeID"] as? String == h)
                #expect(event["sequence"] as? Int == sequence)
                latencies.append(arrival.at - sent)
                // The client that made the change hears it too.
                #expect(
                    try await owner.first { ($0["event"] as? [String: Any])?["sequence"] as? Int == sequence } != nil
                )
            }
            let sorted = latencies.sorted()
            print("event latency, request sent → other client received: \(sorted)")
            // Live, not held back by the resume grace (60 s here). The 50 ms target is measured by
            // Benchmarks/HubAPILoad (fan-out), not by a timed test on a machine that runs every suite at once.
            #expect(sorted[4] < .seconds(20), "slowest \(sorted[4])")
            #expect(guest.events.count == 5, "exactly one event per change")
        }
    }

    /// Live events go from the hub's commit straight into the socket; a client message in the middle of a series
    /// brings them back through the session, which must neither repeat nor drop nor reorder one.
    @Test func resumesAmongLiveEventsRepeatNoneAndMissNone() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        let room = fixture.home.roomForEntireHome.id.uuidString
        try await fixture.withServer(resumeGrace: .seconds(60)) { api in
            let client = EventClient(port: api.port, token: fixture.guest.token)
            defer { client.close() }
            let hello = try await start(client)
            let homes = try #require(hello["homes"] as? [[String: Any]])
            let first = try #require(homes.first?["sequence"] as? Int)
            let changes = 60
            for round in 0..<changes {
                let reply = try await api.call(
                    .patch,
                    "/v1/homes/{homeID}/rooms/{roomID}",
                    ["homeID": h, "roomID": room],
                    token: fixture.owner.token,
                    body: #"{"name": "Hall \#(round)"}"#
                )
                #expect(reply.status == 200)
                // A resume from the start every few changes, while live events go out: each is answered with
                // nothing already sent, and the events after it neither overtake nor repeat.
                if round % 6 == 2 { client.send(#"{"resume": {"\#(h)": \#(first)}}"#) }
            }
            _ = try await client.first(timeout: .seconds(30)) {
                ($0["event"] as? [String: Any])?["sequence"] as? Int == first + changes
            }
            try await Task.sleep(for: .milliseconds(300))
            let sequences = client.events.compactMap { $0["sequence"] as? Int }
            #expect(sequences == Array((first + 1)...(first + changes)))
        }
    }

    @Test func aClientThatReconnectsGetsExactlyTheMissedEvents() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        let o = fixture.owner.token
        try await fixture.withServer { api in
            let first = EventClient(port: api.port, token: fixture.guest.token)
            _ = try await start(first)
            var reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: o,
                body: #"{"name": "A"}"#
            )
            #expect(reply.status == 201)
            let seen = try #require(try await first.first { $0["event"] != nil })
            let last = try #require((seen.message["event"] as? [String: Any])?["sequence"] as? Int)
            first.close()
            _ = try await first.task.value
            // Three changes while the client is away.
            for name in ["B", "C", "D"] {
                reply = try await api.call(
                    .post,
                    "/v1/homes/{homeID}/rooms",
                    ["homeID": h],
                    token: o,
                    body: #"{"name": "\#(name)"}"#
                )
                #expect(reply.status == 201)
            }
            let second = EventClient(port: api.port, token: fixture.guest.token)
            defer { second.close() }
            _ = try #require(try await second.first { $0["hello"] != nil })
            second.send(#"{"resume": {"\#(h)": \#(last)}}"#)
            _ = try await second.messages(count: 4)
            // Then one live change, which must come once, after the missed ones.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: o,
                body: #"{"name": "E"}"#
            )
            _ = try await second.messages(count: 5)
            try await Task.sleep(for: .milliseconds(300))
            let events = second.events
            #expect(events.map { $0["sequence"] as? Int } == [last + 1, last + 2, last + 3, last + 4])
            // The change is in its documented wire form: {"type": "roomAdded", "room": {…}}.
            let names = events.compactMap { event -> String? in
                guard let change = event["change"] as? [String: Any], change["type"] as? String == "roomAdded" else {
                    return nil
                }
                return (change["room"] as? [String: Any])?["name"] as? String
            }
            #expect(names == ["B", "C", "D", "E"])
        }
    }

    @Test func everyClientGetsTheSameTextOfAnEventLiveOrResumedAndItIsTheHubsEvent() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        let room = fixture.home.roomForEntireHome.id.uuidString
        try await fixture.withServer { api in
            let live = [
                EventClient(port: api.port, token: fixture.owner.token),
                EventClient(port: api.port, token: fixture.guest.token),
                EventClient(port: api.port, token: fixture.owner.token),
            ]
            defer { live.forEach { $0.close() } }
            var before = 0
            for client in live {
                let homes = try #require(try await start(client)["homes"] as? [[String: Any]])
                before = try #require(homes.first?["sequence"] as? Int)
            }
            try await Task.sleep(for: .milliseconds(100))
            let reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/rooms/{roomID}",
                ["homeID": h, "roomID": room],
                token: fixture.owner.token,
                body: #"{"name": "Everywhere"}"#
            )
            #expect(reply.status == 200)
            let sequence = before + 1
            func text(of client: EventClient) async throws -> String? {
                _ = try await client.first { ($0["event"] as? [String: Any])?["sequence"] as? Int == sequence }
                return client.received.first { EventClient.parse($0.text)["event"] != nil }?.text
            }
            var texts: [String] = []
            for client in live { texts.append(try #require(try await text(of: client))) }
            // A client that resumes from before the change gets it from the history, with the same text.
            let late = EventClient(port: api.port, token: fixture.guest.token)
            defer { late.close() }
            _ = try #require(try await late.first { $0["hello"] != nil })
            late.send(#"{"resume": {"\#(h)": \#(before)}}"#)
            texts.append(try #require(try await text(of: late)))
            #expect(Set(texts).count == 1)
            let decoded = try JSONDecoder.api.decode(ServerMessage.self, from: Data(texts[0].utf8))
            let history = try await fixture.hub.changes(
                after: UInt64(before),
                inHome: fixture.home.id,
                as: .user(fixture.owner.id)
            )
            guard case .events(let events) = history else {
                Issue.record("the change is no longer kept")
                return
            }
            #expect(decoded == .event(try #require(events.first)))
        }
    }

    @Test func aResumeFromChangesNoLongerKeptAsksForAReload() async throws {
        let fixture = try await Fixture(historyLimit: 2)
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            for name in ["A", "B", "C", "D"] {
                _ = try await api.call(
                    .post,
                    "/v1/homes/{homeID}/rooms",
                    ["homeID": h],
                    token: fixture.owner.token,
                    body: #"{"name": "\#(name)"}"#
                )
            }
            let client = EventClient(port: api.port, token: fixture.owner.token)
            defer { client.close() }
            _ = try #require(try await client.first { $0["hello"] != nil })
            client.send(#"{"resume": {"\#(h)": 0}}"#)
            let reload = try #require(try await client.first { $0["reloadRequired"] != nil })
            let body = try #require(reload.message["reloadRequired"] as? [String: Any])
            #expect(body["homeID"] as? String == h)
            #expect(
                body["currentSequence"] as? Int == Int(fixture.hub.graph.lastSequence(ofHome: fixture.home.id))
            )
            let reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/changes",
                ["homeID": h],
                token: fixture.owner.token,
                query: "?after=0"
            )
            #expect(reply.status == 200 && reply["reloadRequired"] as? Bool == true)
        }
    }

    @Test func revokingATokenClosesItsWebSocketAtOnce() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let reply = try await api.call(
                .post,
                "/v1/me/tokens",
                token: fixture.guest.token,
                body: #"{"label": "phone"}"#
            )
            let token = try #require(reply["token"] as? String)
            let tokenID = try #require(reply["tokenID"] as? String)
            let client = EventClient(port: api.port, token: token)
            _ = try await start(client)
            let revoked = ContinuousClock.now
            #expect(
                try await api.call(.delete, "/v1/me/tokens/{tokenID}", ["tokenID": tokenID], token: fixture.guest.token)
                    .status
                    == 204
            )
            let close = try await client.task.value
            print("closed \(ContinuousClock.now - revoked) after the revoking request was sent")
            #expect(close?.closeCode == .policyViolation)
            #expect(close?.reason?.contains("revoked") == true)
        }
    }

    @Test func removingAUserFromTheirHomeClosesTheirWebSocket() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            let client = EventClient(port: api.port, token: fixture.guest.token)
            _ = try await start(client)
            try await Task.sleep(for: .milliseconds(50))
            let reply = try await api.call(
                .delete,
                "/v1/homes/{homeID}/users/{userID}",
                ["homeID": h, "userID": fixture.guest.id.uuidString],
                token: fixture.owner.token
            )
            #expect(reply.status == 200)
            let close = try await client.task.value
            #expect(close?.closeCode == .policyViolation)
            // The last thing the user heard was their own removal.
            let change = client.events.last?["change"] as? [String: Any]
            #expect(change?["type"] as? String == "userRemoved")
            #expect(change?["userID"] as? String == fixture.guest.id.uuidString)
            // And the socket cannot be reopened to see the home.
            let again = EventClient(port: api.port, token: fixture.guest.token)
            let hello = try #require(try await again.first { $0["hello"] != nil }?.message["hello"] as? [String: Any])
            #expect((hello["homes"] as? [Any])?.isEmpty == true)
            again.close()
        }
    }

    @Test func aSilentClientGetsLiveEventsAfterTheGraceAndAMalformedMessageIsAnswered() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        try await fixture.withServer(resumeGrace: .milliseconds(200)) { api in
            let client = EventClient(port: api.port, token: fixture.admin.token)
            defer { client.close() }
            _ = try #require(try await client.first { $0["hello"] != nil })
            let reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: fixture.owner.token,
                body: #"{"name": "Loft"}"#
            )
            #expect(reply.status == 201)
            #expect(try await client.first { $0["event"] != nil } != nil, "held events flow after the grace period")
            client.send(#"{"resume": {"\#(h)": "yesterday"}}"#)
            let error = try #require(try await client.first { $0["error"] != nil })
            #expect((error.message["error"] as? [String: Any])?["code"] as? String == "invalidRequest")
            client.send(#"{"resume": {"\#(UUID().uuidString)": 0}}"#)
            let unknown = try #require(
                try await client.first { ($0["error"] as? [String: Any])?["code"] as? String == "notFound" }
            )
            #expect(unknown.message["error"] != nil)
        }
    }

    @Test func aWebSocketWithoutAValidTokenIsRefused() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let client = EventClient(port: api.port, token: "hearth_wrong")
            await #expect(throws: (any Error).self) { _ = try await client.task.value }
            #expect(client.received.isEmpty)
            let reply = try await api.call(.get, "/v1/events", token: "hearth_wrong")
            #expect(reply.status == 401)
        }
    }

    @Test func aRefusedUpgradeIsAnswered401WithTheJSONErrorBody() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            for headers in [[], [("Authorization", "Bearer hearth_wrong")], [("Authorization", "Basic eDp5")]] {
                let socket = try BrowserEventSocketTests.BrowserSocket(port: api.port, headers: headers)
                let answer = try #require(await socket.answer(), "\(headers)")
                #expect(answer.head.hasPrefix("HTTP/1.1 401"), "\(headers): \(answer.head)")
                #expect(answer.head.lowercased().contains("content-type: application/json"))
                let body = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
                #expect((body?["error"] as? [String: Any])?["code"] as? String == "unauthorized", "\(answer.body)")
            }
            // A valid token still upgrades.
            let socket = try BrowserEventSocketTests.BrowserSocket(
                port: api.port,
                headers: [("Authorization", "Bearer \(fixture.owner.token)")]
            )
            let answer = try #require(await socket.answer())
            #expect(answer.head.hasPrefix("HTTP/1.1 101"), "\(answer.head)")
        }
    }
}
