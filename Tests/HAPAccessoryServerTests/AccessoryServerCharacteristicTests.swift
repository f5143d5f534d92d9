import HAP
import HAPAccessoryServer
import Testing

@Suite struct AccessoryServerCharacteristicTests {
    /// A started accessory with one paired admin and a verified connection.
    static func pairedAccessory(
        eventCoalescingWindow: Duration = .zero
    ) async throws -> (TestAccessory, ControllerIdentity, AccessoryPairing, TestClient) {
        let accessory = try await TestAccessory.start(eventCoalescingWindow: eventCoalescingWindow)
        let admin = TestAccessory.newController()
        let pairing = try await accessory.pair(admin)
        let client = try await accessory.verifiedClient(admin, accessory: pairing)
        return (accessory, admin, pairing, client)
    }

    @Test func readsAndWritesCharacteristics() async throws {
        let (accessory, _, _, client) = try await Self.pairedAccessory()
        defer { Task { await accessory.stop() } }
        let read = try await client.request(.get, "/characteristics?id=1.9,1.10")
        #expect(read.status == .ok)
        #expect(read.text == #"{"characteristics":[{"aid":1,"iid":9,"value":false},{"aid":1,"iid":10,"value":50}]}"#)

        let write = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":9,"value":1},{"aid":1,"iid":10,"value":80}]}"#
        )
        #expect(write.status == .noContent)
        #expect(write.body.isEmpty)
        #expect(await accessory.backend.writes.map(\.value) == [.bool(true), .int(80)])

