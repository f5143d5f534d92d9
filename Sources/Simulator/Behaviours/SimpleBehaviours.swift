import HAP
import HAPTypes

/// A fan or air purifier: its current state follows Active (inactive 0, or `activeValue` when running).
struct ActiveStateBehaviour: ServiceBehaviour {
    let state: HAPUUID
    let activeValue: Double

    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) {
        guard type == Types.active else { return }
        service.set(state, service.int(Types.active) == 1 ? activeValue : 0)
    }
}

/// An outlet: OutletInUse follows On (something is plugged in and drawing power while on).
struct OutletBehaviour: ServiceBehaviour {
    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) {
        guard type == Types.on else { return }
        service.set(Types.outletInUse, service.bool(Types.on) ?? false)
    }
}

/// A security system: the current state follows the target; `alarm` sets it off (4) until the next target.
struct SecuritySystemBehaviour: ServiceBehaviour {
    var events: [String] { ["alarm", "tamper", "clear"] }

    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) {
        guard type == Types.securityTargetState, let target = service.double(Types.securityTargetState) else {
            return
        }
        service.set(Types.securityCurrentState, target)
        service.set(Types.securityAlarmType, 0)
    }

    mutating func trigger(_ event: String, in service: inout ServiceValues) -> Bool {
        switch event {
        case "alarm":
            service.set(Types.securityCurrentState, 4)
            service.set(Types.securityAlarmType, 1)
        case "tamper":
            service.set(Types.statusTampered, true)
        case "clear":
            service.set(Types.statusTampered, false)
        default:
            return false
        }
        return true
    }
}

/// A battery: loses 1 % per interval while not charging; StatusLowBattery is 1 below the threshold.
///
/// `charge` starts charging (1 % per interval up, until full), `unplug` stops it.
struct BatteryBehaviour: ServiceBehaviour {
    let interval: Duration?
    let threshold: Int
    private var lastChange: Duration

    init(interval: Duration?, threshold: Int, start: Duration) {
        self.interval = interval
        self.threshold = threshold
        lastChange = start
    }

    var events: [String] { ["charge", "unplug"] }

    mutating func react(to type: HAPUUID, value: HAPValue, in service: inout ServiceValues) {
        updateLowFlag(&service)
    }

    mutating func tick(_ service: inout ServiceValues) {
        defer { updateLowFlag(&service) }
        guard let interval, var level = service.int(Types.batteryLevel) else { return }
        let charging = service.int(Types.chargingState) == 1
        var last = lastChange
        while service.now - last >= interval {
            last += interval
            level = charging ? min(level + 1, 100) : max(level - 1, 0)
        }
        lastChange = last
        service.set(Types.batteryLevel, Double(level))
        if charging, level == 100 { service.set(Types.chargingState, 0) }
    }

    mutating func trigger(_ event: String, in service: inout ServiceValues) -> Bool {
        switch event {
        case "charge": service.set(Types.chargingState, 1)
        case "unplug": service.set(Types.chargingState, 0)
        default: return false
        }
        return true
    }

    private func updateLowFlag(_ service: inout ServiceValues) {
        guard let level = service.int(Types.batteryLevel) else { return }
        service.set(Types.statusLowBattery, level < threshold)
    }
}

/// A sensor that changes only when told: one event turns its reading on, others turn it off.
///
/// Temperature, humidity and light sensors have no events: the world sets their readings directly.
struct SensorBehaviour: ServiceBehaviour {
    let type: HAPUUID
    let on: [String]
    let off: [String]

    var events: [String] { on + off + ["tamper", "fault", "clear-status"] }

    mutating func trigger(_ event: String, in service: inout ServiceValues) -> Bool {
        if on.contains(event) {
            service.set(type, true)
        } else if off.contains(event) {
            service.set(type, false)
        } else if event == "tamper" {
            service.set(Types.statusTampered, true)
        } else if event == "fault" {
            service.set(Types.statusFault, true)
        } else if event == "clear-status" {
            service.set(Types.statusTampered, false)
            service.set(Types.statusFault, false)
        } else {
            return false
        }
        return true
    }
}

/// A doorbell or programmable switch: a press is announced as a ProgrammableSwitchEvent; reads stay null.
struct ButtonBehaviour: ServiceBehaviour {
    var events: [String] { ["ring", "press", "double-press", "long-press"] }

    mutating func trigger(_ event: String, in service: inout ServiceValues) -> Bool {
        let kind: ButtonPress
        switch event {
        case "ring", "press": kind = .single
        case "double-press": kind = .double
        case "long-press": kind = .long
        default: return false
        }
        service.announce(Types.programmableSwitchEvent, .uint(UInt64(kind.rawValue)))
        return true
    }
}

/// How a button was pressed; the value sent as ProgrammableSwitchEvent (hap-protocol.md §11.2).
public enum ButtonPress: Int, Sendable, CaseIterable, Codable {
    /// A single press (0).
    case single = 0
    /// A double press (1).
    case double = 1
    /// A long press (2).
    case long = 2
}
