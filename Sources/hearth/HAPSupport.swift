import ArgumentParser
import DNSSD
import Foundation
import HAP
import HAPController
import HAPTypes
import NIOPosix

/// Options every `hearth hap` command takes (docs/style.md §3).
struct HAPOptions: ParsableArguments {
    @Option(help: "The state folder holding this controller's identity and pairings.")
    var state: String = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".hearth").path

    @Flag(help: "Print one JSON object on stdout instead of text.")
    var json = false

    /// The pairing store in the state folder, which is made (mode 0700) when missing.
    func store() -> ControllerPairingStore {
        do {
            try FileManager.default.createDirectory(
                atPath: state,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            fail("cannot make the state folder \(state). Check its path and permissions", code: 1, kind: "store")
        }
        return ControllerPairingStore(folder: state)
    }

    /// Reads an accessory argument; exits 2 when it is neither a device ID nor ADDRESS:PORT.
    func target(_ text: String) -> AccessoryTarget {
        do throws(CommandLineArgumentError) {
            return try AccessoryTarget(text)
        } catch {
            fail(error)
        }
    }

    /// Every stored pairing; exits 1 when the store cannot be read.
    func records() async -> [PairedAccessoryRecord] {
        do throws(ControllerStoreError) {
            return try await store().accessories()
        } catch {
            fail(HAPControllerError.store(error))
        }
    }

    /// This controller's identity, made on first use; exits 1 when the store cannot be written.
    func identity() async -> ControllerIdentity {
        do throws(ControllerStoreError) {
            return try await store().identity()
        } catch {
            fail(HAPControllerError.store(error))
        }
    }

    /// Stores a pairing, or forgets one with `removing`; exits 1 when the store cannot be written.
    func update(saving record: PairedAccessoryRecord? = nil, removing deviceID: String? = nil) async {
        do throws(ControllerStoreError) {
            if let record { try await store().save(record) }
            if let deviceID { try await store().remove(deviceID: deviceID) }
        } catch {
            fail(HAPControllerError.store(error))
        }
    }

    /// The stored pairing of the accessory `target` names; exits 3 when there is none.
    func record(for target: AccessoryTarget) async -> PairedAccessoryRecord {
        guard let record = await records().first(where: { target.matches($0) }) else {
            fail(
                "no pairing with \(target) in \(state). Pair it first with 'hearth hap pair --code CODE \(target)'",
                code: 3,
                kind: "notFound"
            )
        }
        return record
    }

    /// Runs `body` with a verified client of the paired accessory `target` names, closing it afterwards.
    ///
    /// When the stored address does not answer and `interfaces` are given, the accessory is looked up over mDNS
    /// there, `body` runs once more at the address found, and that address is stored.
    func withAccessory<Result>(
        _ target: AccessoryTarget,
        interfaces: [String] = [],
        _ body: (PairedAccessory) async throws(HAPControllerError) -> Result
    ) async -> Result {
        let record = await record(for: target)
        let accessory = PairedAccessory(record: record, identity: await identity())
        do throws(HAPControllerError) {
            let result: Result
            do {
                result = try await body(accessory)
            } catch .unreachable where !interfaces.isEmpty {
                guard await relocate(accessory, interfaces: interfaces) else {
                    throw .unreachable(host: record.host, port: record.port)
                }
                result = try await body(accessory)
                await update(saving: await accessory.currentRecord)
            }
            await accessory.close()
            return result
        } catch {
            await accessory.close()
            fail(error)
        }
    }

    /// Looks a paired accessory up over mDNS on `interfaces` and moves its client there.
    ///
    /// Returns `false` when it was found at the address already in use; exits 5 when it does not answer in 10 s.
    func relocate(_ accessory: PairedAccessory, interfaces: [String]) async -> Bool {
        let record = await accessory.currentRecord
        let found = await Discovery.locate(
            deviceID: record.deviceID,
            interfaces: interfaces,
            timeout: 10,
            options: self
        )
        guard let host = found.host, host != record.host || found.port != record.port else { return false }
        await accessory.noteAddress(host: host, port: found.port)
        return true
    }

    /// Prints an error as one line on stderr (and the error object on stdout with `--json`), then exits.
    func fail(_ message: String, code: Int32, kind: String) -> Never {
        let sentence = message.hasSuffix(".") ? message : message + "."
        if json {
            Output.json(ErrorReply(error: .init(code: kind, message: sentence)))
        }
        Output.standardError("error: " + sentence)
        Foundation.exit(code)
    }

    /// Fails with a controller error's message and exit code.
    func fail(_ error: HAPControllerError) -> Never {
        let kind = Self.kind(of: error)
        if case .pairingRefused(.authentication) = error {
            fail(
                "the accessory refused: this controller is not an admin of it. Use an admin pairing",
                code: 4,
                kind: "notPermitted"
            )
        }
        fail(error.description, code: error.exitCode, kind: kind)
    }

    /// The error object's `code` for a controller error: the case's name.
    static func kind(of error: HAPControllerError) -> String {
        switch error {
        case .wrongSetupCode: "wrongSetupCode"
        case .alreadyPaired: "alreadyPaired"
        case .pairingRefused: "pairingRefused"
        case .pairingFailed: "pairingFailed"
        case .verificationFailed: "verificationFailed"
        case .unreachable: "unreachable"
        case .timedOut: "timedOut"
        case .connectionClosed: "connectionClosed"
        case .malformedResponse: "malformedResponse"
        case .sessionFailed: "sessionFailed"
        case .malformedBody: "malformedBody"
        case .unexpectedHTTPStatus: "unexpectedHTTPStatus"
        case .accessoryRefused: "accessoryRefused"
        case .unknownCharacteristic: "unknownCharacteristic"
        case .characteristicNotFound: "notFound"
        case .closed: "closed"
        case .store: "store"
        }
    }

    /// Fails with a usage error (exit code 2).
    func fail(_ error: CommandLineArgumentError) -> Never {
        fail(error.description, code: 2, kind: "usage")
    }
}

