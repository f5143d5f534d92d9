import Foundation
import HearthAPI
import HomeGraph
import Hub

extension Routes {
    /// Accessories (nearby ones, pairing, removal, identify), services and characteristics.
    func addAccessoryRoutes() {
        add(Endpoints.listAccessories) { call, _ in
            AccessoryList(accessories: try await call.home(try call.homeID).home.accessories.array)
        }
        add(Endpoints.listNearbyAccessories, checkingAccess: true) { call, _ in
            NearbyList(accessories: try await call.nearbyAccessories())
        }
        add(Endpoints.pairAccessory, checkingAccess: true) { call, body in
            AccessoryList(accessories: try await call.pair(body, home: try call.homeID))
        }
        add(Endpoints.getAccessory) { call, _ in
            let (homeID, accessoryID) = (try call.homeID, try call.id("accessoryID"))
            guard let accessory = try await call.home(homeID).home.accessory(withID: accessoryID) else {
                throw APIError.notFound("accessory", accessoryID.uuidString)
            }
            return AccessoryResponse(accessory: accessory)
        }
        add(Endpoints.updateAccessory) { call, body in
            let (homeID, accessoryID) = (try call.homeID, try call.id("accessoryID"))
            let operations: [HomeOperation?] = [
                body.name.map { .renameAccessory(home: homeID, accessory: accessoryID, name: $0) },
                body.roomID.map { .moveAccessory(home: homeID, accessory: accessoryID, room: $0) },
            ]
            return call.changed(try await call.perform(operations.compactMap { $0 }))
        }
        add(Endpoints.deleteAccessory, checkingAccess: true) { call, _ in
            let (homeID, accessoryID) = (try call.homeID, try call.id("accessoryID"))
            try await call.existingAccessory(accessoryID, inHome: homeID)
            do throws(HubError) {
                try await call.server.hub.removeAccessory(home: homeID, accessory: accessoryID, as: call.caller)
            } catch {
                throw APIError(error)
            }
            return NoContent()
        }
        add(Endpoints.identifyAccessory) { call, _ in
            let (homeID, accessoryID) = (try call.homeID, try call.id("accessoryID"))
            try await call.existingAccessory(accessoryID, inHome: homeID)
            do throws(HubError) {
                try await call.server.hub.identify(home: homeID, accessory: accessoryID, as: call.caller)
            } catch {
                throw APIError(error)
            }
            return NoContent()
        }
        add(Endpoints.renameService) { call, body in
            let (homeID, serviceID) = (try call.homeID, try call.id("serviceID"))
            return call.changed(
                try await call.perform(.renameService(home: homeID, service: serviceID, name: body.name))
            )
        }
        add(Endpoints.readCharacteristic) { call, _ in
            let (homeID, id) = (try call.homeID, try call.id("characteristicID"))
            var graph = try await call.graph(ofHome: homeID)
            if try call.refresh {
                try await call.readThrough(id, home: homeID)
                graph = call.server.hub.graph
            }
            let found: (characteristic: Characteristic, accessory: Accessory)
            do throws(HomeGraphError) {
                found = try graph.characteristic(withID: id, inHome: homeID)
            } catch {
                throw APIError(HubError.rejected(error))
            }
            return CharacteristicResponse(characteristic: found.characteristic, accessoryID: found.accessory.id)
        }
        add(Endpoints.writeCharacteristic) { call, body in
            let (homeID, id) = (try call.homeID, try call.id("characteristicID"))
            let writes = [CharacteristicWrite(characteristicID: id, value: body.value)]
            // One write that failed answers with its error (404, 502 unreachable, 504 timeout, …).
            let outcomes = try await call.writeOutcomes(writes, home: homeID)
            for outcome in outcomes {
                if case .failure(let error) = outcome.result { throw APIError(error) }
            }
            return WriteResults(results: outcomes.map(\.response))
        }
        add(Endpoints.writeCharacteristics) { call, body in
            let homeID = try call.homeID
            return WriteResults(results: try await call.write(body.writes, home: homeID))
        }
        add(Endpoints.setNotifications) { call, body in
            let (homeID, id) = (try call.homeID, try call.id("characteristicID"))
            return call.changed(try await call.setNotifications(id, isEnabled: body.isEnabled, home: homeID))
        }
    }
}

extension Call {
    /// Throws 404 unless the home has the accessory.
    func existingAccessory(_ accessoryID: UUID, inHome homeID: UUID) async throws {
        guard try await home(homeID).home.accessory(withID: accessoryID) != nil else {
            throw APIError.notFound("accessory", accessoryID.uuidString)
        }
    }
}
