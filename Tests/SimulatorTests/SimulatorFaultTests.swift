import Foundation
import HAP
import HAPAccessoryServer
import HAPTypes
import NIOPosix
import Simulator
import Testing

/// Faults as written in a description, on the command line and on the control interface.
@Suite struct SimulatorFaultTests {
    @Test(arguments: [
        ("drop-after:3", SimulatorFault.dropAfter(requests: 3)),
        ("slow:200", .slow(milliseconds: 200...200, seed: 1)),
        ("slow:100-400:42", .slow(milliseconds: 100...400, seed: 42)),
        ("stop-answering", .stopAnswering),
        ("Malformed-Frame", .malformedFrame),
        ("wrong-length", .wrongLength(delta: 1)),
        ("wrong-length:-2", .wrongLength(delta: -2)),
        ("refuse-pair-verify", .refusePairVerify),
        ("drop-after-m5", .dropAfterM5),
        ("flap:0.5", .flap(seconds: 0.5)),
        ("reboot", .reboot(everySeconds: nil)),
        ("reboot:30", .reboot(everySeconds: 30)),
        ("stray-events", .strayEvents(everySeconds: 1)),
        ("out-of-range", .outOfRange(accessory: nil, characteristic: nil)),
        ("out-of-range:Hall Light:brightness", .outOfRange(accessory: "Hall Light", characteristic: "brightness")),
    ])
    func readsEveryFaultAndWritesItBack(text: String, fault: SimulatorFault) throws {
        #expect(try SimulatorFault(parsing: text) == fault)
        #expect(try SimulatorFault(parsing: fault.description) == fault)
    }

