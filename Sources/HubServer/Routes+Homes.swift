import Foundation
import HearthAPI
import HomeGraph
import Hub

extension Routes {
    /// Homes: listing, adding, reading, changing and removing them, and their changes since a sequence number.
    func addHomeRoutes() {
        add(Endpoints.listHomes) { call, _ in HomeList(homes: await call.homeSummaries()) }
        add(Endpoints.createHome) { call, body in
            let name = await call.server.credentials.account(call.principal.userID)?.name ?? "Owner"
            let home: Home
            do throws(HubError) {
                home = try await call.server.hub.addHome(
                    name: body.name,
                    timeZoneIdentifier: body.timeZone ?? "UTC",
                    ownerName: name,
                    as: call.caller
                )
            } catch {
                throw APIError(error)
            }
            let current = try await call.home(home.id)
            return HomeResponse(home: current.home, role: current.role, sequence: current.sequence)
        }
        add(Endpoints.importHome) { call, file in
            let name = await call.server.credentials.account(call.principal.userID)?.name ?? "Owner"
            let home: Home
            do throws(HubError) {
                home = try await call.server.hub.importHome(file, ownerName: name, as: call.caller)
            } catch {
                throw APIError(error)
            }
            let current = try await call.home(home.id)
            return HomeResponse(home: current.home, role: current.role, sequence: current.sequence)
        }
        add(Endpoints.getHome) { call, _ in
            let current = try await call.home(try call.homeID)
            return HomeResponse(home: current.home, role: current.role, sequence: current.sequence)
        }
        add(Endpoints.updateHome) { call, body in
            let homeID = try call.homeID
            let operations: [HomeOperation?] = [
                body.name.map { .renameHome(homeID, name: $0) },
                body.timeZone.map { .setTimeZone(home: homeID, identifier: $0) },
                body.presenceRadius.map { .setPresenceRadius(home: homeID, radius: $0) },
                body.temperatureUnit.map { .setTemperatureUnit(home: homeID, unit: $0) },
            ]
            return call.changed(try await call.perform(operations.compactMap { $0 }))
        }
        add(Endpoints.deleteHome) { call, _ in
            call.changed(try await call.perform(.removeHome(try call.homeID)))
        }
        add(Endpoints.setPrimaryHome) { call, _ in
            call.changed(try await call.perform(.setPrimaryHome(try call.homeID)))
        }
        add(Endpoints.setLocation) { call, location in
            call.changed(try await call.perform(.setLocation(home: try call.homeID, location: location)))
        }
        add(Endpoints.clearLocation) { call, _ in
            call.changed(try await call.perform(.setLocation(home: try call.homeID, location: nil)))
        }
        add(Endpoints.reportPresence) { call, body in
            let homeID = try call.homeID
            do throws(HubError) {
                return call.changed(
                    try await call.server.hub.reportPresence(
                        home: homeID,
                        isHome: body.isHome,
                        position: body.position,
                        as: call.caller
                    )
                )
            } catch {
                throw APIError(error)
            }
        }
        add(Endpoints.listChanges) { call, _ in
            let homeID = try call.homeID
            let query = call.request.uri.queryParameters
            let afterText = query.get("after")
            let lastText = query.get("last")
            if let lastText {
                guard afterText == nil else {
                    throw APIError.invalidRequest("give query 'after' or query 'last', not both")
                }
                guard let last = Int(lastText), (1...1000).contains(last) else {
                    throw APIError.invalidRequest("query 'last' must be a whole number from 1 to 1000")
                }
                let events: [HomeEvent]
                do throws(HubError) {
                    events = try await call.server.hub.recentChanges(last: last, inHome: homeID, as: call.caller)
                } catch {
                    throw APIError(error)
                }
                let current = try await call.home(homeID).sequence
                return ChangesResponse(events: events, reloadRequired: false, currentSequence: current)
            }
            guard let afterText, let after = UInt64(afterText) else {
                throw APIError.invalidRequest("query 'after' must be a whole number of 0 or more")
            }
            let history: ChangeHistory
            do throws(HubError) {
                history = try await call.server.hub.changes(after: after, inHome: homeID, as: call.caller)
            } catch {
                throw APIError(error)
            }
            switch history {
            case .events(let events):
                let current = try await call.home(homeID).sequence
                return ChangesResponse(events: events, reloadRequired: false, currentSequence: current)
            case .reloadRequired(let current):
                return ChangesResponse(events: [], reloadRequired: true, currentSequence: current)
            }
        }
    }
}
