import HAP
import HAPAccessoryServer
import HAPTypes

/// The faults of one running simulator: switches them on and off, and runs the timed ones (flap, reboot, stray
/// events). The description file, `--fault` and the control interface all come here.
///
/// Transport faults go to the server's ``TransportFaults`` (consulted per request and message); the others act on
/// the server or the simulated accessories. Every task it starts ends when its fault is cleared or on ``stop()``.
public actor SimulatorFaults {
    private let server: AccessoryServer
    private let simulator: SimulatedAccessories
    private var active: [String: SimulatorFault] = [:]
    private var tasks: [String: Task<Void, Never>] = [:]
    /// The value `out-of-range` replaced, put back when it is cleared.
    private var replaced: (id: CharacteristicID, value: HAPValue?)?

    /// Makes the faults of `server` serving `simulator`; the server must have been made with a ``TransportFaults``
    /// for the transport faults to work.
    public init(server: AccessoryServer, simulator: SimulatedAccessories) {
        self.server = server
        self.simulator = simulator
    }

    /// The faults switched on, in the order of ``SimulatorFault/names``.
    public var list: [SimulatorFault] {
        SimulatorFault.names.compactMap { active[$0] }
    }

    /// Switches a fault on, replacing one of the same name.
    public func set(_ fault: SimulatorFault) async throws(SimulatorFaultError) {
        await clear(fault.name)
        let transport = server.faults
        func needTransport() throws(SimulatorFaultError) -> TransportFaults {
            guard let transport else {
                throw .unavailable(fault: fault.name, reason: "the accessory server was made without a fault hook")
            }
            return transport
        }
        switch fault {
        case .dropAfter(let requests):
            try needTransport().update { $0.dropAfterRequests = requests }
        case .slow(let milliseconds, let seed):
            try needTransport().update {
                $0.delay = .milliseconds(milliseconds.lowerBound) ... .milliseconds(milliseconds.upperBound)
                $0.delaySeed = seed
            }
        case .stopAnswering:
            try needTransport().update { $0.stopsAnswering = true }
        case .malformedFrame:
            try needTransport().update { $0.sendsMalformedFrames = true }
        case .wrongLength(let delta):
            try needTransport().update { $0.contentLengthError = delta }
        case .refusePairVerify:
            try needTransport().update { $0.refusesPairVerify = true }
        case .dropAfterM5:
            try needTransport().update { $0.dropsPairSetupM6 = true }
        case .flap(let seconds):
            let server = self.server
            tasks[fault.name] = Task {
                while !Task.isCancelled {
                    await server.goOffline()
                    guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { break }
                    try? await server.comeOnline()
                    guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { break }
                }
            }
        case .reboot(let seconds):
            guard let seconds else {
                // Once, now: nothing stays switched on.
                do { try await server.reboot() } catch {
                    throw .unavailable(fault: fault.name, reason: "listening again failed: \(error)")
                }
                return
            }
            let server = self.server
            tasks[fault.name] = Task {
                while !Task.isCancelled {
                    guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { break }
                    try? await server.reboot()
                }
            }
        case .strayEvents(let seconds):
            let server = self.server
            tasks[fault.name] = Task {
                while !Task.isCancelled {
                    await server.sendStrayEvents()
                    guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { break }
                }
            }
        case .outOfRange(let accessory, let characteristic):
            let (id, previous) = try await simulator.forceOutOfRange(
                accessory: accessory,
                characteristic: characteristic
            )
            replaced = (id, previous)
        }
        active[fault.name] = fault
    }

    /// Switches a fault off by name; an unknown name is an error, a fault not on is no change.
    public func clear(named name: String) async throws(SimulatorFaultError) {
        let key = name.lowercased()
        guard SimulatorFault.names.contains(key) else { throw .unknownFault(name) }
        await clear(key)
    }

    /// Switches every fault off.
    public func clearAll() async {
        for name in SimulatorFault.names { await clear(name) }
    }

    /// Switches every fault off and ends their tasks; the server is left online.
    public func stop() async {
        await clearAll()
    }

    private func clear(_ name: String) async {
        if let task = tasks.removeValue(forKey: name) {
            task.cancel()
            // Its last step (going offline, say) must be over before clearing undoes it.
            await task.value
        }
        guard active.removeValue(forKey: name) != nil else { return }
        let transport = server.faults
        switch name {
        case "drop-after": transport?.update { $0.dropAfterRequests = nil }
        case "slow": transport?.update { $0.delay = nil }
        case "stop-answering": transport?.update { $0.stopsAnswering = false }
        case "malformed-frame": transport?.update { $0.sendsMalformedFrames = false }
        case "wrong-length": transport?.update { $0.contentLengthError = nil }
        case "refuse-pair-verify": transport?.update { $0.refusesPairVerify = false }
        case "drop-after-m5": transport?.update { $0.dropsPairSetupM6 = false }
        case "flap":
            // The flapping task may be between its steps: make sure it is back.
            try? await server.comeOnline()
        case "out-of-range":
            if let replaced { await simulator.restoreValue(replaced.value, at: replaced.id) }
            replaced = nil
        default: break
        }
    }
}