/// `--interface` for commands that reach a paired accessory: where to look it up over mDNS when its stored address
/// does not answer.
struct ResolveOptions: ParsableArguments {
    @Option(
        name: .customLong("interface"),
        help: "An IPv4 address to look the accessory up on over mDNS when its stored address fails (repeatable)."
    )
    var interfaces: [String] = []
}

/// The API's error object (docs/style.md §4).
struct ErrorReply: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
    }
    var error: Detail
}

/// Writes results to stdout and messages to stderr, unbuffered so that lines arrive as they happen.
///
/// Text reaches the terminal only through here, escaped (``Terminal/escaped(_:)``): names come from users and
/// accessories, and a control or bidirectional control character in one must not drive the terminal.
enum Output {
    /// The most characters a table cell other than the last in its row shows; longer ones end in "…".
    static let maximumCellWidth = 40

    /// Writes one line to stdout.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((Terminal.escaped(text) + "\n").utf8))
    }

    /// Writes text that already ends with a newline to stdout.
    static func text(_ text: String) {
        FileHandle.standardOutput.write(Data(Terminal.escaped(text).utf8))
    }

    /// Writes one line to stderr.
    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data((Terminal.escaped(text) + "\n").utf8))
    }

    /// Writes one line of JSON text (from `JSONEncoder`) to stdout, with every character that could drive a
    /// terminal written as a `\uXXXX` escape, so that it is still the same JSON.
    static func jsonLine(_ json: String) {
        FileHandle.standardOutput.write(Data((Terminal.jsonEscaped(json) + "\n").utf8))
    }

    /// Writes a value as one line of compact JSON with sorted keys.
    static func json(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return }
        jsonLine(String(decoding: data, as: UTF8.self))
    }

    /// Lines of columns padded to the widest cell; the last column is not padded.
    ///
    /// Cells are escaped, and every cell but the last of its row is cut to ``maximumCellWidth`` characters, so
    /// that one long name does not stretch every line.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                let escaped = Terminal.escaped(cell)
                return column == row.count - 1 ? escaped : Terminal.truncated(escaped, to: maximumCellWidth)
            }
        }
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ")
        }
        .joined(separator: "\n") + "\n"
    }
}

