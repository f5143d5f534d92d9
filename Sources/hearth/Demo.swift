import ArgumentParser
import Crypto
import Foundation
import HAP
import HAPTypes

/// `hearth demo`: pairs an in-process controller with an in-process accessory and prints each step's time.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pair an in-process controller with an in-process accessory and time each step."
    )

    @Option(help: "How many pair-verify and request rounds to time.")
    var rounds = 100

    func validate() throws {
        guard (1...100_000).contains(rounds) else { throw ValidationError("--rounds must be between 1 and 100000.") }
    }

    func run() throws {
        let code = SetupCode.random()
        let setupID = SetupID.random()
        let deviceID = DeviceID.random()
        let payload = SetupPayload(setupCode: code, setupID: setupID, category: .bridge, supportsIP: true)
        let setupHash = SetupHash(setupID: setupID, deviceID: deviceID).base64
        print("accessory   \(deviceID)  setup code \(code)  \(payload.uri)  sh=\(setupHash)")

        let accessoryIdentity = AccessoryIdentity(deviceID: deviceID.description, signingKey: .init())
        let controllerIdentity = ControllerIdentity(pairingID: UUID().uuidString, signingKey: .init())
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max, using: &generator) }

        var clock = StepClock()
        let verifier = clock.time("verifier (once per setup code)") {
            SRPVerifier.pairSetup(setupCode: code.description, salt: salt)
        }
        var accessory = PairSetupAccessory(
            identity: accessoryIdentity,
            verifier: verifier,
            conditions: .init(isPaired: false, failedAttempts: 0, isAnotherPairSetupInProgress: false)
        )
        var controller = PairSetupController(setupCode: code.description, identity: controllerIdentity)
        var table = PairingTable()
        var request = controller.start()
        var record: AccessoryPairing?
        for message in 1...3 {
            let step = clock.time("pair-setup M\(2 * message - 1) → M\(2 * message), accessory") {
                accessory.receive(request)
            }
            for case .paired(let pairing) in step.events { table.save(pairing) }
            let next = try clock.time("pair-setup M\(2 * message) → next, controller") {
                try controller.receive(step.reply)
            }
            switch next {
            case .send(let body): request = body
            case .paired(let pairing): record = pairing
            case .transient: throw ValidationError("the accessory ended pair-setup as transient")
            }
        }
        guard let record else { throw ValidationError("pair-setup did not finish") }
        let isAdmin = table.pairings.first?.isAdmin == true
        print("paired      controller \(controllerIdentity.pairingID) is admin: \(isAdmin)")

        var verifyAccessory = CPUTime.zero
        var verifyController = CPUTime.zero
        var sealOpen = CPUTime.zero
        var lastResponse = ""
        for _ in 0..<rounds {
            var accessorySide = PairVerifyAccessory(identity: accessoryIdentity, pairings: table)
            var controllerSide = PairVerifyController(identity: controllerIdentity, accessory: record)
            var body = controllerSide.start()
            var keys: (accessory: SessionKeys?, controller: SessionKeys?) = (nil, nil)
            while keys.controller == nil {
                let start = CPUTime.now()
                let action = accessorySide.receive(body)
                verifyAccessory += CPUTime.now() - start
                let reply: TLV8
                switch action {
                case .reply(let tlv): reply = tlv
                case .replyAndEncrypt(let tlv, let sessionKeys, _):
                    reply = tlv
                    keys.accessory = sessionKeys
                case .replyAndClose(_, let error): throw error
                }
                let controllerStart = CPUTime.now()
                switch try controllerSide.receive(reply) {
                case .send(let next): body = next
                case .established(let sessionKeys): keys.controller = sessionKeys
                }
                verifyController += CPUTime.now() - controllerStart
            }
            guard let accessoryKeys = keys.accessory, let controllerKeys = keys.controller else { break }
            let start = CPUTime.now()
            var controllerCipher = SessionCipher(keys: controllerKeys, role: .controller)
            var accessoryCipher = SessionCipher(keys: accessoryKeys, role: .accessory)
            let get = Array("GET /accessories HTTP/1.1\r\nHost: demo\r\n\r\n".utf8)
            _ = try accessoryCipher.open(controllerCipher.seal(get))
            let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".utf8)
            lastResponse = String(decoding: try controllerCipher.open(accessoryCipher.seal(response)), as: UTF8.self)
            sealOpen += CPUTime.now() - start
        }
        clock.record("pair-verify M1..M4, accessory (mean of \(rounds))", verifyAccessory / rounds)
        clock.record("pair-verify M1..M4, controller (mean of \(rounds))", verifyController / rounds)
        clock.record("encrypted request + response (mean of \(rounds))", sealOpen / rounds)
        print("session     \(lastResponse.split(separator: "\r\n").first ?? "")")
        clock.printTable()
    }
}

/// Thread CPU time, in nanoseconds.
struct CPUTime: Comparable {
    var nanoseconds: UInt64
    static let zero = CPUTime(nanoseconds: 0)

    static func now() -> CPUTime {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return CPUTime(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    static func - (lhs: CPUTime, rhs: CPUTime) -> CPUTime { CPUTime(nanoseconds: lhs.nanoseconds &- rhs.nanoseconds) }
    static func + (lhs: CPUTime, rhs: CPUTime) -> CPUTime { CPUTime(nanoseconds: lhs.nanoseconds + rhs.nanoseconds) }
    static func += (lhs: inout CPUTime, rhs: CPUTime) { lhs = lhs + rhs }
    static func / (lhs: CPUTime, rhs: Int) -> CPUTime { CPUTime(nanoseconds: lhs.nanoseconds / UInt64(max(rhs, 1))) }
    static func < (lhs: CPUTime, rhs: CPUTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    var milliseconds: String { String(format: "%.3f ms", Double(nanoseconds) / 1_000_000) }
}

/// Collects step timings and prints them as an aligned table.
struct StepClock {
    private var rows: [(String, CPUTime)] = []

    mutating func time<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        let start = CPUTime.now()
        let result = try body()
        record(label, CPUTime.now() - start)
        return result
    }

    mutating func record(_ label: String, _ time: CPUTime) {
        rows.append((label, time))
    }

    func printTable() {
        let width = rows.map(\.0.count).max() ?? 0
        print("\n" + "STEP".padding(toLength: width, withPad: " ", startingAt: 0) + "  CPU")
        for (label, time) in rows {
            print(label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + time.milliseconds)
        }
        let setupAccessory = rows.filter { $0.0.hasPrefix("pair-setup") && $0.0.hasSuffix("accessory") }
            .reduce(CPUTime.zero) { $0 + $1.1 }
        let setupController = rows.filter { $0.0.hasPrefix("pair-setup") && $0.0.hasSuffix("controller") }
            .reduce(CPUTime.zero) { $0 + $1.1 }
        print("pair-setup total: accessory \(setupAccessory.milliseconds), controller \(setupController.milliseconds)")
    }
}
