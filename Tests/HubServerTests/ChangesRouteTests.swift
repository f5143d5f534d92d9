import Foundation
import Hub
import Testing

/// `GET /v1/homes/{id}/changes`: `after` resumes, `last` gives a history view its newest changes.
@Suite struct ChangesRouteTests {
    @Test func theNewestChangesAndBadQueries() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        let o = fixture.owner.token
        try await fixture.withServer { api in
            for name in ["Pantry", "Cellar", "Loft"] {
                let reply = try await api.call(
                    .post,
                    "/v1/homes/{homeID}/rooms",
                    ["homeID": h],
                    token: o,
                    body: #"{"name": "\#(name)"}"#
                )
                #expect(reply.status == 201)
            }
            let current = fixture.hub.graph.lastSequence(ofHome: fixture.home.id)
            var reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/changes",
                ["homeID": h],
                token: o,
                query: "?last=2"
            )
            #expect(reply.status == 200)
            let events = reply.array("events")
            #expect(events.compactMap { ($0["sequence"] as? NSNumber)?.uint64Value } == [current - 1, current])
            #expect(
                events.compactMap { ($0["change"] as? [String: Any])?["type"] as? String } == [
                    "roomAdded", "roomAdded",
                ]
            )
            #expect((reply["currentSequence"] as? NSNumber)?.uint64Value == current)
            #expect(reply["reloadRequired"] as? Bool == false)

            // Asking for more than are kept gives all of them.
            reply = try await api.call(.get, "/v1/homes/{homeID}/changes", ["homeID": h], token: o, query: "?last=1000")
            #expect(reply.array("events").count == Int(current))

            for query in ["?last=0", "?last=1001", "?last=two", "?last=2&after=1", ""] {
                reply = try await api.call(.get, "/v1/homes/{homeID}/changes", ["homeID": h], token: o, query: query)
                #expect(reply.status == 400, "\(query)")
                #expect(reply.errorCode == "invalidRequest", "\(query)")
                #expect(reply.errorMessage.contains("'last'") || reply.errorMessage.contains("'after'"), "\(query)")
            }
            // Not a user of the home: not found, as for every call about it.
            reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/changes",
                ["homeID": h],
                token: fixture.stranger.token,
                query: "?last=2"
            )
            #expect(reply.status == 404)
        }
    }
}