        let after = try await client.request(.get, "/characteristics?id=1.9,1.10&meta=1&perms=1&type=1&ev=1")
        let items = try after.characteristicItems()
        #expect(items[0]["value"] as? Bool == true)
        #expect(items[1]["value"] as? Int == 80)
        #expect(items[1]["maxValue"] as? Int == 100)
        #expect(items[1]["ev"] as? Bool == false)
        #expect(items[1]["perms"] as? [String] == ["pr", "pw", "ev"])
    }

    @Test func reportsPerItemStatusesWith207() async throws {
        let (accessory, _, _, client) = try await Self.pairedAccessory()
        defer { Task { await accessory.stop() } }
        let read = try await client.request(.get, "/characteristics?id=1.9,1.99,1.2")
        #expect(read.status == .multiStatus)
        let statuses = try read.characteristicItems().map { $0["status"] as? Int }
        #expect(statuses == [0, -70409, -70405])

        let write = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":10,"value":101},{"aid":1,"iid":3,"value":"x"},{"aid":9,"iid":9,"value":1},{"aid":1,"iid":9,"value":true}]}"#
        )
        #expect(write.status == .multiStatus)
        #expect(try write.characteristicItems().map { $0["status"] as? Int } == [-70410, -70404, -70409, 0])

        let switchRead = try await client.request(.get, "/characteristics?id=1.12")
        #expect(switchRead.text == #"{"characteristics":[{"aid":1,"iid":12,"value":null}]}"#)
        let badQuery = try await client.request(.get, "/characteristics?id=x")
        #expect(badQuery.status.code == 400)
        let badJSON = try await client.json(.put, "/characteristics", "{")
        #expect(badJSON.status.code == 400)
        let noEvents = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":3,"ev":true}]}"#
        )
        #expect(try noEvents.characteristicItems().first?["status"] as? Int == -70406)
    }

    @Test func returnsTheValueForWriteResponse() async throws {
        let (accessory, _, _, client) = try await Self.pairedAccessory()
        defer { Task { await accessory.stop() } }
        let write = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":9,"value":1,"r":true}]}"#
        )
        #expect(write.status == .multiStatus)
        #expect(write.text == #"{"characteristics":[{"aid":1,"iid":9,"status":0,"value":true}]}"#)
    }

    @Test func needsAValidPrepareForTimedWrites() async throws {
        let (accessory, _, _, client) = try await Self.pairedAccessory()
        defer { Task { await accessory.stop() } }
        let plain = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":11,"value":1}]}"#
        )
        #expect(try plain.characteristicItems().first?["status"] as? Int == -70410)
        let unprepared = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":11,"value":1}],"pid":7}"#
        )
        #expect(try unprepared.characteristicItems().first?["status"] as? Int == -70410)

        let prepare = try await client.json(.put, "/prepare", #"{"ttl":2500,"pid":7}"#)
        #expect(prepare.status == .ok)
        #expect(prepare.text == #"{"status":0}"#)
        let timed = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":11,"value":1}],"pid":7}"#
        )
        #expect(timed.status == .noContent)

        _ = try await client.json(.put, "/prepare", #"{"ttl":2500,"pid":8}"#)
        let wrongID = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":11,"value":0}],"pid":9}"#
        )
        #expect(try wrongID.characteristicItems().first?["status"] as? Int == -70410)

        _ = try await client.json(.put, "/prepare", #"{"ttl":2500,"pid":10}"#)
        accessory.uptime.advance(by: .seconds(3))
        let expired = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":11,"value":0}],"pid":10}"#
        )
        #expect(try expired.characteristicItems().first?["status"] as? Int == -70410)
        #expect(await accessory.backend.writes.map(\.value) == [.uint(1)])
        let badPrepare = try await client.json(.put, "/prepare", #"{"ttl":"soon"}"#)
        #expect(badPrepare.status.code == 400)
    }

    @Test func sendsEventsToOtherSubscribersButNotToTheWriter() async throws {
        let (accessory, admin, pairing, watcher) = try await Self.pairedAccessory()
        defer { Task { await accessory.stop() } }
        let writer = try await accessory.verifiedClient(admin, accessory: pairing)
        let subscribe = #"{"characteristics":[{"aid":1,"iid":9,"ev":true},{"aid":1,"iid":10,"ev":true}]}"#
        #expect(try await watcher.json(.put, "/characteristics", subscribe).status == .noContent)
        #expect(try await writer.json(.put, "/characteristics", subscribe).status == .noContent)

        let write = try await writer.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":9,"value":true}]}"#
        )
        #expect(write.status == .noContent)
        let event = try await watcher.event()
        #expect(event.kind == .event)
        #expect(event.status == .ok)
        #expect(event.headers["Content-Type"] == "application/hap+json")
        #expect(event.text == #"{"characteristics":[{"aid":1,"iid":9,"value":true}]}"#)

        // The watcher's write comes back to the writer, and nothing about the writer's own write came before it.
        _ = try await watcher.json(.put, "/characteristics", #"{"characteristics":[{"aid":1,"iid":10,"value":20}]}"#)
        let echo = try await writer.event()
        #expect(echo.text == #"{"characteristics":[{"aid":1,"iid":10,"value":20}]}"#)
        #expect(writer.events.isEmpty)

        // Unsubscribed: no event.
        _ = try await watcher.json(.put, "/characteristics", #"{"characteristics":[{"aid":1,"iid":9,"ev":false}]}"#)
        _ = try await writer.json(.put, "/characteristics", #"{"characteristics":[{"aid":1,"iid":9,"value":false}]}"#)
        _ = try await writer.json(.put, "/characteristics", #"{"characteristics":[{"aid":1,"iid":10,"value":30}]}"#)
        let next = try await watcher.event()
        #expect(next.text == #"{"characteristics":[{"aid":1,"iid":10,"value":30}]}"#)
    }

    @Test func sendsBackendChangesAsEvents() async throws {
        let (accessory, _, _, client) = try await Self.pairedAccessory()
        defer { Task { await accessory.stop() } }
        _ = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":10,"ev":true},{"aid":1,"iid":12,"ev":true}]}"#
        )
        await accessory.backend.change(TestBackend.brightness, to: .int(7))
        #expect(try await client.event().text == #"{"characteristics":[{"aid":1,"iid":10,"value":7}]}"#)
        await accessory.backend.change(TestBackend.switchEvent, to: .uint(1))
        #expect(try await client.event().text == #"{"characteristics":[{"aid":1,"iid":12,"value":1}]}"#)
    }

    @Test func coalescesEventsWithinTheWindow() async throws {
        let (accessory, _, _, client) = try await Self.pairedAccessory(eventCoalescingWindow: .seconds(2))
        defer { Task { await accessory.stop() } }
        _ = try await client.json(
            .put,
            "/characteristics",
            #"{"characteristics":[{"aid":1,"iid":10,"ev":true},{"aid":1,"iid":12,"ev":true}]}"#
        )
        await accessory.backend.change(TestBackend.brightness, to: .int(1))
        #expect(try await client.event().text == #"{"characteristics":[{"aid":1,"iid":10,"value":1}]}"#)
        for value in 2...5 { await accessory.backend.change(TestBackend.brightness, to: .int(Int64(value))) }
        // The switch event skips the window and takes the pending brightness with it.
        await accessory.backend.change(TestBackend.switchEvent, to: .uint(0))
        let merged = try await client.event()
        #expect(merged.text == #"{"characteristics":[{"aid":1,"iid":10,"value":5},{"aid":1,"iid":12,"value":0}]}"#)
        await accessory.backend.change(TestBackend.brightness, to: .int(6))
        await accessory.backend.change(TestBackend.brightness, to: .int(9))
        #expect(try await client.event().text == #"{"characteristics":[{"aid":1,"iid":10,"value":9}]}"#)
    }

    @Test func bumpsTheConfigurationNumberWhenTheDatabaseChanges() async throws {
        let (accessory, _, _, client) = try await Self.pairedAccessory()
        defer { Task { await accessory.stop() } }
        let before = try #require(await accessory.server.advertisement)
        await accessory.backend.addAccessory()
        let after = try await accessory.waitForAdvertisement {
            $0.configurationNumber == before.configurationNumber + 1
        }
        #expect(after.statusFlags == 0)
        try await accessory.waitForStoredState { $0.configurationNumber == after.configurationNumber }
        let read = try await client.request(.get, "/characteristics?id=2.2")
        #expect(try read.characteristicItems().first?["status"] as? Int == -70405)
    }
}
