import Foundation
import TestSupport
import Testing

/// The built programs run as a user runs them: stdout, the stderr line and the exit code (docs/style.md §3).
@Suite struct CommandLineTests {
    /// Runs a built program to its end and returns its exit status, stdout and stderr.
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path(program))
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }

    @Test func hearthDemoPairsBothRolesInProcessAndPrintsItsSteps() throws {
        let result = try Self.run("hearth", ["demo", "--rounds", "3"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("is admin: true"))
        #expect(result.output.contains("session     HTTP/1.1 200 OK"))
        #expect(result.output.contains("pair-setup total: accessory"))
    }

    @Test func aUsageErrorExitsWithTwoAndOneErrorLine() throws {
        let result = try Self.run("hearth", ["demo", "--rounds", "0"])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("error: "), "\(result.errors)")
        #expect(result.output.isEmpty)
    }

    @Test func hearthSimRefusesToAdvertiseWithoutAnInterface() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let result = try Self.run("hearth-sim", ["serve", "--state", state])
        #expect(result.status == 2)
        #expect(result.errors.contains("--interface"), "\(result.errors)")
        #expect(
            !FileManager.default.fileExists(atPath: state + "/accessory.json"),
            "nothing is created on a usage error"
        )
    }

    @Test func aControlCommandWithoutARunningSimulatorExitsWithFive() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString)").path
        let result = try Self.run("hearth-sim", ["status", "--state", state])
        #expect(result.status == 5)
        #expect(result.errors.hasPrefix("error: no hearth-sim is running"), "\(result.errors)")
    }
}
