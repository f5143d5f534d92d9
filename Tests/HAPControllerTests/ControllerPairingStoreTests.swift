import Foundation
import HAP
import Testing

@testable import HAPController

@Suite struct ControllerPairingStoreTests {
    private func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "hap-controller-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func keepsOneIdentityWithAnUpperCaseUUID() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try await ControllerPairingStore(folder: folder).identity()
        let again = try await ControllerPairingStore(folder: folder).identity()
        #expect(first.pairingID == again.pairingID)
        #expect(first.publicKey == again.publicKey)
        #expect(UUID(uuidString: first.pairingID) != nil)
        #expect(first.pairingID == first.pairingID.uppercased())
    }

    @Test func savesReplacesAndRemovesAccessoriesInFilesOfMode0600() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = ControllerPairingStore(folder: folder)
        _ = try await store.identity()
        var record = PairedAccessoryRecord(
            deviceID: "AA:BB:CC:DD:EE:FF",
            publicKey: Array(repeating: 7, count: 32),
            host: "192.168.1.20",
            addresses: ["192.168.1.20"],
            port: 51826,
            configurationNumber: 3
        )
        try await store.save(record)
        record.port = 51827
        try await store.save(record)
        let other = PairedAccessoryRecord(deviceID: "11:22:33:44:55:66", publicKey: [], host: "10.0.0.2", port: 80)
        try await store.save(other)
        #expect(try await ControllerPairingStore(folder: folder).accessories() == [record, other])
        #expect(try await store.accessory(deviceID: "aa:bb:cc:dd:ee:ff") == record)
        try await store.remove(deviceID: record.deviceID)
        #expect(try await store.accessories() == [other])
        for file in [ControllerPairingStore.identityFile, ControllerPairingStore.accessoriesFile] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
    }

    @Test func aDamagedFileIsATypedError() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: folder + "/accessories.json"))
        await #expect(throws: ControllerStoreError.unreadable(file: "accessories.json")) {
            try await ControllerPairingStore(folder: folder).accessories()
        }
        await #expect(throws: ControllerStoreError.self) {
            try await ControllerPairingStore(folder: folder + "/missing").identity()
        }
    }
}
