import DNSSD
import Foundation
import HAP
import HAPController
import HAPTypes
import HomeGraph
import NIOCore

/// One paired accessory server (a bridge, or a single accessory) the hub keeps a session with.
struct AccessoryLink {
    /// The client: one verified session, events, reachability.
    let paired: PairedAccessory
    /// The home its accessories are in.
    var homeID: UUID
    /// Graph characteristic ids by HAP `aid.iid`, rebuilt whenever the graph's accessories of the device change.
    var index: [CharacteristicID: UUID] = [:]
    /// The reachability last applied; `nil` before the first report.
    var isReachable: Bool?
    /// The configuration number last seen over mDNS (or given by `noteAdvertisement`).
    var configurationNumber: Int?
    /// The tasks that follow the client's streams and connect it at start.
    var tasks: [Task<Void, Never>] = []
}

/// The hub's accessory side: links by device ID, the browser, and value reports waiting for their group commit.
struct AccessoryLinks {
    /// The links, by normalised device ID (`XX:XX:XX:XX:XX:XX`, upper case).
    var links: [String: AccessoryLink] = [:]
    /// The mDNS browser, when the hub browses.
    var browser: AccessoryBrowser?
    /// The task following the browser's events.
    var browserTask: Task<Void, Never>?
    /// Who follows the nearby accessories' events (`Hub.subscribeNearby(as:onEvent:)`).
    var nearbySubscribers: [HubSubscription: NearbySubscriber] = [:]
    /// The device IDs announced to them as unpaired and not since paired or gone.
    var announced: Set<String> = []
    /// The controller's pairing store, made on first use.
    var pairingStore: ControllerPairingStore?
    /// Operations from accessories not yet committed.
    var pendingReports: [HomeOperation] = []
    /// The group commit's timer, while one is armed.
    var flush: Scheduled<Void>?
    /// Which armed timer is the current one: a timer cancelled in the loop tick it fell due in still runs, and
    /// then finds its number out of date.
    var flushNumber: UInt64 = 0
    /// Whether `start()` ran.
    var isStarted = false
    /// Whether `stop()` began: links made from now on are closed at once.
    var isClosing = false
}

/// The result of removing an accessory.
public struct AccessoryRemoval: Sendable, Equatable {
    /// The graph accessories removed: the bridge's bridged accessories, then the accessory itself.
    public var removedAccessoryIDs: [UUID]
    /// Whether the accessory confirmed it forgot the hub's pairing; `false` when it could not be reached (it
    /// still holds the pairing and must be reset before another controller can pair it).
    public var isUnpairedOnAccessory: Bool
}

/// A device ID as the hub keys it: `XX:XX:XX:XX:XX:XX` upper case, or the text upper-cased if it does not parse.
func deviceKey(_ text: String) -> String {
    (try? DeviceID(text))?.description.uppercased() ?? text.uppercased()
}

extension HomeGraph {
    /// The home holding the accessories of the accessory server `key`, if any.
    func homeID(holdingDevice key: String) -> UUID? {
        homes.first { home in
            home.accessories.contains { $0.deviceID.map { deviceKey($0.description) } == key }
        }?.id
    }

    /// The graph accessories of the accessory server `key` in `homeID`: its own accessory and those behind it.
    func accessories(ofDevice key: String, inHome homeID: UUID) -> [Accessory] {
        guard let home = home(withID: homeID) else { return [] }
        return home.accessories.filter { $0.deviceID.map { deviceKey($0.description) } == key }
    }

    /// Graph characteristic ids by HAP `aid.iid` for the accessory server `key` in `homeID`.
    func characteristicIndex(ofDevice key: String, inHome homeID: UUID) -> [CharacteristicID: UUID] {
        var index: [CharacteristicID: UUID] = [:]
        for accessory in accessories(ofDevice: key, inHome: homeID) {
            for service in accessory.services {
                for characteristic in service.characteristics {
                    let id = CharacteristicID(
                        accessoryID: accessory.accessoryInstanceID,
                        instanceID: characteristic.instanceID
                    )
                    index[id] = characteristic.id
                }
            }
        }
        return index
    }
}

extension AccessoryCategory {
    /// The category a bridged accessory shows, guessed from its primary service (HAP gives it only for the server).
    static func guessed(from accessory: HAPAccessory) -> AccessoryCategory {
        let primary =
            accessory.services.first(where: \.isPrimary)
            ?? accessory.services.first { $0.type != HAPUUID(apple: 0x3E) && $0.type != HAPUUID(apple: 0xA2) }
        guard let type = primary?.type else { return .other }
        let categories: [UInt32: AccessoryCategory] = [
            0x43: .lightbulb, 0x49: .switch, 0x47: .outlet, 0x4A: .thermostat, 0x45: .doorLock, 0x40: .fan,
            0xB7: .fan, 0x41: .garageDoorOpener, 0x8C: .windowCovering, 0x8B: .window, 0x81: .door,
            0x89: .programmableSwitch, 0x121: .videoDoorbell, 0x7E: .securitySystem, 0xBB: .airPurifier,
            0xBC: .heater, 0x85: .sensor, 0x8A: .sensor, 0x82: .sensor, 0x84: .sensor, 0x86: .sensor,
            0x83: .sensor, 0x80: .sensor, 0x7F: .sensor, 0x87: .sensor, 0x8D: .sensor, 0x97: .sensor,
        ]
        for (short, category) in categories where HAPUUID(apple: short) == type { return category }
        return .other
    }
}
