import Foundation
import HAP
import HAPTypes

/// The reconnect-after-restart check (hap-protocol.md §7.4, §4, §7.8).
extension HAPTester {
    /// How long the restart command may run, and how long the accessory then has to answer pair-verify.
    static let restartCommandTimeout = 60.0
    static let restartComeBack = 30.0

    /// Runs `--restart-command`, then checks that pair-verify works again, the database has the same aids and iids
    /// (with the same types), and a subscription made on the new session gets events again.
    func checkRestart() {
        guard let command = target.restartCommand else {
            record(
                Checks.restart,
                .skipped,
                ["give --restart-command with a shell command that restarts the accessory with its stored state"]
            )
            return
        }
        guard let before = database else {
            record(Checks.restart, .skipped, ["needs the accessory database read before the restart"])
            return
        }
        if let failure = runRestartCommand(command) {
            record(Checks.restart, .fail, [failure])
            return
        }
        // Pair-verify again, retrying while the accessory starts.
        let giveUp = Date().addingTimeInterval(Self.restartComeBack)
        var session: WireConnection?
        var lastError = ""
        while session == nil, Date() < giveUp {
            switch verify(as: identity) {
            case .success(let connection): session = connection
            case .failure(let error):
                lastError = error.description
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        guard let session else {
            record(
                Checks.restart,
                .fail,
                ["pair-verify did not succeed within \(Int(Self.restartComeBack)) s of the restart: \(lastError)"]
            )
            return
        }
        defer { session.close() }
        var problems: [String] = []
        let after: AccessoryDatabase
        do {
            let response = try session.send(HTTPRequest(method: .get, target: "/accessories"))
            guard response.status.code == 200 else {
                throw WireError(
                    description: "GET /accessories answered HTTP \(response.status.code) \(bodyText(response))"
                )
            }
            after = try HAPJSON.decode(AccessoryDatabase.self, from: Data(response.body))
        } catch {
            record(Checks.restart, .fail, ["the database could not be read after the restart: \(error)"])
            return
        }
        let old = Self.identifiers(before)
        let new = Self.identifiers(after)
        for gone in old.subtracting(new).sorted().prefix(10) { problems.append("after the restart \(gone) is gone") }
        for added in new.subtracting(old).sorted().prefix(10) { problems.append("after the restart \(added) is new") }
        let eventNote = checkEventsResume(on: session, database: after, problems: &problems)
        record(
            Checks.restart,
            problems: problems,
            passDetails: ["\(old.count) aids and iids unchanged; pair-verify worked again", eventNote]
        )
    }

    /// Every accessory, service and characteristic as `aid`, `aid.iid type`: what must not change (§7.4).
    static func identifiers(_ database: AccessoryDatabase) -> Set<String> {
        var all = Set<String>()
        for accessory in database.accessories {
            all.insert("aid \(accessory.accessoryID)")
            for service in accessory.services {
                all.insert("service \(accessory.accessoryID).\(service.instanceID) (\(service.type.wireForm))")
                for characteristic in service.characteristics {
                    all.insert(
                        "characteristic \(accessory.accessoryID).\(characteristic.instanceID) (\(characteristic.type.wireForm))"
                    )
                }
            }
        }
        return all
    }

    /// Runs `command` with `/bin/sh -c`; a sentence when it failed, else `nil`.
    private func runRestartCommand(_ command: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "the restart command could not be started: \(error.localizedDescription)"
        }
        let deadline = Date().addingTimeInterval(Self.restartCommandTimeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            return "the restart command was still running after \(Int(Self.restartCommandTimeout)) s: \(command)"
        }
        if process.terminationStatus != 0 {
            return "the restart command exited with status \(process.terminationStatus): \(command)"
        }
        return nil
    }

    /// Subscribes on `session`, writes another value from a second session, and expects the event.
    ///
    /// Then restores the value. Adds what went wrong to `problems`; returns a note for the report.
    private func checkEventsResume(
        on session: WireConnection,
        database: AccessoryDatabase,
        problems: inout [String]
    ) -> String {
        let saved = self.database
        self.database = database
        let candidate = eventCandidate()
        self.database = saved
        guard let (id, old, new) = candidate else {
            return "events not checked: no readable, writable characteristic with events and another valid value"
        }
        guard let writer = connectVerified() else {
            problems.append("a second session could not be opened after the restart")
            return ""
        }
        defer { writer.close() }
        do {
            let subscribe = CharacteristicWriteRequest.Item(
                accessoryID: id.accessoryID,
                instanceID: id.instanceID,
                events: true
            )
            let subscribed = try write([subscribe], on: session)
            if subscribed.status(id) != 0 {
                problems.append(
                    "re-subscribing to \(id) answered status \(subscribed.status(id).map(String.init) ?? "none")"
                )
            }
            _ = try write([item(id, new)], on: writer)
            if try event(for: id, on: session, within: 3) == nil {
                problems.append("no event for \(id) within 3 s of writing \(new) after the restart and re-subscribing")
            }
            _ = try write([item(id, old)], on: writer)
        } catch {
            problems.append(error.description)
            _ = try? write([item(id, old)], on: writer)
        }
        return "events on \(id) resumed after re-subscribing"
    }

    /// A verified session as the tester, or `nil`.
    private func connectVerified() -> WireConnection? {
        if case .success(let connection) = verify(as: identity) { return connection }
        return nil
    }
}
