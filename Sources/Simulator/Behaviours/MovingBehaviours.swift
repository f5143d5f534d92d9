import HAP
import HAPTypes

/// A window covering, door or window: the position moves toward the target one step per interval.
///
/// PositionState is 1 while increasing, 0 while decreasing, 2 when stopped. HoldPosition stops where it is;
/// `obstruct` stops it and sets ObstructionDetected; `open` and `close` move it by hand at once.
struct PositionBehaviour: ServiceBehaviour {
    let step: Int
    let interval: Duration
    private var nextStep: Duration?

    init(step: Int, interval: Duration) {
        self.step = step
        self.interval = interval
    }

    var events: [String] { ["open", "close", "obstruct", "clear"] }

    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) {
        switch type {
        case Types.targetPosition:
            service.set(Types.obstructionDetected, false)
            nextStep = service.now + interval
            updateState(&service)
        case Types.holdPosition where value == .bool(true):
            stop(&service)
        default:
            break
        }
    }

    mutating func tick(_ service: inout ServiceValues) {
        while let due = nextStep, service.now >= due {
            guard let current = service.int(Types.currentPosition), let target = service.int(Types.targetPosition),
                current != target
            else {
                nextStep = nil
                break
            }
            let moved = target > current ? min(current + step, target) : max(current - step, target)
            service.set(Types.currentPosition, Double(moved))
            nextStep = moved == target ? nil : due + interval
        }
        updateState(&service)
    }

    mutating func trigger(_ event: String, in service: inout ServiceValues) -> Bool {
        switch event {
        case "open", "close":
            let position: Double = event == "open" ? 100 : 0
            nextStep = nil
            service.set(Types.targetPosition, position)
            service.set(Types.currentPosition, position)
            service.set(Types.positionState, 2)
        case "obstruct":
            service.set(Types.obstructionDetected, true)
            stop(&service)
        case "clear":
            service.set(Types.obstructionDetected, false)
        default:
            return false
        }
        return true
    }

    private mutating func stop(_ service: inout ServiceValues) {
        nextStep = nil
        service.set(Types.targetPosition, service.double(Types.currentPosition) ?? 0)
        service.set(Types.positionState, 2)
    }

    private func updateState(_ service: inout ServiceValues) {
        guard let current = service.int(Types.currentPosition), let target = service.int(Types.targetPosition) else {
            return
        }
        service.set(Types.positionState, target > current ? 1 : target < current ? 0 : 2)
    }
}

/// Moves a temperature toward a goal by at most `step` degrees each `interval`; shared by climate behaviours.
struct TemperatureDrive: Sendable {
    let step: Double
    let interval: Duration
    private var lastStep: Duration?

    init(step: Double, interval: Duration) {
        self.step = step
        self.interval = interval
    }

    /// Steps `current` toward `goal` for every whole interval since the last step; `nil` goal only keeps time.
    mutating func drive(_ service: inout ServiceValues, toward goal: Double?) {
        guard let goal, let start = service.double(Types.currentTemperature) else {
            lastStep = nil
            return
        }
        var last = lastStep ?? service.now
        var current = start
        while service.now - last >= interval, abs(goal - current) > 1e-9 {
            current = goal > current ? min(current + step, goal) : max(current - step, goal)
            last += interval
        }
        lastStep = abs(goal - current) > 1e-9 ? last : nil
        service.set(Types.currentTemperature, current)
    }
}

/// A thermostat: heats or cools the current temperature toward the target as the mode allows.
///
/// CurrentHeatingCoolingState is 1 while heating, 2 while cooling, 0 when off or at the target.
struct ThermostatBehaviour: ServiceBehaviour {
    private var drive: TemperatureDrive

    init(step: Double, interval: Duration) { drive = TemperatureDrive(step: step, interval: interval) }

    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) { tick(&service) }

    mutating func tick(_ service: inout ServiceValues) {
        guard let current = service.double(Types.currentTemperature),
            let target = service.double(Types.targetTemperature)
        else { return }
        let mode = service.int(Types.targetHeatingCoolingState) ?? 0
        let wantsHeat = (mode == 1 || mode == 3) && current < target - 1e-9
        let wantsCool = (mode == 2 || mode == 3) && current > target + 1e-9
        drive.drive(&service, toward: wantsHeat || wantsCool ? target : nil)
        let now = service.double(Types.currentTemperature) ?? current
        let heating = (mode == 1 || mode == 3) && now < target - 1e-9
        let cooling = (mode == 2 || mode == 3) && now > target + 1e-9
        service.set(Types.currentHeatingCoolingState, heating ? 1 : cooling ? 2 : 0)
    }
}

/// A heater-cooler: when active, heats toward the heating threshold or cools toward the cooling threshold.
///
/// CurrentHeaterCoolerState is 0 inactive, 1 idle, 2 heating, 3 cooling; TargetHeaterCoolerState 0 auto, 1 heat,
/// 2 cool.
struct HeaterCoolerBehaviour: ServiceBehaviour {
    private var drive: TemperatureDrive

    init(step: Double, interval: Duration) { drive = TemperatureDrive(step: step, interval: interval) }

    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) { tick(&service) }

    mutating func tick(_ service: inout ServiceValues) {
        guard service.int(Types.active) == 1 else {
            drive.drive(&service, toward: nil)
            service.set(Types.currentHeaterCoolerState, 0)
            return
        }
        let goal = self.goal(service)
        drive.drive(&service, toward: goal)
        let current = service.double(Types.currentTemperature) ?? 0
        guard let goal, abs(goal - current) > 1e-9 else {
            service.set(Types.currentHeaterCoolerState, 1)
            return
        }
        service.set(Types.currentHeaterCoolerState, goal > current ? 2 : 3)
    }

    private func goal(_ service: ServiceValues) -> Double? {
        guard let current = service.double(Types.currentTemperature) else { return nil }
        let mode = service.int(Types.targetHeaterCoolerState) ?? 0
        let heatTo = service.double(Types.heatingThreshold) ?? 20
        let coolTo = service.double(Types.coolingThreshold) ?? 24
        if mode != 2, current < heatTo - 1e-9 { return heatTo }
        if mode != 1, current > coolTo + 1e-9 { return coolTo }
        return nil
    }
}
