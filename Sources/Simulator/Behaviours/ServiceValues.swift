import HAP
import HAPTypes

/// One service's characteristics as a behaviour sees them: read and change values by type, at time `now`.
///
/// Every change is recorded, so the simulator can send events for exactly what changed.
struct ServiceValues {
    /// The service, with the values as changed so far.
    private(set) var service: HAPService
    /// The current time of the simulation clock.
    let now: Duration
    /// Instance ids whose value changed, in order, each once.
    private(set) var changedIDs: [UInt64] = []
    /// Values announced without being stored (ProgrammableSwitchEvent reads as null).
    private(set) var announcements: [(instanceID: UInt64, value: HAPValue)] = []

    init(service: HAPService, now: Duration) {
        self.service = service
        self.now = now
    }

    func has(_ type: HAPUUID) -> Bool { service.characteristics.contains { $0.type == type } }

    func value(_ type: HAPUUID) -> HAPValue? {
        service.characteristics.first { $0.type == type }?.value
    }

    func int(_ type: HAPUUID) -> Int? { value(type)?.numericValue.map { Int($0) } }

    func double(_ type: HAPUUID) -> Double? { value(type)?.numericValue }

    func bool(_ type: HAPUUID) -> Bool? {
        switch value(type) {
        case .bool(let flag): flag
        case let other?: other.numericValue.map { $0 != 0 }
        case nil: nil
        }
    }

    /// Sets a number, clamped to the characteristic's range and rounded to its step; absent types are ignored.
    mutating func set(_ type: HAPUUID, _ number: Double) {
        guard let index = service.characteristics.firstIndex(where: { $0.type == type }) else { return }
        let characteristic = service.characteristics[index]
        var clamped = number
        if let minValue = characteristic.minValue { clamped = max(clamped, minValue) }
        if let maxValue = characteristic.maxValue { clamped = min(clamped, maxValue) }
        if let step = characteristic.minStep, step > 0 {
            // Round only values off the grid, so 20.5 stays 20.5 rather than -270 + 2905 × 0.1.
            let base = characteristic.minValue ?? 0
            let steps = (clamped - base) / step
            if abs(steps - steps.rounded()) > HAPCharacteristic.stepTolerance {
                clamped = base + steps.rounded() * step
            }
        }
        let value: HAPValue = characteristic.format == .bool ? .bool(clamped != 0) : .float(clamped)
        store(value, at: index)
    }

    /// Sets a flag (a bool, or 0/1 for integer formats).
    mutating func set(_ type: HAPUUID, _ flag: Bool) {
        guard let index = service.characteristics.firstIndex(where: { $0.type == type }) else { return }
        store(service.characteristics[index].format == .bool ? .bool(flag) : .uint(flag ? 1 : 0), at: index)
    }

    /// Sends `value` as an event of `type` without storing it.
    mutating func announce(_ type: HAPUUID, _ value: HAPValue) {
        guard let characteristic = service.characteristics.first(where: { $0.type == type }) else { return }
        announcements.append((characteristic.instanceID, value))
    }

    private mutating func store(_ value: HAPValue, at index: Int) {
        let characteristic = service.characteristics[index]
        guard let converted = try? value.converted(to: characteristic.format),
            (try? characteristic.validate(converted)) != nil,
            converted != characteristic.value
        else { return }
        service.characteristics[index].value = converted
        if !changedIDs.contains(characteristic.instanceID) { changedIDs.append(characteristic.instanceID) }
    }
}

/// The characteristic types behaviours use, by their short Apple ids (hap-protocol.md §11.2).
enum Types {
    static let on = HAPUUID(apple: 0x25)
    static let outletInUse = HAPUUID(apple: 0x26)
    static let active = HAPUUID(apple: 0xB0)
    static let currentFanState = HAPUUID(apple: 0xAF)
    static let currentAirPurifierState = HAPUUID(apple: 0xA9)
    static let lockCurrentState = HAPUUID(apple: 0x1D)
    static let lockTargetState = HAPUUID(apple: 0x1E)
    static let currentDoorState = HAPUUID(apple: 0x0E)
    static let targetDoorState = HAPUUID(apple: 0x32)
    static let obstructionDetected = HAPUUID(apple: 0x24)
    static let currentPosition = HAPUUID(apple: 0x6D)
    static let targetPosition = HAPUUID(apple: 0x7C)
    static let positionState = HAPUUID(apple: 0x72)
    static let holdPosition = HAPUUID(apple: 0x6F)
    static let currentTemperature = HAPUUID(apple: 0x11)
    static let targetTemperature = HAPUUID(apple: 0x35)
    static let currentHeatingCoolingState = HAPUUID(apple: 0x0F)
    static let targetHeatingCoolingState = HAPUUID(apple: 0x33)
    static let heatingThreshold = HAPUUID(apple: 0x12)
    static let coolingThreshold = HAPUUID(apple: 0x0D)
    static let currentHeaterCoolerState = HAPUUID(apple: 0xB1)
    static let targetHeaterCoolerState = HAPUUID(apple: 0xB2)
    static let securityCurrentState = HAPUUID(apple: 0x66)
    static let securityTargetState = HAPUUID(apple: 0x67)
    static let securityAlarmType = HAPUUID(apple: 0x8E)
    static let batteryLevel = HAPUUID(apple: 0x68)
    static let statusLowBattery = HAPUUID(apple: 0x79)
    static let chargingState = HAPUUID(apple: 0x8F)
    static let programmableSwitchEvent = HAPUUID(apple: 0x73)
    static let motionDetected = HAPUUID(apple: 0x22)
    static let contactState = HAPUUID(apple: 0x6A)
    static let occupancyDetected = HAPUUID(apple: 0x71)
    static let leakDetected = HAPUUID(apple: 0x70)
    static let smokeDetected = HAPUUID(apple: 0x76)
    static let carbonMonoxideDetected = HAPUUID(apple: 0x69)
    static let statusTampered = HAPUUID(apple: 0x7A)
    static let statusFault = HAPUUID(apple: 0x77)
}
