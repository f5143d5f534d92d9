import Foundation
import HAPTypes
import HomeGraph

/// The three homes the sentence corpus is written against (Corpus/homes/*.json are these, written out).
enum CorpusHomes {
    /// The homes by the name the corpus uses.
    static func all() throws -> [String: Home] {
        ["flat": try flat(), "house": try house(), "large": try large()]
    }

    /// A Celsius flat: six rooms, 21 accessories, built-in scenes plus two, one service group.
    static func flat() throws -> Home {
        var b = HomeBuilder(name: "Flat", prefix: 0xF1A7, catalog: try TypeCatalog.shared())
        b.rooms(["Living Room", "Kitchen", "Bedroom", "Bathroom", "Hall", "Nursery"])
        try b.accessory("Lamp", room: "Living Room", category: .lightbulb, [.light(true, 60)])
        try b.accessory("Ceiling Light", room: "Living Room", category: .lightbulb, [.light(false, 100)])
        try b.accessory(
            "Sofa Light",
            room: "Living Room",
            category: .lightbulb,
            [.colorLight(true, 80, hue: 30, saturation: 50, mireds: 300)]
        )
        try b.accessory("Kitchen Light", room: "Kitchen", category: .lightbulb, [.light(false, 100)])
        try b.accessory("Under Cabinet Light", room: "Kitchen", category: .lightbulb, [.light(true)])
        try b.accessory("Bedside Lamp", room: "Bedroom", category: .lightbulb, [.light(false, 40)])
        try b.accessory("Bedroom Light", room: "Bedroom", category: .lightbulb, [.light(true, 70)])
        try b.accessory("Bathroom Light", room: "Bathroom", category: .lightbulb, [.light(false)])
        try b.accessory("Hall Light", room: "Hall", category: .lightbulb, [.light(true, 30)])
        try b.accessory("Night Light", room: "Nursery", category: .lightbulb, [.light(true, 10)])
        try b.accessory("Desk Fan", room: "Bedroom", category: .fan, [.fan(false, speed: 40)])
        try b.accessory("Coffee Machine", room: "Kitchen", category: .outlet, [.outlet(false)])
        try b.accessory(
            "Living Room Blinds",
            room: "Living Room",
            category: .windowCovering,
            [.position("windowCovering", 100)]
        )
        try b.accessory(
            "Bedroom Blinds",
            room: "Bedroom",
            category: .windowCovering,
            [.position("windowCovering", 0)]
        )
        try b.accessory("Front Door", room: "Hall", category: .doorLock, [.lock(true)])
        try b.accessory(
            "Thermostat",
            room: "Living Room",
            category: .thermostat,
            [.thermostat(current: 20.5, target: 21, mode: 1, humidity: 45, targetHumidity: 40)]
        )
        try b.accessory(
            "Nursery Sensor",
            room: "Nursery",
            category: .sensor,
            [.temperature(19.5, name: "Nursery Temperature"), .humidity(52, name: "Nursery Humidity")]
        )
        try b.accessory(
            "Bathroom Sensor",
            room: "Bathroom",
            category: .sensor,
            [.temperature(23, name: "Bathroom Temperature"), .humidity(68, name: "Bathroom Humidity")]
        )
        try b.accessory(
            "Hall Motion Sensor",
            room: "Hall",
            category: .sensor,
            [.motion(false), .battery(80, name: "Motion Sensor Battery")]
        )
        try b.accessory("Bedroom Window", room: "Bedroom", category: .sensor, [.contact(open: true)])
        try b.accessory("Kitchen Window", room: "Kitchen", category: .sensor, [.contact(open: false)])
        b.group("Reading Lights", ["Lamp", "Bedside Lamp"])
        b.builtInScenes()
        b.scene("Movie Time", [("Ceiling Light", "on", .bool(false)), ("Lamp", "brightness", .int(20))])
        b.scene("Dinner", [("Kitchen Light", "on", .bool(true)), ("Sofa Light", "brightness", .int(40))])
        return b.home
    }

