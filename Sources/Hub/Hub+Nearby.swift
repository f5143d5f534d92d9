import Foundation
import HAPController

/// What owners and administrators hear of accessories nearby, pushed as the browser sees them.
public enum NearbyAccessoryEvent: Sendable, Equatable {
    /// An unpaired accessory appeared or changed its advertisement; one announced before that is now paired
    /// (`isPaired`) is no longer offered.
    case found(DiscoveredAccessory)
    /// An accessory announced by `found` is no longer advertised.
    case removed(deviceID: String)
}

/// The accessory browser's events, handed to the callers who may add accessories.
extension Hub {
    /// Calls `onEvent` with each change to the unpaired accessories nearby from now on.
    ///
    /// Calls it only while `caller` may add accessories (is an owner or administrator of a home; checked at each
    /// event); ends with `unsubscribeNearby(_:)` or when the hub stops. `onEvent` runs on the hub's actor and must
    /// only hand it on.
    public func subscribeNearby(
        as caller: HubCaller,
        onEvent: @escaping @Sendable (NearbyAccessoryEvent) -> Void
    ) -> HubSubscription {
        let id = HubSubscription(id: UUID())
        guard !isStopped, !accessories.isClosing else { return id }
        accessories.nearbySubscribers[id] = NearbySubscriber(caller: caller, deliver: onEvent)
        return id
    }

    /// Ends a subscription made with `subscribeNearby(as:onEvent:)`.
    public func unsubscribeNearby(_ id: HubSubscription) {
        accessories.nearbySubscribers[id] = nil
    }

    /// Whether `caller` may add accessories to some home: the hub itself, or an owner or administrator.
    func mayAddAccessories(_ caller: HubCaller) -> Bool {
        guard case .user = caller else { return true }
        return currentGraph.homes(visibleTo: caller).contains { home in
            currentGraph.role(of: caller, inHome: home.id)?.mayConfigure == true
        }
    }

    /// Turns a browser event into what the nearby list's followers hear: unpaired accessories as `found`, an
    /// announced one that became paired as `found` with `isPaired`, an announced one's goodbye as `removed`.
    func publishNearby(_ event: AccessoryBrowseEvent) {
        let nearby: NearbyAccessoryEvent
        switch event {
        case .found(let accessory), .updated(let accessory):
            if !accessory.isPaired {
                accessories.announced.insert(accessory.deviceID)
            } else if accessories.announced.remove(accessory.deviceID) == nil {
                return
            }
            nearby = .found(accessory)
        case .removed(let deviceID):
            guard accessories.announced.remove(deviceID) != nil else { return }
            nearby = .removed(deviceID: deviceID)
        }
        for subscriber in accessories.nearbySubscribers.values where mayAddAccessories(subscriber.caller) {
            subscriber.deliver(nearby)
        }
    }
}

/// One subscription to the nearby accessories' events.
struct NearbySubscriber {
    let caller: HubCaller
    let deliver: @Sendable (NearbyAccessoryEvent) -> Void
}
