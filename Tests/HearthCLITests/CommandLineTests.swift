import Foundation
import TestSupport
import Testing

/// The built programs run as a user runs them: stdout, the stderr line and the exit code (docs/style.md §3).
@Suite struct CommandLineTests {
    @Test func hearthDemoPairsBothRolesInProcessAndPrintsItsSteps() async throws {
        let result = try await runBuiltProgram("hearth", ["demo", "--rounds", "3"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("is admin: true"))
        #expect(result.output.contains("session     HTTP/1.1 200 OK"))
        #expect(result.output.contains("pair-setup total: accessory"))
    }

    @Test func aUsageErrorExitsWithTwoAndOneErrorLine() async throws {
        let result = try await runBuiltProgram("hearth", ["demo", "--rounds", "0"])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("error: "), "\(result.errors)")
        #expect(result.output.isEmpty)
    }

    @Test func hearthSimRefusesToAdvertiseWithoutAnInterface() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let result = try await runBuiltProgram("hearth-sim", ["serve", "--state", state])
        #expect(result.status == 2)
        #expect(result.errors.contains("--interface"), "\(result.errors)")
        #expect(
            !FileManager.default.fileExists(atPath: state + "/accessory.json"),
            "nothing is created on a usage error"
        )
    }

    @Test func aControlCommandWithoutARunningSimulatorExitsWithFive() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString)").path
        let result = try await runBuiltProgram("hearth-sim", ["status", "--state", state])
        #expect(result.status == 5)
        #expect(result.errors.hasPrefix("error: no hearth-sim is running"), "\(result.errors)")
    }
}