    /// A Fahrenheit two-storey house: zones Upstairs and Downstairs, a porch in neither, 41 accessories, device
    /// names that differ only by room ("Bedroom Lamp", "Office Lamp"), built-in scenes named as HomeKit names them
    /// ("Good Morning", "Good Night"), and two service groups.
    static func house() throws -> Home {
        var b = HomeBuilder(name: "House", prefix: 0x4005E, catalog: try TypeCatalog.shared())
        b.rooms([
            "Living Room", "Kitchen", "Dining Room", "Hall", "Office", "Garage",
            "Bedroom", "Kids Room", "Guest Room", "Bathroom", "Landing", "Porch",
        ])
        b.zone("Downstairs", rooms: ["Living Room", "Kitchen", "Dining Room", "Hall", "Office", "Garage"])
        b.zone("Upstairs", rooms: ["Bedroom", "Kids Room", "Guest Room", "Bathroom", "Landing"])
        // Downstairs.
        try b.accessory("Floor Lamp", room: "Living Room", category: .lightbulb, [.light(true, 50)])
        try b.accessory("Christmas Light", room: "Living Room", category: .lightbulb, [.light(false)])
        try b.accessory(
            "Living Room Ceiling Fan",
            room: "Living Room",
            category: .fan,
            [.fanV2(false, speed: 40)]
        )
        try b.accessory("Television", room: "Living Room", category: .outlet, [.outlet(true)])
        try b.accessory(
            "Living Room Shades",
            room: "Living Room",
            category: .windowCovering,
            [.position("windowCovering", 100)]
        )
        try b.accessory(
            "Downstairs Thermostat",
            room: "Living Room",
            category: .thermostat,
            [.thermostat(current: 20, target: 21, mode: 1, humidity: 38, targetHumidity: 45, fahrenheit: true)]
        )
        try b.accessory("Kitchen Ceiling Light", room: "Kitchen", category: .lightbulb, [.light(true, 100)])
        try b.accessory("Kitchen Island Light", room: "Kitchen", category: .lightbulb, [.light(false, 50)])
        try b.accessory("Kettle", room: "Kitchen", category: .outlet, [.outlet(false)])
        try b.accessory("Kitchen Window", room: "Kitchen", category: .window, [.position("window", 0)])
        try b.accessory("Back Door", room: "Kitchen", category: .doorLock, [.lock(false)])
        try b.accessory("Café Lamp", room: "Dining Room", category: .lightbulb, [.light(false, 70)])
        try b.accessory(
            "Chandelier",
            room: "Dining Room",
            category: .lightbulb,
            [.colorLight(true, 80, hue: 40, saturation: 20, mireds: 370)]
        )
        try b.accessory("Dining Room Window", room: "Dining Room", category: .window, [.position("window", 0)])
        try b.accessory("Hall Ceiling Light", room: "Hall", category: .lightbulb, [.light(false, 100)])
        try b.accessory("Front Door", room: "Hall", category: .doorLock, [.lock(true)])
        try b.accessory("Hall Motion Sensor", room: "Hall", category: .sensor, [.motion(true)])
        try b.accessory("Security System", room: "Hall", category: .securitySystem, [.security(3)])
        try b.accessory("Office Lamp", room: "Office", category: .lightbulb, [.light(true, 80)])
        try b.accessory(
            "Power Strip",
            room: "Office",
            category: .outlet,
            [
                .outlet(true, name: "Monitor Outlet"), .outlet(false, name: "Printer Outlet"),
                .outlet(true, name: "Charger Outlet"),
            ]
        )
        try b.accessory(
            "Office Blinds",
            room: "Office",
            category: .windowCovering,
            [.position("windowCovering", 30)]
        )
        try b.accessory("Garage Door", room: "Garage", category: .garageDoorOpener, [.garageDoor(closed: true)])
        try b.accessory("Garage Light", room: "Garage", category: .lightbulb, [.light(false)])
        // Upstairs.
        try b.accessory("Bedroom Lamp", room: "Bedroom", category: .lightbulb, [.light(false, 40)])
        try b.accessory("Bedroom Ceiling Fan", room: "Bedroom", category: .fan, [.fanV2(true, speed: 50)])
        try b.accessory(
            "Bedroom Shades",
            room: "Bedroom",
            category: .windowCovering,
            [.position("windowCovering", 0)]
        )
        try b.accessory("Bedroom Window", room: "Bedroom", category: .window, [.position("window", 20)])
        try b.accessory("Anna's Lamp", room: "Kids Room", category: .lightbulb, [.light(true, 20)])
        try b.accessory("Kids Room Light", room: "Kids Room", category: .lightbulb, [.light(false, 100)])
        try b.accessory(
            "Kids Room Blinds",
            room: "Kids Room",
            category: .windowCovering,
            [.position("windowCovering", 100)]
        )
        try b.accessory(
            "Kids Room Sensor",
            room: "Kids Room",
            category: .sensor,
            [.temperature(21.5, name: "Kids Room Temperature"), .humidity(48, name: "Kids Room Humidity")]
        )
        try b.accessory("Guest Room Light", room: "Guest Room", category: .lightbulb, [.light(false)])
        try b.accessory("Guest Room Window", room: "Guest Room", category: .window, [.position("window", 0)])
        try b.accessory("Bathroom Light", room: "Bathroom", category: .lightbulb, [.light(true, 100)])
        try b.accessory("Bathroom Fan", room: "Bathroom", category: .fan, [.fan(false, speed: 100)])
        try b.accessory("Bathroom Sensor", room: "Bathroom", category: .sensor, [.humidity(70)])
        try b.accessory(
            "Upstairs Thermostat",
            room: "Landing",
            category: .thermostat,
            [.thermostat(current: 19, target: 20, mode: 1, humidity: 42, targetHumidity: 45, fahrenheit: true)]
        )
        try b.accessory("Landing Light", room: "Landing", category: .lightbulb, [.light(true, 40)])
        try b.accessory("Landing Window", room: "Landing", category: .window, [.position("window", 0)])
        try b.accessory(
            "Smoke Detector",
            room: "Landing",
            category: .sensor,
            [ServiceSpec("smokeSensor", values: ["smokeDetected": .number(0)])]
        )
        // Outside, in no zone.
        try b.accessory("Porch Light", room: "Porch", category: .lightbulb, [.light(false)])
        b.group("Reading Lamps", ["Office Lamp", "Bedroom Lamp"])
        b.group("Office Plugs", ["Monitor Outlet", "Printer Outlet", "Charger Outlet"])
        b.builtInScenes(["Good Morning", "Leave Home", "Arrive Home", "Good Night"])
        b.scene(
            "Movie Night",
            [("Floor Lamp", "brightness", .int(20)), ("Living Room Shades", "targetPosition", .uint(0))]
        )
        b.scene("Dinner Party", [("Chandelier", "on", .bool(true))])
        b.scene("Relax", [("Floor Lamp", "brightness", .int(40))])
        var home = b.home
        home.temperatureUnit = .fahrenheit
        return home
    }

