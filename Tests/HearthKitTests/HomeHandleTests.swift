import Foundation
import HearthKit
import Testing

/// `home.perform("…")` through HearthKit against a live HubServer: the answer decoded as a `CommandResult`, the
/// hub's refusals of hostile text as `HearthError`s with a sentence.
@Suite struct HomeHandleTests {
    @Test func aHomeHandlePerformsASentenceAndHostileTextIsA400() async throws {
        let fixture = try await KitFixture()
        try await fixture.withServer { url, _ in
            let client = fixture.client(url, fixture.guest)
            let home = client.handle(forHome: fixture.homeID)
            #expect(home.homeID == fixture.homeID)
            let result: CommandResult = try await home.perform("order a pizza")
            #expect(result.text == "order a pizza" && result.outcome == .notUnderstood && !result.dryRun)
            let resolved = try await home.perform("turn on desk lamp", dryRun: true)
            #expect(resolved.dryRun)
            #expect(resolved.outcome == .control, "\(resolved.message)")
            #expect(resolved.actions?.first?.characteristicID == fixture.onCharacteristic.id)

            do throws(HearthError) {
                _ = try await home.perform("turn on\u{0}the lamp")
                Issue.record("control characters were accepted")
            } catch {
                #expect(error.status == 400 && error.code == "invalidRequest", "\(error)")
                #expect(error.message.hasPrefix("field 'text'"), "\(error.message)")
            }
            do throws(HearthError) {
                _ = try await client.perform("lights off", inHome: fixture.homeID, room: "Nowhere")
                Issue.record("an unknown room was accepted")
            } catch {
                #expect(error.status == 400 && error.message.hasPrefix("field 'room'"), "\(error.message)")
            }
            let manager = HomeManager(client: client)
            #expect(manager.handle(forHome: fixture.homeID).homeID == fixture.homeID)
        }
    }
}
