import ByteStreams
import NIOCore
import NIOPosix
import Simulator
import TestSupport
import Testing

@Suite struct ControlCommandTests {
    @Test func readsTheBenchmarkHarnessForms() throws {
        #expect(try ControlCommand(line: "ping") == .ping)
        #expect(try ControlCommand(line: "set 2 9 true") == .set(accessory: "2", characteristic: "9", json: "true"))
        #expect(try ControlCommand(line: "get 6 10") == .get(accessory: "6", characteristic: "10"))
    }

    @Test func readsQuotedNamesWithSpaces() throws {
        let command = try ControlCommand(line: #"set "Hall Sensor" "current temperature" 18.5"#)
        #expect(command == .set(accessory: "Hall Sensor", characteristic: "current temperature", json: "18.5"))
        #expect(try ControlCommand(line: #"press "Front Door""#) == .press(accessory: "Front Door", kind: "single"))
        #expect(try ControlCommand(line: "trigger Hall MOTION") == .trigger(accessory: "Hall", event: "motion"))
    }

    @Test(arguments: [
        ControlCommand.set(accessory: "A \"quoted\" name", characteristic: "on", json: #"{"a": 1}"#),
        .add(preset: "door-lock", name: "Back Door"), .remove(name: ""), .status,
        .press(accessory: "x\\y", kind: "long"),
    ])
    func writesLinesThatReadBackTheSame(command: ControlCommand) throws {
        #expect(try ControlCommand(line: command.line) == command)
    }

    @Test func refusesMalformedLines() {
        #expect(throws: ControlCommandError.empty) { try ControlCommand(line: "   ") }
        #expect(throws: ControlCommandError.unknownCommand("explode")) { try ControlCommand(line: "explode now") }
        #expect(throws: ControlCommandError.usage("get ACCESSORY CHARACTERISTIC")) { try ControlCommand(line: "get 1") }
        #expect(throws: ControlCommandError.unterminatedQuote) { try ControlCommand(line: #"set "Hall 9 1"#) }
        #expect(throws: ControlCommandError.lineTooLong) {
            try ControlCommand(line: "set a b " + String(repeating: "1", count: 5000))
        }
    }

    /// Echoes each command's line back, so a test sees what the server parsed.
    struct EchoHandler: ControlHandler {
        func handle(_ command: ControlCommand) async -> String { "ok " + command.line }
    }

    @Test func answersEachLineInOrderOverTCP() async throws {
        let listener = try await ControlServer(handler: EchoHandler()).bind(.tcp(host: "127.0.0.1", port: 0))
        let port = try #require(listener.port)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await listener.run() }
            let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            let replies = try await client.executeThenClose { inbound, outbound in
                // Two commands in one write and a third split across writes.
                try await outbound.write(ByteBuffer(string: "ping\nget 2 9\nbogus"))
                try await outbound.write(ByteBuffer(string: "\r\n"))
                var text = ""
                for try await buffer in inbound {
                    text += String(buffer: buffer)
                    if text.filter({ $0 == "\n" }).count >= 3 { break }
                }
                return text
            }
            #expect(
                replies
                    == "ok ping\nok get 2 9\nerror unknown command \"bogus\"; use ping, set, get, press, trigger, status, add, remove or fault\n"
            )
            group.cancelAll()
        }
    }

    /// Holds every command until cancelled, so a stop finds commands in flight.
    struct SlowHandler: ControlHandler {
        func handle(_ command: ControlCommand) async -> String {
            try? await Task.sleep(for: .seconds(60))
            return "ok late"
        }
    }

    @Test(.timeLimit(.minutes(2))) func stoppingWithCommandsInFlightClosesEveryConnection() async throws {
        let listener = try await ControlServer(handler: SlowHandler()).bind(.tcp(host: "127.0.0.1", port: 0))
        let port = try #require(listener.port)
        let running = Task { await listener.run() }
        // Every connection sends a command the handler holds; some are being answered, some not yet taken.
        let connections = try await openConnections(to: port, count: 40, greeting: "ping\n")
        try await Task.sleep(for: .milliseconds(200))
        running.cancel()
        await running.value
        for connection in connections { #expect(await connection.closes(within: .seconds(5))) }
        #expect(await connectionIsRefused(port: port))
    }
}
