import AtomicFiles
import HAP
import HAPAccessoryServer
import Simulator

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The files of a simulator's state folder.
struct StateFolder {
    /// The folder.
    var path: String

    var accessoryState: String { path + "/accessory.json" }
    var setupCode: String { path + "/setup-code" }
    var identifiers: String { path + "/identifiers.json" }
    var description: String { path + "/description.json" }
    var controlSocket: String { path + "/control.sock" }

    /// Creates the folder, readable only by its owner, or tightens one that others can read.
    func create() throws {
        try PrivateFolder.prepare(atPath: path)
    }

    /// The stored setup code, or `nil` when none was stored yet.
    func storedSetupCode() throws -> SetupCode? {
        guard let data = FileManager.default.contents(atPath: setupCode) else { return nil }
        return try SetupCode(String(decoding: data, as: UTF8.self).trimmingWhitespace())
    }

    /// Stores the setup code, mode 0600.
    func store(_ code: SetupCode) throws {
        try AtomicFile.write(Data((code.formatted + "\n").utf8), toPath: setupCode)
    }

    /// The stored id map, or a fresh one.
    func storedIdentifiers() throws -> IdentifierMap? {
        guard let data = FileManager.default.contents(atPath: identifiers) else { return nil }
        return try JSONDecoder().decode(IdentifierMap.self, from: data)
    }

    /// Stores the id map atomically.
    func store(_ map: IdentifierMap) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(try encoder.encode(map), toPath: identifiers)
    }

    /// The description last served, used when `serve` is given none.
    func storedDescription() throws -> SimulatorDescription? {
        guard let data = FileManager.default.contents(atPath: description) else { return nil }
        return try SimulatorDescription(jsonData: data)
    }

    /// Stores the description served, so a restart without arguments serves the same accessories.
    func store(_ served: SimulatorDescription) throws {
        try AtomicFile.write(try served.jsonData(), toPath: description)
    }
}
