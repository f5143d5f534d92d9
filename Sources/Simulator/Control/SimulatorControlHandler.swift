import HAP
import HAPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Carries out control commands on the simulated accessories: the physical world's side of `hearth-sim`.
public struct SimulatorControlHandler: ControlHandler {
    private let simulator: SimulatedAccessories
    private let structureChanged: @Sendable (IdentifierMap) async -> Void
    private let faults: SimulatorFaults?

    /// Makes a handler.
    ///
    /// `structureChanged` is called with the new id map after an accessory is added or removed, so the caller can
    /// persist it. Without `faults`, the `fault` commands answer an error.
    public init(
        simulator: SimulatedAccessories,
        faults: SimulatorFaults? = nil,
        structureChanged: @escaping @Sendable (IdentifierMap) async -> Void = { _ in }
    ) {
        self.simulator = simulator
        self.faults = faults
        self.structureChanged = structureChanged
    }

    /// The reply line: `ok …` (with the monotonic time in ns just before a change, for latency measurements) or
    /// `error …`.
    public func handle(_ command: ControlCommand) async -> String {
        do {
            switch command {
            case .ping:
                return "pong"
            case .set(let accessory, let characteristic, let json):
                let value = try Self.value(fromJSON: json)
                let time = Self.monotonicNanoseconds()
                try await simulator.set(accessory: accessory, characteristic: characteristic, value: value)
                return "ok \(time)"
            case .get(let accessory, let characteristic):
                let value = try await simulator.value(accessory: accessory, characteristic: characteristic)
                return "ok " + Self.json(value)
            case .press(let accessory, let kind):
                guard let press = ButtonPress(name: kind) else {
                    return "error unknown press \"\(kind)\"; use single, double or long"
                }
                let time = Self.monotonicNanoseconds()
                try await simulator.press(accessory: accessory, kind: press)
                return "ok \(time)"
            case .trigger(let accessory, let event):
                let time = Self.monotonicNanoseconds()
                try await simulator.trigger(accessory: accessory, event: event)
                return "ok \(time)"
            case .status:
                let data = try JSONEncoder().encode(await simulator.snapshot())
                return "ok " + String(decoding: data, as: UTF8.self)
            case .add(let preset, let name):
                let accessoryID = try await simulator.addAccessory(preset: preset, name: name)
                await structureChanged(await simulator.identifiers)
                return "ok \(accessoryID)"
            case .remove(let name):
                try await simulator.removeAccessory(name: name)
                await structureChanged(await simulator.identifiers)
                return "ok"
            case .faultSet, .faultClear, .faultList:
                return await handleFault(command)
            }
        } catch let error as SimulatorError {
            return "error \(error)"
        } catch let error as any CustomStringConvertible {
            return "error \(error.description)"
        } catch {
            return "error the command failed"
        }
    }

    /// The reply to a `fault` command.
    private func handleFault(_ command: ControlCommand) async -> String {
        guard let faults else { return "error this simulator has no faults to switch" }
        do throws(SimulatorFaultError) {
            switch command {
            case .faultSet(let text):
                let fault = try SimulatorFault(parsing: text)
                try await faults.set(fault)
                return "ok \(fault)"
            case .faultClear(let name):
                if name == "all" {
                    await faults.clearAll()
                } else {
                    try await faults.clear(named: name)
                }
                return "ok"
            default:
                let list = await faults.list
                return list.isEmpty ? "ok" : "ok " + list.map(\.description).joined(separator: " ")
            }
        } catch {
            return "error \(error)"
        }
    }

    /// A value from the JSON text of a control command: `true`, `1`, `18.5`, `"text"`.
    static func value(fromJSON text: String) throws -> HAPValue {
        let trimmed = text.trimmingWhitespace()
        switch trimmed {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default: break
        }
        if let integer = Int64(trimmed) { return .int(integer) }
        if let number = Double(trimmed), number.isFinite { return .float(number) }
        if trimmed.hasPrefix("\""), let string = try? JSONDecoder().decode(String.self, from: Data(trimmed.utf8)) {
            return .string(string)
        }
        throw ControlValueError(text: text)
    }

    /// A value as JSON text, `null` for none.
    static func json(_ value: HAPValue?) -> String {
        switch value {
        case .none: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .float(let number): String(number)
        case .string(let text):
            (try? String(decoding: JSONEncoder().encode(text), as: UTF8.self)) ?? "null"
        case .data(let bytes): "\"" + Data(bytes).base64EncodedString() + "\""
        }
    }

    /// CLOCK_MONOTONIC in nanoseconds, shared by every network namespace on the machine.
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// A control command's value was not a JSON boolean, number or string.
struct ControlValueError: Error, CustomStringConvertible {
    var text: String
    var description: String { "not a JSON boolean, number or string: \(text)" }
}

extension ButtonPress {
    /// The press named `single`, `double` or `long`.
    init?(name: String) {
        switch name.lowercased() {
        case "single": self = .single
        case "double": self = .double
        case "long": self = .long
        default: return nil
        }
    }
}

extension SimulatedAccessories {
    /// The current value of a characteristic named as ``set(accessory:characteristic:value:)`` names it.
    public func value(accessory: String, characteristic: String) throws(SimulatorError) -> HAPValue? {
        let (accessoryIndex, built) = try resolveAccessory(accessory)
        let location = try resolveCharacteristic(characteristic, accessoryIndex: accessoryIndex, accessory: built.name)
        return self.characteristic(at: location).value
    }
}
