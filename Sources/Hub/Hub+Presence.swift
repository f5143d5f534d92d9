import Foundation
import HomeGraph

extension Hub {
    /// Records the presence `caller` reports for themselves in `homeID`: home or away, or a position the hub tests
    /// against the home's region (its location and presence radius); returns the change events.
    ///
    /// Every user of the home may report, only for themselves. A position alone needs a home with a location.
    public func reportPresence(
        home homeID: UUID,
        isHome: Bool?,
        position: Location?,
        as caller: HubCaller
    ) async throws(HubError) -> [HomeEvent] {
        guard case .user(let userID) = caller else {
            throw .notPermitted("presence is reported by a user of the home, for themselves")
        }
        guard let home = currentGraph.home(withID: homeID), home.users.contains(where: { $0.id == userID }) else {
            throw .homeNotFound(homeID)
        }
        let isHomeNow: Bool
        if let isHome {
            isHomeNow = isHome
        } else if let position {
            guard position.isValid else { throw .rejected(.invalidLocation(position)) }
            guard let location = home.location else {
                throw .invalidRequest(
                    "\(home.name) has no location, so a position cannot tell whether you are home; report isHome instead"
                )
            }
            let region = Region(
                name: home.name,
                center: location,
                radius: home.presenceRadius ?? Home.defaultPresenceRadius
            )
            isHomeNow = region.contains(position)
        } else {
            throw .invalidRequest("report isHome (true or false), a position (latitude and longitude), or both")
        }
        // A report without a position keeps the last one, so the next position tells an entry from a stay.
        let previous = home.users.first { $0.id == userID }?.presence?.position
        let presence = Presence(
            isHome: isHomeNow,
            position: position ?? previous,
            reportedAt: configuration.clock.now()
        )
        return try commitWhole([.setPresence(home: homeID, user: userID, presence: presence)], by: .person(userID))
    }
}
