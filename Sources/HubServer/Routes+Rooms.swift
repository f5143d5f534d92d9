import Foundation
import HearthAPI
import HomeGraph

extension Routes {
    /// Rooms and zones.
    func addRoomRoutes() {
        add(Endpoints.listRooms) { call, _ in
            let home = try await call.home(try call.homeID).home
            return RoomList(rooms: home.allRooms, roomForEntireHomeID: home.roomForEntireHome.id)
        }
        add(Endpoints.createRoom) { call, body in
            let (homeID, id) = (try call.homeID, UUID())
            let events = try await call.perform(.addRoom(home: homeID, id: id, name: body.name))
            return try call.created(events)
        }
        add(Endpoints.renameRoom) { call, body in
            let (homeID, roomID) = (try call.homeID, try call.id("roomID"))
            return call.changed(try await call.perform(.renameRoom(home: homeID, room: roomID, name: body.name)))
        }
        add(Endpoints.deleteRoom) { call, _ in
            let (homeID, roomID) = (try call.homeID, try call.id("roomID"))
            return call.changed(try await call.perform(.removeRoom(home: homeID, room: roomID)))
        }
        add(Endpoints.listZones) { call, _ in
            ZoneList(zones: try await call.home(try call.homeID).home.zones)
        }
        add(Endpoints.createZone) { call, body in
            let (homeID, id) = (try call.homeID, UUID())
            let events = try await call.perform(
                .addZone(home: homeID, id: id, name: body.name, roomIDs: body.roomIDs ?? [])
            )
            return try call.created(events)
        }
        add(Endpoints.renameZone) { call, body in
            let (homeID, zoneID) = (try call.homeID, try call.id("zoneID"))
            return call.changed(try await call.perform(.renameZone(home: homeID, zone: zoneID, name: body.name)))
        }
        add(Endpoints.deleteZone) { call, _ in
            let (homeID, zoneID) = (try call.homeID, try call.id("zoneID"))
            return call.changed(try await call.perform(.removeZone(home: homeID, zone: zoneID)))
        }
        add(Endpoints.addRoomToZone) { call, _ in
            let (homeID, zoneID, roomID) = (try call.homeID, try call.id("zoneID"), try call.id("roomID"))
            return call.changed(try await call.perform(.addRoomToZone(home: homeID, room: roomID, zone: zoneID)))
        }
        add(Endpoints.removeRoomFromZone) { call, _ in
            let (homeID, zoneID, roomID) = (try call.homeID, try call.id("zoneID"), try call.id("roomID"))
            return call.changed(try await call.perform(.removeRoomFromZone(home: homeID, room: roomID, zone: zoneID)))
        }
    }
}
