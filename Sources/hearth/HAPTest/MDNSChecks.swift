import DNSSD
import Foundation
import HAP
import HAPTypes
import NIOPosix
import Synchronization

/// Keeps the latest `_hap._tcp` advertisement of every accessory seen on some interfaces.
final class TXTWatch: Sendable {
    private let browser: MDNSBrowser
    private let seen = Mutex<[String: ResolvedService]>([:])
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Makes a watch on these interfaces; nothing is sent before ``start()``.
    init(interfaces: [IPv4Address]) {
        browser = MDNSBrowser(interfaces: interfaces, group: MultiThreadedEventLoopGroup.singleton)
    }

    /// Starts browsing.
    func start() async throws(MDNSError) {
        try await browser.start()
        let events = browser.events
        let running = Task { [self] in
            for await event in events {
                switch event {
                case .added(let service), .updated(let service): seen.withLock { $0[service.name] = service }
                case .removed(let name): _ = seen.withLock { $0.removeValue(forKey: name) }
                }
            }
        }
        task.withLock { $0 = running }
    }

    /// Stops browsing.
    func stop() async {
        await browser.stop()
        task.withLock { $0?.cancel() }
    }

    /// The first advertisement that satisfies `predicate` within `seconds`, looking every 100 ms.
    func service(within seconds: Double, where predicate: (ResolvedService) -> Bool) async -> ResolvedService? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let found = seen.withLock({ $0.values.first(where: predicate) }) { return found }
            guard Date() < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// Checks of the mDNS advertisement (hap-protocol.md §8).
extension HAPTester {
    /// Whether an advertisement is the target's: its device ID once known, else its address and port.
    func isTarget(_ service: ResolvedService) -> Bool {
        if let pairing { return service.txt["id"]?.uppercased() == pairing.deviceID.uppercased() }
        return Int(service.port) == target.port && service.addresses.contains { $0.description == target.host }
    }

    /// TXT values as they were seen, for a report.
    func show(_ txt: [String: String]) -> String {
        txt.keys.sorted().map { "\($0)=\(txt[$0] ?? "")" }.joined(separator: " ")
    }

    func checkTXTBeforePairing() async {
        guard let txt else {
            record(Checks.txtRecord, .skipped, ["no --interface given to look at mDNS on"])
            record(Checks.setupHash, .skipped, ["no --interface given to look at mDNS on"])
            return
        }
        guard let service = await txt.service(within: 8, where: isTarget) else {
            record(Checks.txtRecord, .fail, ["no _hap._tcp advertisement for \(target.host):\(target.port) within 8 s"])
            record(Checks.setupHash, .skipped, ["no advertisement"])
            return
        }
        let values = service.txt
        configurationNumberAtStart = values["c#"].flatMap { Int($0) }
        var problems = Self.txtProblems(values)
        if let flags = values["sf"].flatMap({ Int($0) }), flags & 1 == 0 {
            problems.append("sf=\(flags) says paired before the tester paired (bit 0 must be set)")
        }
        if problems.isEmpty {
            record(Checks.txtRecord, .pass, [show(values)])
        } else {
            record(Checks.txtRecord, .fail, problems + ["seen: " + show(values)])
        }
        guard let setupID = target.setupID else {
            record(Checks.setupHash, .skipped, ["no setup ID given (--setup-id or --setup-uri)"])
            return
        }
        guard let id = values["id"], let deviceID = try? DeviceID(id.uppercased()), let sh = values["sh"] else {
            record(Checks.setupHash, .fail, ["needs both id and sh; seen: " + show(values)])
            return
        }
        let expected = SetupHash(setupID: setupID, deviceID: deviceID).base64
        if sh == expected {
            record(Checks.setupHash, .pass, ["sh=\(sh)"])
        } else {
            record(Checks.setupHash, .fail, ["sh=\(sh), but SHA-512(\(setupID) | \(id)) gives \(expected)"])
        }
    }

    /// What is wrong with the required TXT keys (hap-protocol.md §8).
    static func txtProblems(_ values: [String: String]) -> [String] {
        var problems: [String] = []
        func number(_ key: String, _ range: ClosedRange<Int>) {
            guard let text = values[key] else {
                problems.append("\(key) is missing")
                return
            }
            guard let value = Int(text), String(value) == text, range.contains(value) else {
                problems.append("\(key)=\(text) is not a decimal number in \(range.lowerBound)...\(range.upperBound)")
                return
            }
        }
        number("c#", 1...65535)
        number("ff", 0...255)
        number("s#", 1...1)
        number("sf", 0...7)
        number("ci", 1...36)
        if let id = values["id"] {
            let parts = id.split(separator: ":", omittingEmptySubsequences: false)
            let wellFormed =
                parts.count == 6
                && parts.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } }
            if !wellFormed { problems.append("id=\(id) is not six upper-case hex bytes XX:XX:XX:XX:XX:XX") }
        } else {
            problems.append("id is missing")
        }
        if let model = values["md"] {
            if model.isEmpty { problems.append("md is empty") }
        } else {
            problems.append("md is missing")
        }
        if let version = values["pv"] {
            let parts = version.split(separator: ".", omittingEmptySubsequences: false)
            if !(parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }) {
                problems.append("pv=\(version) is not a version like 1.1")
            }
        } else {
            problems.append("pv is missing")
        }
        if let hash = values["sh"] {
            if Data(base64Encoded: hash)?.count != 4 { problems.append("sh=\(hash) is not 4 bytes in base64") }
        } else {
            problems.append("sh is missing")
        }
        return problems
    }

    func checkStatusFlagPaired() async {
        guard let txt else { return }
        let paired = await txt.service(within: 5) {
            isTarget($0) && $0.txt["sf"].flatMap { Int($0) }.map { $0 & 1 == 0 } == true
        }
        statusFlagAfterPairing =
            paired == nil ? await txt.service(within: 0, where: isTarget)?.txt["sf"] ?? "no advertisement" : nil
    }

    func checkStatusFlagUnpaired() async {
        guard let txt else {
            record(Checks.statusFlag, .skipped, ["no --interface given to look at mDNS on"])
            return
        }
        var problems: [String] = []
        if let seen = statusFlagAfterPairing { problems.append("5 s after pairing sf was \(seen), bit 0 still set") }
        let deviceID = lastDeviceID
        let unpaired = await txt.service(within: 5) { service in
            service.txt["id"]?.uppercased() == deviceID
                && service.txt["sf"].flatMap { Int($0) }.map { $0 & 1 == 1 } == true
        }
        if unpaired == nil { problems.append("5 s after the last pairing was removed sf still had bit 0 clear") }
        record(Checks.statusFlag, problems: problems)
    }
}