/// Making text safe to write to a terminal.
enum Terminal {
    /// `text` with every control character but new line and tab (C0, DEL, C1) and every bidirectional embedding,
    /// override or isolate character (U+202A–U+202E, U+2066–U+2069) written as `\u{…}`: `"\u{7}\u{1B}[31m"`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// JSON text with each unsafe character written as a JSON `\uXXXX` escape.
    ///
    /// `JSONEncoder` escapes C0 controls itself, but writes DEL, C1 and bidirectional controls as they are; those
    /// can only stand inside JSON strings, where the escape means the same character.
    static func jsonEscaped(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: isUnsafe) else { return json }
        var result = ""
        for scalar in json.unicodeScalars {
            if isUnsafe(scalar) {
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` cut to `width` characters, its last one "…", when it is longer.
    static func truncated(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// Whether writing the character could move the cursor, change colours or reorder what follows it.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool { scalar.isTerminalControl }
}

/// Finds accessories over mDNS on the given interfaces.
enum Discovery {
    /// Every accessory seen within `timeout` seconds, or the one with `deviceID` as soon as it is seen.
    static func browse(
        interfaces: [String],
        timeout: Double,
        deviceID: String? = nil,
        options: HAPOptions
    ) async -> [DiscoveredAccessory] {
        var addresses: [IPv4Address] = []
        for text in interfaces {
            guard let address = IPv4Address(text) else {
                options.fail(
                    "\(text) is not an IPv4 address. Give --interface as, for example, 192.168.1.20",
                    code: 2,
                    kind: "usage"
                )
            }
            addresses.append(address)
        }
        let browser = AccessoryBrowser(interfaces: addresses, group: MultiThreadedEventLoopGroup.singleton)
        do throws(MDNSError) {
            try await browser.start()
        } catch {
            options.fail("mDNS could not start (\(error)). Check the --interface addresses", code: 1, kind: "mdns")
        }
        let events = browser.events
        let stopper = Task {
            try? await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
            await browser.stop()
        }
        var found: [String: DiscoveredAccessory] = [:]
        for await event in events {
            switch event {
            case .found(let accessory), .updated(let accessory):
                found[accessory.deviceID] = accessory
                if let deviceID, accessory.deviceID == deviceID, accessory.host != nil {
                    stopper.cancel()
                    await browser.stop()
                    return [accessory]
                }
            case .removed(let id):
                found[id] = nil
            }
        }
        await browser.stop()
        if deviceID != nil { return [] }
        return found.values.sorted { ($0.name, $0.deviceID) < ($1.name, $1.deviceID) }
    }

    /// Where the accessory with `deviceID` listens; exits 5 when it does not show up within `timeout` seconds.
    static func locate(
        deviceID: String,
        interfaces: [String],
        timeout: Double,
        options: HAPOptions
    ) async -> DiscoveredAccessory {
        guard !interfaces.isEmpty else {
            options.fail(
                "finding \(deviceID) needs mDNS. Pass --interface ADDRESS, or name the accessory as ADDRESS:PORT",
                code: 2,
                kind: "usage"
            )
        }
        let found = await browse(interfaces: interfaces, timeout: timeout, deviceID: deviceID, options: options)
        guard let accessory = found.first else {
            options.fail(
                "no accessory \(deviceID) answered over mDNS within \(timeout) s. Check that it is on and on the network of --interface",
                code: 5,
                kind: "unreachable"
            )
        }
        return accessory
    }
}

extension AccessoryCategory {
    /// The case's name (`lightbulb`, `doorLock`).
    var name: String { String(describing: self) }
}

/// Lowercase hexadecimal text of bytes.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// Bytes from hexadecimal text; `nil` when it is not an even number of hex digits.
func bytes(hex text: String) -> [UInt8]? {
    let characters = Array(text)
    guard characters.count.isMultiple(of: 2) else { return nil }
    var result: [UInt8] = []
    for index in stride(from: 0, to: characters.count, by: 2) {
        guard let byte = UInt8(String(characters[index...index + 1]), radix: 16) else { return nil }
        result.append(byte)
    }
    return result
}