    /// The rooms of the large home by zone.
    static let largeZones: [(zone: String, rooms: [String])] = [
        ("Ground Floor", ["Entrance", "Living Room", "Dining Room", "Kitchen", "Pantry", "Library", "Office", "Gym"]),
        (
            "First Floor",
            ["Bedroom 1", "Bedroom 2", "Bedroom 3", "Bedroom 4", "Bathroom 1", "Bathroom 2", "Study", "Playroom"]
        ),
        (
            "Second Floor",
            ["Bedroom 5", "Bedroom 6", "Bedroom 7", "Bedroom 8", "Bathroom 3", "Bathroom 4", "Cinema", "Studio"]
        ),
    ]

    /// The nine devices of every room of the large home, named "<room> <device>".
    static let largeDevices = [
        "Ceiling Light", "Lamp", "Wall Light", "Blinds", "Window", "Thermostat", "Fan", "Outlet", "Motion Sensor",
    ]

    /// A Celsius home of 24 rooms in three zones, with 219 accessories.
    ///
    /// Nine devices a room plus a front door, an alarm and a garage. Room `r` (0-based over all zones) has its
    /// ceiling light on when r is even, its lamp on when r % 3 == 0, its wall light off, blinds open (100) when
    /// r % 4 == 0 else closed, window open when r % 6 == 1, thermostat at 19 + r % 5 °C heating to 21, fan off
    /// (speed 30), outlet on when r is odd, and motion in rooms 5 and 17.
    static func large() throws -> Home {
        var b = HomeBuilder(name: "Manor", prefix: 0x1A26E, catalog: try TypeCatalog.shared())
        let rooms = largeZones.flatMap(\.rooms)
        b.rooms(rooms + ["Garage"])
        for (zone, zoneRooms) in largeZones { b.zone(zone, rooms: zoneRooms) }
        for (r, room) in rooms.enumerated() {
            let n = Double(r)
            try b.accessory("\(room) Ceiling Light", room: room, category: .lightbulb, [.light(r % 2 == 0, 100)])
            try b.accessory("\(room) Lamp", room: room, category: .lightbulb, [.light(r % 3 == 0, 50)])
            try b.accessory("\(room) Wall Light", room: room, category: .lightbulb, [.light(false)])
            try b.accessory(
                "\(room) Blinds",
                room: room,
                category: .windowCovering,
                [.position("windowCovering", r % 4 == 0 ? 100 : 0)]
            )
            try b.accessory("\(room) Window", room: room, category: .sensor, [.contact(open: r % 6 == 1)])
            try b.accessory(
                "\(room) Thermostat",
                room: room,
                category: .thermostat,
                [
                    .thermostat(
                        current: 19 + n.truncatingRemainder(dividingBy: 5),
                        target: 21,
                        mode: 1,
                        humidity: 40,
                        targetHumidity: 40
                    )
                ]
            )
            try b.accessory("\(room) Fan", room: room, category: .fan, [.fanV2(false, speed: 30)])
            try b.accessory("\(room) Outlet", room: room, category: .outlet, [.outlet(r % 2 == 1)])
            try b.accessory("\(room) Motion Sensor", room: room, category: .sensor, [.motion(r == 5 || r == 17)])
        }
        try b.accessory("Front Door", room: "Entrance", category: .doorLock, [.lock(false)])
        try b.accessory("Alarm", room: "Entrance", category: .securitySystem, [.security(1)])
        try b.accessory("Garage Door", room: "Garage", category: .garageDoorOpener, [.garageDoor(closed: false)])
        b.group("Cinema Lights", ["Cinema Ceiling Light", "Cinema Lamp", "Cinema Wall Light"])
        b.builtInScenes()
        b.scene("Party", [("Living Room Lamp", "on", .bool(true))])
        b.scene("Cinema Mode", [("Cinema Ceiling Light", "on", .bool(false))])
        return b.home
    }
}
