import Foundation
import HomeGraph
import Testing

@testable import HomeStore

/// Who made each change and when survive the log, a snapshot and rows an older Hearth wrote (issue 22's history).
@Suite struct ChangeAuthorTests {
    @Test func theLogAndSnapshotsKeepWhoMadeEachChangeAndWhenAndOlderRowsOpen() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let home = UUID()
        let ada = UUID()
        let at = Date(timeIntervalSince1970: 1_800_000_000.25)
        let store = try HomeStore(folder: fixture.folder)
        var graph = store.graph
        for (operation, by, when) in [
            (HomeOperation.addHome(id: home, name: "Home", roomForEntireHomeID: UUID()), ChangeAuthor.hub, at),
            (.addRoom(home: home, id: UUID(), name: "Kitchen"), .person(ada), at + 1.5),
        ] {
            try graph.apply(operation, by: by, at: when)
            try store.append([LoggedOperation(operation, by: by, at: when)], resulting: graph)
        }
        try await store.close(snapshot: false)
        // A row as an older Hearth wrote it: the operation alone.
        try OldNameTests.appendUnchecked([.addRoom(home: home, id: UUID(), name: "Hall")], toStoreIn: fixture.folder)

        let reopened = try HomeStore(folder: fixture.folder)
        guard case .events(let replayed) = try reopened.graph.changes(after: 0, inHome: home) else {
            Issue.record("the reopened store's history was not kept")
            return
        }
        #expect(replayed.first?.by == .hub && replayed.first?.at == at)
        #expect(replayed.filter { $0.by == .person(ada) }.map(\.at) == [at + 1.5])
        #expect(replayed.last?.by == nil && replayed.last?.at == nil)
        #expect(replayed.filter { $0.by == .person(ada) }.count == 1)

        // Through a snapshot (which holds the history itself), the same.
        try await reopened.close(snapshot: true)
        let fromSnapshot = try HomeStore(folder: fixture.folder)
        #expect(try fromSnapshot.graph.changes(after: 0, inHome: home) == .events(replayed))
        try await fromSnapshot.close()
    }
}
