import Foundation
import HAP
import HAPAccessoryServer
import HAPTypes
import Simulator
import TestFixtures
import Testing

@testable import HAPController

@Suite struct PairedAccessoryTests {
    @Test func pairsListsReadsWritesAndReadsBack() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        let database = try await client.accessories()
        #expect(database.accessories.count == 5)
        let on = try await bridge.id(ShortType.on, accessoryID: 2)
        #expect(try await client.write([(on, .bool(true))]) == [on: .success])
        #expect(try await client.read([on])[on] == .success(.bool(true)))
        await client.close()
    }

    @Test func batchesReadsAndWritesOfManyCharacteristics() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        var lamps: [CharacteristicID] = []
        for accessoryID in UInt64(2)...4 { lamps.append(try await bridge.id(ShortType.on, accessoryID: accessoryID)) }
        let missing = CharacteristicID(accessoryID: 2, instanceID: 999)
        let writes = try await client.write(lamps.map { ($0, HAPValue.bool(true)) } + [(missing, .bool(true))])
        #expect(writes.count == 4)
        for lamp in lamps { #expect(writes[lamp] == .success) }
        #expect(writes[missing] == .resourceDoesNotExist)
        let temperature = try await bridge.id(ShortType.currentTemperature, accessoryID: 5)
        let reads = try await client.read(lamps + [temperature, missing])
        for lamp in lamps { #expect(reads[lamp] == .success(.bool(true))) }
        guard case .success(let value) = reads[temperature] else {
            Issue.record("temperature read failed: \(String(describing: reads[temperature]))")
            return
        }
        #expect(value?.numericValue != nil)
        #expect(reads[missing] == .failure(.resourceDoesNotExist))
        await client.close()
    }

    @Test func splitsLongReadsIntoBatches() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let identity = newIdentity()
        let paired = try await bridge.pairedClient(identity: identity)
        await paired.close()
        let client = PairedAccessory(
            record: paired.record,
            identity: identity,
            configuration: PairedAccessory.Configuration(backoff: fastBackoff(), maximumReadBatch: 2),
            logger: quietLogger()
        )
        let database = try await client.accessories()
        let ids = database.accessories.flatMap { accessory in
            accessory.services.flatMap(\.characteristics).filter { $0.permissions.contains(.read) }.map {
                CharacteristicID(accessoryID: accessory.accessoryID, instanceID: $0.instanceID)
            }
        }
        #expect(ids.count > 10)
        let reads = try await client.read(ids + ids.prefix(3))
        #expect(reads.count == ids.count)
        // The format index types values as a search of the database would.
        let formats = PairedAccessory.formats(of: database)
        #expect(formats.count >= ids.count)
        for id in ids { #expect(formats[id] == database.characteristic(at: id)?.format) }
        #expect(reads.values.allSatisfy { if case .success = $0 { true } else { false } })
        await client.close()
    }

    @Test func writesJSONRequestsAsTheSameBytesAsAnHTTPRequest() {
        let host = "192.168.1.20:51826"
        let lines = HTTPHeaders([("Host", host), ("Content-Type", HTTPContentType.hapJSON.rawValue)]).encodedLines
        let ids = [CharacteristicID(accessoryID: 1, instanceID: 10), CharacteristicID(accessoryID: 12, instanceID: 0)]
        let cases: [(HTTPMethod, String, CharacteristicReadQuery?, [UInt8])] = [
            (.get, "/characteristics", CharacteristicReadQuery(ids: ids, includesEventState: true), []),
            (.get, "/accessories", nil, []),
            (.put, "/characteristics", nil, Array(#"{"characteristics":[]}"#.utf8)),
            (.put, "/prepare", nil, []),
        ]
        for (method, path, query, body) in cases {
            var bytes: [UInt8] = []
            AccessoryConnection.encodeJSON(
                method,
                path: path,
                readQuery: query,
                body: body,
                headerLines: lines,
                into: &bytes
            )
            let target = path + (query.map { "?" + $0.queryString } ?? "")
            let request = HTTPRequest(
                method: method,
                target: target,
                headers: ["Host": host, "Content-Type": HTTPContentType.hapJSON.rawValue],
                body: body
            )
            #expect(bytes == request.encoded())
        }
    }

    @Test func leavesOutRepeatedIDsInTheOrderAsked() {
        // 21 distinct ids in a cycle: lists of up to 16 take the pairwise check, longer ones the set.
        let ids = (1...40).map { CharacteristicID(accessoryID: UInt64($0 % 3), instanceID: UInt64($0 % 7)) }
        for count in [0, 1, 2, 5, 16, 17, 22, 40] {
            let list = Array(ids.prefix(count)) + (count == 16 ? [ids[3]] : [])
            var seen = Set<CharacteristicID>()
            #expect(PairedAccessory.withoutRepeats(list) == list.filter { seen.insert($0).inserted })
        }
        let repeated = [ids[0], ids[1], ids[0]]
        #expect(PairedAccessory.withoutRepeats(repeated) == [ids[0], ids[1]])
    }

    @Test func deliversEventsAfterASimulatedChange() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        let events = await Recorder.start(client.events)
        let on = try await bridge.id(ShortType.on, accessoryID: 3)
        #expect(try await client.subscribe([on]) == [on: .success])
        try await bridge.simulator.set(accessory: "3", characteristic: "\(on.instanceID)", value: .bool(true))
        let event = try await events.next()
        #expect(event == .valuesChanged([CharacteristicValueChange(id: on, value: .bool(true))]))
        try await client.unsubscribe([on])
        await client.close()
    }

    @Test func timedWriteIsPreparedThenExecuted() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        let on = try await bridge.id(ShortType.on, accessoryID: 4)
        #expect(try await client.timedWrite([(on, .bool(true))]) == [on: .success])
        #expect(try await client.read([on])[on] == .success(.bool(true)))
        await client.close()
    }

    @Test func identifiesPairedAndUnpairedAccessories() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        try await AccessoryPairingClient().identifyUnpaired(host: "127.0.0.1", port: bridge.port)
        #expect(await bridge.simulator.identifyCount == 1)
        let client = try await bridge.pairedClient()
        try await client.identify()
        #expect(await bridge.simulator.identifyCount == 2)
        await #expect(throws: HAPControllerError.alreadyPaired) {
            try await AccessoryPairingClient().identifyUnpaired(host: "127.0.0.1", port: bridge.port)
        }
        await client.close()
    }

    @Test func closingFinishesTheStreamsAndLaterCallsFail() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        try await client.connect()
        await client.close()
        var reachable: [Bool] = []
        for await value in client.reachability { reachable.append(value) }
        #expect(reachable == [true])
        for await event in client.events { Issue.record("unexpected event \(event)") }
        await #expect(throws: HAPControllerError.closed) { try await client.accessories() }
    }

    @Test func anAccessoryThatIsGoneIsReportedUnreachable() async throws {
        let bridge = try await SimulatedBridge.start()
        let client = try await bridge.pairedClient()
        await bridge.stop()
        let reachability = await Recorder.start(client.reachability)
        await #expect(throws: HAPControllerError.unreachable(host: "127.0.0.1", port: bridge.port)) {
            try await client.accessories()
        }
        #expect(try await reachability.next() == false)
        await client.close()
    }
}