    @Test(arguments: [
        ("drop-after:0", #"fault "drop-after" got "0"; it takes N as a whole number from 1 to 10000"#),
        ("drop-after", #"fault "drop-after" is written drop-after:N, N requests from 1 to 10000"#),
        (
            "slow:40000",
            #"fault "slow" got "40000"; it takes the delay in milliseconds as a whole number from 0 to 30000"#
        ),
        ("slow:500-100", #"fault "slow" got "500-100"; it takes MIN no larger than MAX"#),
        ("wrong-length:0", #"fault "wrong-length" got "0"; it takes a DELTA other than 0"#),
        ("flap:0", #"fault "flap" got "0"; it takes SECONDS from 0.1 to 3600"#),
        ("stop-answering:5", #"fault "stop-answering" is written stop-answering (no arguments)"#),
        (
            "explode",
            #"unknown fault "explode"; use one of drop-after, slow, stop-answering, malformed-frame, wrong-length, refuse-pair-verify, drop-after-m5, flap, reboot, stray-events, out-of-range"#
        ),
    ])
    func refusesBadFaultsWithASentence(text: String, message: String) {
        #expect(throws: (any Error).self) { try SimulatorFault(parsing: text) }
        do {
            _ = try SimulatorFault(parsing: text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aDescriptionSwitchesFaultsOnAndNamesABadOne() throws {
        let good = try SimulatorDescription(
            jsonData: Data(
                #"{"bridge": null, "accessories": [{"name": "Lamp", "preset": "lightbulb"}], "faults": ["slow:50", "drop-after:2"]}"#
                    .utf8
            )
        )
        #expect(try good.parsedFaults() == [.slow(milliseconds: 50...50, seed: 1), .dropAfter(requests: 2)])
        let yaml = try SimulatorDescription(
            yamlText: """
                bridge: null
                accessories:
                  - {name: Lamp, preset: lightbulb}
                faults: [stop-answering, "flap:2"]
                """
        )
        #expect(try yaml.parsedFaults() == [.stopAnswering, .flap(seconds: 2)])
        do {
            _ = try SimulatorDescription(
                jsonData: Data(
                    #"{"bridge": null, "accessories": [{"name": "Lamp", "preset": "lightbulb"}], "faults": ["slow:50", "slow:abc"]}"#
                        .utf8
                )
            )
            Issue.record("a bad fault was accepted")
        } catch {
            #expect(
                "\(error)"
                    == #"faults[1]: fault "slow" got "abc"; it takes the delay in milliseconds as a whole number from 0 to 30000"#
            )
        }
    }

    @Test func readsFaultControlLines() throws {
        #expect(try ControlCommand(line: "fault set drop-after:3") == .faultSet("drop-after:3"))
        #expect(try ControlCommand(line: "fault set slow 100-200 7") == .faultSet("slow:100-200:7"))
        #expect(try ControlCommand(line: "fault clear ALL") == .faultClear("all"))
        #expect(try ControlCommand(line: "FAULT list") == .faultList)
        for command in [ControlCommand.faultSet("out-of-range:Hall Light:on"), .faultClear("slow"), .faultList] {
            #expect(try ControlCommand(line: command.line) == command)
        }
        let usage = ControlCommandError.usage("fault set NAME[:ARGS] | fault clear NAME|all | fault list")
        #expect(throws: usage) { try ControlCommand(line: "fault") }
        #expect(throws: usage) { try ControlCommand(line: "fault set") }
        #expect(throws: usage) { try ControlCommand(line: "fault list now") }
    }

    @Test func theControlInterfaceSwitchesFaultsOnTheRunningServer() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let simulator = try SimulatedAccessories(
            description: SimulatorDescription(
                bridgeName: "Bridge",
                presets: [PresetRequest(preset: .lightbulbDimmable)]
            ),
            identifiers: IdentifierMap(),
            eventLoop: loop
        )
        let server = AccessoryServer(
            configuration: AccessoryServer.Configuration(
                name: "Bridge",
                model: "T",
                category: .bridge,
                host: "127.0.0.1",
                setupCode: try SetupCode("031-45-154")
            ),
            backend: simulator,
            store: InMemoryAccessoryStateStore(),
            eventLoopGroup: loop,
            faults: TransportFaults()
        )
        try await server.start()
        let faults = SimulatorFaults(server: server, simulator: simulator)
        let handler = SimulatorControlHandler(simulator: simulator, faults: faults)
        let transport = try #require(server.faults)

        #expect(await handler.handle(.faultSet("drop-after:3")) == "ok drop-after:3")
        #expect(await handler.handle(.faultSet("slow:10-20:5")) == "ok slow:10-20:5")
        #expect(transport.settings.dropAfterRequests == 3)
        #expect(transport.settings.delay == .milliseconds(10) ... .milliseconds(20))
        #expect(await handler.handle(.faultList) == "ok drop-after:3 slow:10-20:5")
        #expect(await handler.handle(.faultSet("nope")).hasPrefix("error unknown fault \"nope\""))
        #expect(await handler.handle(.faultClear("drop-after")) == "ok")
        #expect(transport.settings.dropAfterRequests == nil)

        // A value above the maximum, then back to what it was.
        let lamp = try #require(await simulator.database().accessories.last)
        let brightness = try #require(
            lamp.services.flatMap(\.characteristics).first { $0.type == HAPUUID(apple: 0x08) }
        )
        let id = CharacteristicID(accessoryID: lamp.accessoryID, instanceID: brightness.instanceID)
        #expect(await handler.handle(.faultSet("out-of-range")) == "ok out-of-range")
        #expect(await simulator.read([id])[id] == .success(.int(110)))
        #expect(await handler.handle(.faultClear("all")) == "ok")
        #expect(await simulator.read([id])[id] == .success(brightness.value))
        #expect(transport.settings.isEmpty)
        #expect(await handler.handle(.faultList) == "ok")

        // Reboot: c# one higher, same device id.
        let before = try #require(await server.advertisement)
        #expect(await handler.handle(.faultSet("reboot")) == "ok reboot")
        let after = try #require(await server.advertisement)
        #expect(after.configurationNumber == before.configurationNumber + 1)
        #expect(after.deviceID == before.deviceID)
        #expect(await server.isOnline)

        let withoutFaults = SimulatorControlHandler(simulator: simulator)
        #expect(await withoutFaults.handle(.faultList) == "error this simulator has no faults to switch")
        await server.stop()
    }
}
