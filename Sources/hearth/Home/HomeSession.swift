import Foundation
import HearthKit

/// A kind of object in a home that the home commands find by name or id: its word in sentences ("no zone named …")
/// and where the home keeps them.
struct ObjectKind<Object> {
    /// The word for one of them (`zone`, `service group`).
    let noun: String
    /// All of them in a home.
    let objects: (Home) -> [Object]
    /// An object's id.
    let id: KeyPath<Object, UUID>
    /// An object's name.
    let name: KeyPath<Object, String>
}

extension ObjectKind<Room> {
    /// Rooms, the room for the entire home included.
    static var room: Self { Self(noun: "room", objects: \.allRooms, id: \.id, name: \.name) }
}

extension ObjectKind<Zone> {
    /// Zones.
    static var zone: Self { Self(noun: "zone", objects: \.zones, id: \.id, name: \.name) }
}

extension ObjectKind<Accessory> {
    /// Accessories.
    static var accessory: Self { Self(noun: "accessory", objects: \.accessories.array, id: \.id, name: \.name) }
}

extension ObjectKind<Service> {
    /// The services of every accessory.
    static var service: Self {
        Self(noun: "service", objects: { $0.accessories.flatMap(\.services) }, id: \.id, name: \.name)
    }
}

extension ObjectKind<ServiceGroup> {
    /// Service groups.
    static var serviceGroup: Self { Self(noun: "service group", objects: \.serviceGroups, id: \.id, name: \.name) }
}

extension ObjectKind<ActionSet> {
    /// Scenes (action sets).
    static var scene: Self { Self(noun: "scene", objects: \.actionSets, id: \.id, name: \.name) }
}

extension ObjectKind<Trigger> {
    /// Triggers.
    static var trigger: Self { Self(noun: "trigger", objects: { Array($0.triggers) }, id: \.id, name: \.name) }
}

extension ObjectKind<User> {
    /// The home's users.
    static var user: Self { Self(noun: "user", objects: \.users, id: \.id, name: \.name) }
}

/// The path most home commands take: the client and the home, the objects named, one call, the report.
///
/// The report is text, or JSON with `--json`. Every step exits with the sentence and code of its failure.
struct HomeSession {
    /// The command's options.
    let options: HubOptions
    /// The configured hub's client.
    let client: HearthClient
    /// The home the command acts in.
    let home: Home

    /// The object of `kind` named or with id `text` (among `objects` when given, else all in the home); exits 3
    /// when there is none.
    func find<Object>(_ kind: ObjectKind<Object>, _ text: String, among objects: [Object]? = nil) -> Object {
        options.find(objects ?? kind.objects(home), text, kind: kind.noun, in: home, id: kind.id, name: kind.name)
    }

    /// Calls the hub with the client and the home's id; exits with the hub's error.
    func call<T>(_ body: (HearthClient, UUID) async throws(HearthError) -> T) async -> T {
        await options.attempt { () throws(HearthError) in try await body(client, home.id) }
    }

    /// Makes a change: calls the hub and reports its events (JSON) or `message` (text).
    func change(_ message: String, _ body: (HearthClient, UUID) async throws(HearthError) -> [HomeEvent]) async {
        options.changed(await call(body), message)
    }

    /// Makes a change the hub answers without events: calls the hub and reports no events (JSON) or `message`.
    func change(_ message: String, _ body: (HearthClient, UUID) async throws(HearthError) -> Void) async {
        await call(body)
        options.changed([], message)
    }
}

extension HubOptions {
    /// The client and the home `named` (else `--home`, else the primary one): where a home command starts.
    func session(home named: String? = nil) async -> HomeSession {
        let client = await client()
        return HomeSession(options: self, client: client, home: await loadHome(client, named: named).home)
    }

    /// Finds by name, acts, reports: the home, the object of `kind` named or with id `text`, one change by the hub,
    /// and its events (JSON) or the sentence `report` makes of the object (text).
    func change<Object>(
        _ kind: ObjectKind<Object>,
        _ text: String,
        _ body: (HearthClient, Object, UUID) async throws(HearthError) -> [HomeEvent],
        report: (Object) -> String
    ) async {
        let session = await session()
        let found = session.find(kind, text)
        await session.change(report(found)) { client, homeID throws(HearthError) in
            try await body(client, found, homeID)
        }
    }
}
