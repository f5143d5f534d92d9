import ArgumentParser
import NIOCore
import NIOPosix
import Simulator

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends one control command to the running instance (through the state folder's socket) and prints the reply.
func sendControl(_ command: ControlCommand, options: GlobalOptions) async -> Never {
    let path = options.folder.controlSocket
    let reply: String
    do {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        reply = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: command.line + "\n"))
            var text = ""
            for try await buffer in inbound {
                text += String(buffer: buffer)
                if text.contains("\n") { break }
            }
            return text.trimmingWhitespace()
        }
    } catch {
        fail(
            "no hearth-sim is running with state folder \(options.state). Start one with 'hearth-sim serve --state \(options.state)'.",
            code: 5
        )
    }
    if reply == "pong" || reply == "ok" || reply.hasPrefix("ok ") {
        let result = reply.hasPrefix("ok ") ? String(reply.dropFirst(3)) : ""
        if options.json {
            print(result.hasPrefix("{") ? result : "{\"result\":\(result.isEmpty ? "null" : "\"\(result)\"")}")
        } else if !result.isEmpty {
            print(result)
        }
        exit(0)
    }
    let message = reply.hasPrefix("error ") ? String(reply.dropFirst(6)) : reply
    let isNotFound =
        message.hasPrefix("no accessory") || message.hasPrefix("no characteristic")
        || message.contains("unknown accessory") || message.contains("unknown characteristic")
    let isBadRequest = message.hasPrefix("unknown fault") || message.hasPrefix("fault \"")
    fail(message, code: isNotFound ? 3 : isBadRequest ? 2 : 1)
}

/// `hearth-sim set ACCESSORY CHARACTERISTIC VALUE`.
struct SetValue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Change a value as the world would.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Accessory name or aid.") var accessory: String
    @Argument(help: "Characteristic name, synonym or iid.") var characteristic: String
    @Argument(help: "The value as JSON: true, 21.5, \"text\", or a value name such as locked.") var value: String

    func run() async throws {
        let json =
            ["true", "false"].contains(value) || Double(value) != nil || value.hasPrefix("\"") ? value : "\"\(value)\""
        await sendControl(.set(accessory: accessory, characteristic: characteristic, json: json), options: global)
    }
}

/// `hearth-sim get ACCESSORY CHARACTERISTIC`.
struct GetValue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Read a value.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Accessory name or aid.") var accessory: String
    @Argument(help: "Characteristic name, synonym or iid.") var characteristic: String

    func run() async throws {
        await sendControl(.get(accessory: accessory, characteristic: characteristic), options: global)
    }
}

/// `hearth-sim press ACCESSORY [single|double|long]`.
struct Press: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Press a button or doorbell.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Accessory name or aid.") var accessory: String
    @Argument(help: "single, double or long.") var kind = "single"

    func run() async throws { await sendControl(.press(accessory: accessory, kind: kind), options: global) }
}

/// `hearth-sim trigger ACCESSORY EVENT`.
struct Trigger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make something happen: motion, open, close, jam, obstruct, alarm, leak, smoke …"
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Accessory name or aid.") var accessory: String
    @Argument(help: "The event.") var event: String

    func run() async throws { await sendControl(.trigger(accessory: accessory, event: event), options: global) }
}

/// `hearth-sim status`.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show every accessory and its values as JSON.")
    @OptionGroup var global: GlobalOptions

    func run() async throws { await sendControl(.status, options: global) }
}

/// `hearth-sim add PRESET NAME`.
struct AddAccessory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an accessory to the bridge.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "A preset name (docs/simulator.md).") var preset: String
    @Argument(help: "The new accessory's name.") var name: String

    func run() async throws { await sendControl(.add(preset: preset, name: name), options: global) }
}

/// `hearth-sim remove NAME`.
struct RemoveAccessory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an accessory from the bridge."
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The accessory's name.") var name: String

    func run() async throws { await sendControl(.remove(name: name), options: global) }
}

/// `hearth-sim fault set NAME[:ARGS]`, `fault clear NAME|all`, `fault list`.
struct FaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fault",
        abstract: "Make the running simulator misbehave on purpose, or stop it (docs/simulator.md).",
        discussion: """
            Faults: drop-after:N, slow:MS or slow:MIN-MAX[:SEED], stop-answering, malformed-frame, \
            wrong-length[:DELTA], refuse-pair-verify, drop-after-m5, flap:SECONDS, reboot[:SECONDS], stray-events[:SECONDS], \
            out-of-range[:ACCESSORY[:CHARACTERISTIC]].
            """
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: "set, clear or list.") var action: String
    @Argument(help: "For set: NAME[:ARGS]; for clear: NAME or all.") var fault: String?

    func validate() throws {
        switch (action.lowercased(), fault) {
        case ("set", .some), ("clear", .some), ("list", .none): break
        default: throw ValidationError("use 'fault set NAME[:ARGS]', 'fault clear NAME|all' or 'fault list'.")
        }
    }

    func run() async throws {
        switch action.lowercased() {
        case "set": await sendControl(.faultSet(fault ?? ""), options: global)
        case "clear": await sendControl(.faultClear((fault ?? "").lowercased()), options: global)
        default: await sendControl(.faultList, options: global)
        }
    }
}
