/// The kind of accessory, shown as its icon during setup and sent as `ci` in mDNS and in the setup payload.
///
/// hap-protocol.md §10: raw values 1–36; 33–36 come from HAP-NodeJS only (§14.11).
public enum AccessoryCategory: UInt8, Sendable, CaseIterable {
    /// An accessory of no listed kind.
    case other = 1
    /// A bridge that exposes other accessories.
    case bridge = 2
    /// A fan.
    case fan = 3
    /// A garage door opener.
    case garageDoorOpener = 4
    /// A lightbulb.
    case lightbulb = 5
    /// A door lock.
    case doorLock = 6
    /// An outlet.
    case outlet = 7
    /// A switch.
    case `switch` = 8
    /// A thermostat.
    case thermostat = 9
    /// A sensor.
    case sensor = 10
    /// A security system.
    case securitySystem = 11
    /// A door.
    case door = 12
    /// A window.
    case window = 13
    /// A window covering.
    case windowCovering = 14
    /// A programmable switch.
    case programmableSwitch = 15
    /// A range extender.
    case rangeExtender = 16
    /// An IP camera.
    case ipCamera = 17
    /// A video doorbell.
    case videoDoorbell = 18
    /// An air purifier.
    case airPurifier = 19
    /// A heater.
    case heater = 20
    /// An air conditioner.
    case airConditioner = 21
    /// A humidifier.
    case humidifier = 22
    /// A dehumidifier.
    case dehumidifier = 23
    /// An Apple TV.
    case appleTV = 24
    /// A HomePod.
    case homePod = 25
    /// A speaker.
    case speaker = 26
    /// An AirPort base station.
    case airPort = 27
    /// A sprinkler.
    case sprinkler = 28
    /// A faucet.
    case faucet = 29
    /// A shower head.
    case showerHead = 30
    /// A television.
    case television = 31
    /// A target controller (remote).
    case targetController = 32
    /// A router (HAP-NodeJS, aiohomekit).
    case router = 33
    /// An audio receiver (HAP-NodeJS).
    case audioReceiver = 34
    /// A TV set-top box (HAP-NodeJS).
    case tvSetTopBox = 35
    /// A TV streaming stick (HAP-NodeJS).
    case tvStreamingStick = 36
}
