import Foundation
import HearthAPI
import HearthKit
import TestSupport
import Testing

/// `hearth accessory get/set` by name and by id against an in-process hub that has a lamp (the demo hub has no
/// accessories; the lamp has no HAP accessory behind it, so writes are refused as such).
@Suite struct CharacteristicCommandTests {
    static func hearth(_ arguments: [String]) async throws -> ProgramResult {
        try await runBuiltProgram("hearth", arguments)
    }

    @Test func getAndSetFindCharacteristicsByNameAndByID() async throws {
        let fixture = try await KitFixture()
        try await fixture.withServer { url, _ in
            let path = fixture.folder + "/client.json"
            try ClientConfiguration(url: url, token: fixture.owner.token, userID: fixture.owner.id, stateFolder: "")
                .write(toPath: path)
            let config = ["--config", path]
            let brightness = fixture.brightness.id.uuidString

            var result = try await Self.hearth(["accessory", "get", "desk lamp", "brightness", "--json"] + config)
            #expect(result.status == 0, "\(result)")
            let read = try JSONDecoder.api.decode(CharacteristicResponse.self, from: Data(result.output.utf8))
            #expect(read.characteristic.id == fixture.brightness.id && read.characteristic.value == .int(0))
            result = try await Self.hearth(["accessory", "get", brightness] + config)
            #expect(result.output == "brightness = 0\n", "\(result)")
            result = try await Self.hearth(["accessory", "get", "Desk Lamp"] + config)
            #expect(result.output.contains("on") && result.output.contains("false"), "\(result)")

            // Found by name and by id, the value typed for the format; this lamp has no HAP accessory behind it,
            // so the hub refuses the write itself as an accessory it does not know (exit 3).
            result = try await Self.hearth(["accessory", "set", "Desk Lamp", "on", "true"] + config)
            #expect(result.status == 3 && result.errors.contains("no accessory"), "\(result)")
            result = try await Self.hearth(["accessory", "set", brightness, "40"] + config)
            #expect(result.status == 3 && result.errors.contains("no accessory"), "\(result)")
            // Unknown names are 3, values that do not fit are 2, both before anything is written.
            result = try await Self.hearth(["accessory", "set", "Desk Lamp", "hue", "3"] + config)
            #expect(result.status == 3, "\(result)")
            result = try await Self.hearth(["accessory", "set", "Desk Lamp", "on", "maybe"] + config)
            #expect(result.status == 2, "\(result)")
            result = try await Self.hearth(["accessory", "set", "Desk Lamp", "brightness", "400"] + config)
            #expect(result.status == 2, "the hub checks the range first: \(result)")
            #expect(result.errors == "error: Brightness must be between 0 and 100 (got 400).\n", "\(result)")

            // Notifications are recorded by the hub and shown by watch-style JSON.
            result = try await Self.hearth(["accessory", "notify", "Desk Lamp", "brightness", "on", "--json"] + config)
            #expect(result.status == 0 && result.output.contains("characteristicNotificationsChanged"), "\(result)")
        }
    }
}
