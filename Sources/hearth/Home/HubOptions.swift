import ArgumentParser
import Foundation
import HAP
import HAPController
import HAPTypes
import HearthKit

/// Exit codes of the home commands (Sources/hearth/README.md).
enum HomeExit {
    /// The hub refused for another reason, or something else failed.
    static let failure: Int32 = 1
    /// A usage error, or a request the hub found invalid (400).
    static let usage: Int32 = 2
    /// No such home, room, accessory, … (404, or no match by name).
    static let notFound: Int32 = 3
    /// Not logged in, or the role does not allow it (401, 403).
    static let notPermitted: Int32 = 4
    /// The hub cannot be reached.
    static let unreachable: Int32 = 5
    /// A name clash or another conflict (409).
    static let conflict: Int32 = 6

    /// The exit status for an error of the hub's API.
    static func status(of error: HearthError) -> Int32 {
        switch error.status {
        case 0: error.isUnreachable ? unreachable : failure
        case 400: usage
        case 401, 403: notPermitted
        case 404: notFound
        case 409: conflict
        default: failure
        }
    }
}

/// Options every home command takes: where the hub is, which home, and JSON output.
struct HubOptions: ParsableArguments {
    @Option(help: "The client configuration to read (default: $HEARTH_CONFIG, else ~/.config/hearth/config.json).")
    var config: String?

    @Option(help: "The home, by name or id (default: the primary home).")
    var home: String?

    @Flag(help: "Print JSON on stdout instead of text.")
    var json = false

    /// The configuration file to read and write.
    var configPath: String {
        if let config { return config }
        if let path = ProcessInfo.processInfo.environment["HEARTH_CONFIG"], !path.isEmpty { return path }
        return ClientConfiguration.userConfigurationPath
    }

    /// The client of the configured hub (through a secure tunnel when the configuration holds a pairing); exits 4
    /// when there is no configuration.
    func client() async -> HearthClient {
        let path = configPath
        guard FileManager.default.fileExists(atPath: path) else {
            fail(
                "not logged in: \(path) does not exist. Start hearthd, or run 'hearth login --url URL'",
                code: HomeExit.notPermitted,
                kind: "notLoggedIn"
            )
        }
        let configuration: ClientConfiguration
        do {
            configuration = try ClientConfiguration.read(fromPath: path)
        } catch {
            fail("cannot read \(path): it is not a Hearth client configuration", code: 1, kind: "config")
        }
        do {
            return try await HearthClient.connect(configuration: configuration)
        } catch {
            fail(
                "cannot open the secure tunnel to the hub: \(error)",
                code: HomeExit.unreachable,
                kind: "unreachable"
            )
        }
    }

    /// Runs an API call, exiting with the error's code when the hub refuses.
    func attempt<T>(_ body: () async throws(HearthError) -> T) async -> T {
        do throws(HearthError) {
            return try await body()
        } catch {
            fail(error)
        }
    }

    /// The home `named` (else `--home`, else the primary one), loaded whole.
    func loadHome(_ client: HearthClient, named: String? = nil) async -> HomeResponse {
        let home = named ?? self.home
        let summaries = await attempt { () throws(HearthError) in try await client.homes() }
        let summary: HomeSummary
        if let home {
            guard let found = Resolve.pick(summaries, home, id: \.id, name: \.name) else {
                fail("no home named or with id '\(home)'", code: HomeExit.notFound, kind: "notFound")
            }
            summary = found
        } else {
            guard let primary = summaries.first(where: \.isPrimary) ?? summaries.first else {
                fail("you belong to no home. Add one with 'hearth home add NAME'", code: 3, kind: "notFound")
            }
            summary = primary
        }
        return await attempt { () throws(HearthError) in try await client.home(summary.id) }
    }

    /// Exits with the hub's error: its message on stderr (and as JSON with `--json`), its exit code.
    func fail(_ error: HearthError) -> Never {
        fail(error.message, code: HomeExit.status(of: error), kind: error.code)
    }

    /// Exits with `message` on stderr (and `{"error": …}` on stdout with `--json`).
    func fail(_ message: String, code: Int32, kind: String) -> Never {
        let sentence = message.hasSuffix(".") ? message : message + "."
        if json { Printer.json(ErrorBody(error: .init(code: kind, message: sentence))) }
        Output.standardError("error: " + sentence)
        Foundation.exit(code)
    }

