import Foundation
import HomeGraph
import HomeStore
import Testing

/// The state folder holds the home and its key: only its owner may read any of it (issue 20).
@Suite struct PrivateFilesTests {
    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func everyFileOfANewStoreIsReadableOnlyByItsOwner() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let folder = fixture.folder + "/state"
        let store = try HomeStore(folder: folder)
        let (_, operations) = fixture.homeOperations(lamps: 2)
        for operation in operations { _ = try store.apply(operation) }
        #expect(try mode(folder) == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names.contains("home.sqlite-wal") && names.contains("home.sqlite-shm"), "\(names)")
        for name in names {
            #expect(try mode(folder + "/" + name) == 0o600, "\(name)")
        }
        try await store.close()
    }

    @Test func aStateFolderThatIsALinkToAPrivateFolderOpens() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try FileManager.default.createDirectory(atPath: fixture.folder + "/real", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: fixture.folder + "/link", withDestinationPath: "real")
        let store = try HomeStore(folder: fixture.folder + "/link")
        try await store.close()
        #expect(try mode(fixture.folder + "/real") == 0o700)
        #expect(FileManager.default.fileExists(atPath: fixture.folder + "/real/home.sqlite"))
    }

    @Test func aStateFolderOthersCanReadIsTightenedAndStillOpens() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 1)
        let store = try HomeStore(folder: fixture.folder)
        for operation in operations { _ = try store.apply(operation) }
        let graph = store.graph
        try await store.close()
        // As an older Hearth left it: the folder 0755, the database files 0644.
        chmod(fixture.folder, 0o755)
        for name in try FileManager.default.contentsOfDirectory(atPath: fixture.folder) {
            chmod(fixture.folder + "/" + name, 0o644)
        }
        let reopened = try HomeStore(folder: fixture.folder)
        #expect(reopened.graph == graph)
        #expect(try mode(fixture.folder) == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: fixture.folder) {
            #expect(try mode(fixture.folder + "/" + name) & 0o077 == 0, "\(name)")
        }
        try await reopened.close()
    }

    @Test(.enabled(if: geteuid() == 0, "giving a folder to another user needs root"))
    func aStateFolderOfAnotherUserOrAFileIsRefusedWithASentence() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let foreign = fixture.folder + "/foreign"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
        #expect(chown(foreign, 54_321, 54_321) == 0)
        let notAFolder = fixture.folder + "/file"
        FileManager.default.createFile(atPath: notAFolder, contents: Data())
        for (path, words) in [(foreign, "belongs to another user"), (notAFolder, "is not a folder")] {
            do {
                _ = try HomeStore(folder: path)
                Issue.record("\(path) was accepted")
            } catch {
                guard case .notPrivate(let reason) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(reason.description.contains(words), "\(reason)")
                #expect(reason.description.hasPrefix(path))
            }
        }
    }
}
