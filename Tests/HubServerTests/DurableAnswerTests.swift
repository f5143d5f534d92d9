import Foundation
import Hub
import Testing

/// A change made through the API is answered only once it is synced to disk; a read or a refusal waits for nothing.
@Suite struct DurableAnswerTests {
    @Test func aChangeIsAnsweredOnlyOnceItIsSynced() async throws {
        // The store's own sync would come only after the test: whatever is synced, the answer synced.
        let fixture = try await Fixture { $0.storeSyncDelay = .seconds(600) }
        let h = fixture.home.id.uuidString
        let o = fixture.owner.token
        try await fixture.withServer { api in
            // Make the hub's state unsynced first: a change not made through the API waits for no sync.
            _ = try await fixture.hub.perform(
                .addRoom(home: fixture.home.id, id: UUID(), name: "Pantry"),
                as: .user(fixture.owner.id)
            )
            #expect(fixture.hub.unsyncedOperations > 0)

            // A read and a refused change are answered without a sync.
            var reply = try await api.call(.get, "/v1/homes/{homeID}/rooms", ["homeID": h], token: o)
            #expect(reply.status == 200)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: fixture.guest.token,
                body: #"{"name": "Cellar"}"#
            )
            #expect(reply.status == 403)
            #expect(fixture.hub.unsyncedOperations > 0)

            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: o,
                body: #"{"name": "Kitchen"}"#
            )
            #expect(reply.status == 201)
            #expect(fixture.hub.unsyncedOperations == 0)
        }
    }
}
