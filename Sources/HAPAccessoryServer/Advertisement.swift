import HAP
import HAPTypes

/// What the mDNS layer announces for the accessory as `_hap._tcp`; hap-protocol.md §8, peers/README.md quirk 9.
public struct Advertisement: Sendable, Equatable {
    /// The `sf` bit for an accessory no controller is paired with.
    public static let unpairedStatusFlag = 1

    /// The instance name.
    public var name: String
    /// The TCP port the server listens on.
    public var port: Int
    /// The device ID, `XX:XX:XX:XX:XX:XX` (`id`).
    public var deviceID: String
    /// `c#`, 1–65535, bumped when the accessory database changes.
    public var configurationNumber: Int
    /// `sf`: 1 while unpaired, 0 once paired.
    public var statusFlags: Int
    /// `ci`: the accessory category.
    public var category: AccessoryCategory
    /// `md`: the model name.
    public var model: String
    /// `sh`: the setup hash, base64.
    public var setupHash: String
    /// `pv`: the protocol version.
    public var protocolVersion: String
    /// `ff`: feature flags; 0, no MFi authentication.
    public var featureFlags: Int
    /// `s#`: the state number, always 1 for IP accessories.
    public var stateNumber: Int

    /// Makes an advertisement.
    public init(
        name: String,
        port: Int,
        deviceID: String,
        configurationNumber: Int,
        statusFlags: Int,
        category: AccessoryCategory,
        model: String,
        setupHash: String,
        protocolVersion: String = "1.1",
        featureFlags: Int = 0,
        stateNumber: Int = 1
    ) {
        self.name = name
        self.port = port
        self.deviceID = deviceID
        self.configurationNumber = configurationNumber
        self.statusFlags = statusFlags
        self.category = category
        self.model = model
        self.setupHash = setupHash
        self.protocolVersion = protocolVersion
        self.featureFlags = featureFlags
        self.stateNumber = stateNumber
    }

    /// Whether the advertisement says no controller is paired.
    public var isUnpaired: Bool { statusFlags & Self.unpairedStatusFlag != 0 }

    /// The TXT record's key–value pairs in the order c#, ff, id, md, pv, s#, sf, ci, sh.
    public var txtRecord: [(String, String)] {
        [
            ("c#", String(configurationNumber)),
            ("ff", String(featureFlags)),
            ("id", deviceID),
            ("md", model),
            ("pv", protocolVersion),
            ("s#", String(stateNumber)),
            ("sf", String(statusFlags)),
            ("ci", String(category.rawValue)),
            ("sh", setupHash),
        ]
    }
}
