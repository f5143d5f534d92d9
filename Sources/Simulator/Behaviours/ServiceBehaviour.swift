import HAP
import HAPTypes

/// How one kind of service acts on its own: reactions to writes, the passing of time, and physical-world events.
///
/// Each kind is a small value type chosen by the service's type; see ``makeBehaviour(for:timing:now:)``.
protocol ServiceBehaviour: Sendable {
    /// The physical-world events this kind understands (`"jam"`, `"motion"` …).
    var events: [String] { get }
    /// Reacts after a controller or the physical world set characteristic `type` to `value`.
    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues)
    /// Moves on to `service.now`.
    mutating func tick(_ service: inout ServiceValues)
    /// Carries out a physical-world event; false when this kind does not know it.
    mutating func trigger(_ event: String, in service: inout ServiceValues) -> Bool
}

extension ServiceBehaviour {
    var events: [String] { [] }
    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) {}
    mutating func tick(_ service: inout ServiceValues) {}
    mutating func trigger(_ event: String, in service: inout ServiceValues) -> Bool { false }
}

/// The behaviour for a service of type `serviceType`, or `nil` for a service that only holds values.
func makeBehaviour(for serviceType: HAPUUID, timing: BehaviourTiming, now: Duration) -> (any ServiceBehaviour)? {
    switch serviceType.appleShortID {
    case 0x45: LockBehaviour(delay: timing.lockDelay)
    case 0x41: GarageDoorBehaviour(travel: timing.doorTravel)
    case 0x8C, 0x81, 0x8B: PositionBehaviour(step: timing.positionStep, interval: timing.positionInterval)
    case 0x4A: ThermostatBehaviour(step: timing.temperatureStep, interval: timing.temperatureInterval)
    case 0xBC: HeaterCoolerBehaviour(step: timing.temperatureStep, interval: timing.temperatureInterval)
    case 0xB7: ActiveStateBehaviour(state: Types.currentFanState, activeValue: 2)
    case 0xBB: ActiveStateBehaviour(state: Types.currentAirPurifierState, activeValue: 2)
    case 0x47: OutletBehaviour()
    case 0x7E: SecuritySystemBehaviour()
    case 0x96:
        BatteryBehaviour(interval: timing.batteryDrainInterval, threshold: timing.lowBatteryThreshold, start: now)
    case 0x85: SensorBehaviour(type: Types.motionDetected, on: ["motion"], off: ["still", "clear"])
    case 0x80: SensorBehaviour(type: Types.contactState, on: ["open"], off: ["close", "closed"])
    case 0x86: SensorBehaviour(type: Types.occupancyDetected, on: ["occupied", "occupancy"], off: ["vacant", "clear"])
    case 0x83: SensorBehaviour(type: Types.leakDetected, on: ["leak"], off: ["dry", "clear"])
    case 0x87: SensorBehaviour(type: Types.smokeDetected, on: ["smoke"], off: ["clear"])
    case 0x7F: SensorBehaviour(type: Types.carbonMonoxideDetected, on: ["co", "carbon-monoxide"], off: ["clear"])
    case 0x89, 0x121: ButtonBehaviour()
    default: nil
    }
}

/// A lock: the current state follows the target after a delay; `jam` makes it report jammed (2).
struct LockBehaviour: ServiceBehaviour {
    let delay: Duration
    private var pending: (target: Int, due: Duration)?

    init(delay: Duration) { self.delay = delay }

    var events: [String] { ["jam", "unjam", "lock", "unlock"] }

    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) {
        guard type == Types.lockTargetState, let target = service.int(Types.lockTargetState) else { return }
        pending = (target, service.now + delay)
        tick(&service)
    }

    mutating func tick(_ service: inout ServiceValues) {
        guard let pending, service.now >= pending.due else { return }
        self.pending = nil
        service.set(Types.lockCurrentState, Double(pending.target))
    }

    mutating func trigger(_ event: String, in service: inout ServiceValues) -> Bool {
        switch event {
        case "jam":
            pending = nil
            service.set(Types.lockCurrentState, 2)
        case "unjam":
            pending = nil
            service.set(Types.lockCurrentState, service.double(Types.lockTargetState) ?? 1)
        case "lock", "unlock":
            // Someone turns the key: both states change at once.
            pending = nil
            let secured: Double = event == "lock" ? 1 : 0
            service.set(Types.lockTargetState, secured)
            service.set(Types.lockCurrentState, secured)
        default:
            return false
        }
        return true
    }
}

/// A garage door: opening (2) or closing (3) for the travel time, then open (0) or closed (1).
///
/// `obstruct` stops a moving door (4) and sets ObstructionDetected; `clear` removes the obstruction.
struct GarageDoorBehaviour: ServiceBehaviour {
    let travel: Duration
    private var arrival: (target: Int, due: Duration)?

    init(travel: Duration) { self.travel = travel }

    var events: [String] { ["open", "close", "obstruct", "clear"] }

    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) {
        guard type == Types.targetDoorState, let target = service.int(Types.targetDoorState) else { return }
        start(toward: target, in: &service)
    }

    mutating func tick(_ service: inout ServiceValues) {
        guard let arrival, service.now >= arrival.due else { return }
        self.arrival = nil
        service.set(Types.currentDoorState, Double(arrival.target))
    }

    mutating func trigger(_ event: String, in service: inout ServiceValues) -> Bool {
        switch event {
        case "open", "close":
            // Someone presses the wall button.
            let target = event == "open" ? 0 : 1
            service.set(Types.targetDoorState, Double(target))
            start(toward: target, in: &service)
        case "obstruct":
            service.set(Types.obstructionDetected, true)
            if arrival != nil {
                arrival = nil
                service.set(Types.currentDoorState, 4)
            }
        case "clear":
            service.set(Types.obstructionDetected, false)
        default:
            return false
        }
        return true
    }

    private mutating func start(toward target: Int, in service: inout ServiceValues) {
        guard service.int(Types.currentDoorState) != target else {
            arrival = nil
            return
        }
        service.set(Types.obstructionDetected, false)
        service.set(Types.currentDoorState, target == 0 ? 2 : 3)
        arrival = (target, service.now + travel)
        tick(&service)
    }
}