    /// Prints `value` as JSON with `--json`, else the text `text()` makes.
    func show(_ value: some Encodable, _ text: () -> String) {
        if json {
            Printer.json(value)
        } else {
            let body = text()
            if !body.isEmpty { Output.text(body.hasSuffix("\n") ? body : body + "\n") }
        }
    }

    /// Prints the outcome of a change: its events as JSON, or `message` as text.
    func changed(_ events: [HomeEvent], _ message: String) {
        show(Events(events: events)) { message }
    }
}

/// JSON printing with the API's encoder (ISO 8601 dates, sorted keys), one object per line.
enum Printer {
    /// Writes `value` as one line of JSON.
    static func json(_ value: some Encodable) {
        guard let data = try? JSONEncoder.api.encode(value) else { return }
        Output.jsonLine(String(decoding: data, as: UTF8.self))
    }
}

/// Finding objects by name (case-insensitive, trimmed) or by id.
enum Resolve {
    /// The item whose id is `text`, or whose name matches it.
    static func pick<T>(_ items: [T], _ text: String, id: KeyPath<T, UUID>, name: KeyPath<T, String>) -> T? {
        if let uuid = UUID(uuidString: text), let found = items.first(where: { $0[keyPath: id] == uuid }) {
            return found
        }
        let key = normalized(text)
        return items.first { normalized($0[keyPath: name]) == key }
    }

    /// Lower-cased, trimmed, inner white space made one space.
    static func normalized(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

extension HubOptions {
    /// The object of `kind` in `items` named or with id `text`; exits 3 when there is none.
    func find<T>(
        _ items: [T],
        _ text: String,
        kind: String,
        in home: Home,
        id: KeyPath<T, UUID>,
        name: KeyPath<T, String>
    ) -> T {
        guard let found = Resolve.pick(items, text, id: id, name: name) else {
            fail("no \(kind) named or with id '\(text)' in \(home.name)", code: HomeExit.notFound, kind: "notFound")
        }
        return found
    }

    /// A characteristic of `accessory`, by id or by its type's name or synonym (`on`, `brightness`).
    func characteristic(_ text: String, of accessory: Accessory, in home: Home) -> Characteristic {
        let all = accessory.characteristics
        if let uuid = UUID(uuidString: text), let found = all.first(where: { $0.id == uuid }) { return found }
        if let type = try? TypeCatalog.shared().characteristic(matching: text),
            let found = all.first(where: { $0.type == type.uuid })
        {
            return found
        }
        if let found = all.first(where: { Resolve.normalized(Naming.name(of: $0)) == Resolve.normalized(text) }) {
            return found
        }
        fail(
            "\(accessory.name) has no characteristic '\(text)'. See 'hearth accessory get \"\(accessory.name)\"'",
            code: HomeExit.notFound,
            kind: "notFound"
        )
    }

    /// Reads a value typed on the command line in the characteristic's format; exits 2 when it does not fit.
    func value(_ text: String, for characteristic: Characteristic) -> HAPValue {
        if let type = try? TypeCatalog.shared().characteristic(for: characteristic.type),
            let named = type.value(named: text)
        {
            return characteristic.format == .bool ? .bool(named != 0) : .uint(UInt64(max(named, 0)))
        }
        do throws(CommandLineArgumentError) {
            return try HAPValue(argument: text, format: characteristic.format)
        } catch {
            fail(error.description, code: HomeExit.usage, kind: "invalidValue")
        }
    }
}

/// Human names for the model's types.
enum Naming {
    /// The catalog's name of a characteristic's type (`on`, `brightness`), or its UUID.
    static func name(of characteristic: Characteristic) -> String {
        (try? TypeCatalog.shared().characteristic(for: characteristic.type))?.name ?? characteristic.type.description
    }

    /// The catalog's name of a service's type (`lightbulb`), or its UUID.
    static func typeName(of service: Service) -> String {
        (try? TypeCatalog.shared().service(for: service.type))?.name ?? service.type.description
    }

    /// A value as text, with the catalog's name for enumerated values (`secured`).
    static func text(_ value: HAPValue?, of characteristic: Characteristic) -> String {
        guard let value else { return "—" }
        if case .uint(let number) = value,
            let type = try? TypeCatalog.shared().characteristic(for: characteristic.type),
            let name = type.name(of: Int(number))
        {
            return "\(number) (\(name))"
        }
        return value.description
    }
}
