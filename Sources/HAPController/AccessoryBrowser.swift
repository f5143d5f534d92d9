import DNSSD
import HAP
import HAPTypes
import Logging
import NIOCore

/// A HAP accessory as its `_hap._tcp` advertisement describes it (hap-protocol.md §8).
public struct DiscoveredAccessory: Sendable, Equatable {
    /// The mDNS instance name.
    public var name: String
    /// The device ID (`id`), upper case.
    public var deviceID: String
    /// The model (`md`).
    public var model: String
    /// The category (`ci`); `nil` when absent or unknown.
    public var category: AccessoryCategory?
    /// The configuration number (`c#`).
    public var configurationNumber: Int
    /// The status flags (`sf`).
    public var statusFlags: Int
    /// The IPv4 addresses, sorted.
    public var addresses: [IPv4Address]
    /// The TCP port.
    public var port: Int

    /// Whether a controller is paired: bit 0 of `sf` is clear.
    public var isPaired: Bool { statusFlags & 1 == 0 }

    /// The first address as text, to connect to; `nil` when none was resolved.
    public var host: String? { addresses.first?.description }

    /// Reads an accessory from a resolved service; `nil` without a device ID (not a HAP accessory).
    public init?(_ service: ResolvedService) {
        guard let deviceID = service.txt["id"], !deviceID.isEmpty else { return nil }
        name = service.name
        self.deviceID = deviceID.uppercased()
        model = service.txt["md"] ?? ""
        category = service.txt["ci"].flatMap { UInt8($0) }.flatMap { AccessoryCategory(rawValue: $0) }
        configurationNumber = service.txt["c#"].flatMap { Int($0) } ?? 1
        // hap-protocol.md §8: sf bit 0 set means not paired; a missing sf reads as unpaired.
        statusFlags = service.txt["sf"].flatMap { Int($0) } ?? 1
        addresses = service.addresses
        port = Int(service.port)
    }
}

/// What the browser reports.
public enum AccessoryBrowseEvent: Sendable, Equatable {
    /// A new accessory.
    case found(DiscoveredAccessory)
    /// A known accessory changed: `c#`, `sf`, address or port.
    case updated(DiscoveredAccessory)
    /// An accessory said goodbye or expired; carries its device ID.
    case removed(deviceID: String)
}

/// Finds HAP accessories over mDNS on the given IPv4 interfaces.
public actor AccessoryBrowser {
    /// Found, updated and removed accessories, in order; one consumer; finishes after ``stop()``.
    public nonisolated let events: AsyncStream<AccessoryBrowseEvent>

    private let continuation: AsyncStream<AccessoryBrowseEvent>.Continuation
    private let browser: MDNSBrowser
    private var task: Task<Void, Never>?
    private var deviceIDs: [String: String] = [:]
    /// The accessories known now, by device ID.
    public private(set) var accessories: [String: DiscoveredAccessory] = [:]

    /// Makes a browser of `_hap._tcp` on these interfaces.
    public init(interfaces: [IPv4Address], group: any EventLoopGroup, logger: Logger? = nil) {
        browser = MDNSBrowser(type: "_hap._tcp", domain: "local", interfaces: interfaces, group: group, logger: logger)
        (events, continuation) = AsyncStream.makeStream(of: AccessoryBrowseEvent.self)
    }

    /// Opens the sockets and starts browsing.
    public func start() async throws(MDNSError) {
        guard task == nil else { return }
        try await browser.start()
        let browseEvents = browser.events
        task = Task { [weak self] in
            for await event in browseEvents {
                await self?.handle(event)
            }
        }
    }

    /// Stops browsing and finishes ``events``.
    public func stop() async {
        await browser.stop()
        task?.cancel()
        task = nil
        continuation.finish()
    }

    /// Turns one browse event into at most one accessory event.
    func handle(_ event: BrowseEvent) {
        if let translated = translate(event) { continuation.yield(translated) }
    }

    /// The accessory event for a browse event, updating what is known; `nil` when nothing HAP-relevant happened.
    func translate(_ event: BrowseEvent) -> AccessoryBrowseEvent? {
        switch event {
        case .added(let service), .updated(let service):
            guard let accessory = DiscoveredAccessory(service) else { return nil }
            deviceIDs[service.name] = accessory.deviceID
            let previous = accessories[accessory.deviceID]
            accessories[accessory.deviceID] = accessory
            guard let previous else { return .found(accessory) }
            return previous == accessory ? nil : .updated(accessory)
        case .removed(let name):
            guard let deviceID = deviceIDs.removeValue(forKey: name) else { return nil }
            accessories[deviceID] = nil
            return .removed(deviceID: deviceID)
        }
    }
}
