// The benchmark's sentences: every kind docs/commands.md lists, written from the home's own names.
import Foundation
import Simulator

/// One sentence and the kind of sentence it was written as (not checked: the corpus tests check meaning).
struct Sentence {
    let category: String
    let text: String
}

/// Sentences from `home`'s names, at least `minimum`, deterministic for `seed`, in a shuffled order.
func makeSentences(_ home: BenchHome, seed: UInt64, minimum: Int) -> [Sentence] {
    var random = SeededRandom(seed: seed)
    var sentences: [Sentence] = []
    func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    func number(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
    func add(_ category: String, _ text: String) { sentences.append(Sentence(category: category, text: text)) }

    func devices(_ presets: Set<Preset>) -> [Device] { home.devices.filter { presets.contains($0.preset) } }
    let switchable = devices([.lightbulb, .lightbulbDimmable, .lightbulbColor, .outlet, .switch, .fan])
    let dimmable = devices([.lightbulbDimmable, .lightbulbColor])
    let colour = devices([.lightbulbColor])
    let coverings = devices([.windowCovering])
    let garages = devices([.garageDoor])
    let locks = devices([.doorLock])
    let thermostats = devices([.thermostat])
    let fans = devices([.fan, .airPurifier])
    let rooms = home.rooms.map(\.name)
    let indoor = home.rooms.filter { $0.zone != "Outside" }.map(\.name)
    let covered = Array(Set(coverings.map(\.room))).sorted()
    let zones = ["upstairs", "downstairs", "outside"]
    let words = [
        "zero", "five", "ten", "fifteen", "twenty", "twenty five", "thirty", "forty", "forty five", "fifty",
        "sixty", "seventy five", "eighty", "ninety", "a hundred", "one hundred",
    ]
    func name(_ device: Device) -> String {
        let lower = device.name.lowercased()
        switch random.next() % 6 {
        case 0: return device.name
        case 1: return lower.replacingOccurrences(of: "é", with: "e")
        default: return lower
        }
    }

    // Control: on, off, toggle.
    for device in switchable {
        let n = name(device)
        add(
            "control.onOff",
            pick([
                "turn on the \(n)", "turn off the \(n)", "switch on the \(n)", "switch the \(n) off", "toggle the \(n)",
                "turn the \(n) on", "please turn off the \(n)", "Turn ON the \(n)!", "power off the \(n)",
                "could you switch off the \(n) please", "\(n) on", "kill the \(n)",
            ])
        )
    }
    // A device by the rest of its name in its room ("the ceiling light in the kitchen").
    for device in switchable + coverings where device.name.hasPrefix(device.room + " ") {
        let rest = device.name.dropFirst(device.room.count + 1).lowercased()
        let room = device.room.lowercased()
        let dims = device.preset == .lightbulbDimmable || device.preset == .lightbulbColor
        add(
            "control.alias",
            device.preset == .windowCovering
                ? pick(["open the \(rest) in the \(room)", "close the \(rest) in the \(room)"])
                : dims && random.next() % 3 == 0
                    ? "set the \(rest) in the \(room) to \(number(1...100)) percent"
                    : pick(["turn on the \(rest) in the \(room)", "turn off the \(rest) in the \(room)"])
        )
    }
    // Brightness, absolute and relative, digits and words.
    for device in dimmable {
        let n = name(device)
        let index = number(0...(words.count - 1))
        add(
            "control.brightness",
            pick([
                "set the \(n) to \(number(1...100)) percent", "dim the \(n) to \(number(1...99))%",
                "\(n) to \(number(1...100)) percent", "set the brightness of the \(n) to \(number(1...100))",
                "set the \(n) to \(words[index]) percent", "set the \(n) to half", "dim the \(n) to a quarter",
            ])
        )
        add(
            "control.relative",
            pick([
                "brighten the \(n)", "dim the \(n) a bit", "make the \(n) brighter", "dim the \(n) by 20 percent",
                "make the \(n) a lot brighter", "make the \(n) dimmer",
                "brighten the \(n) by \(number(5...40)) percent",
            ])
        )
    }
    // Colours and colour temperature.
    for device in colour {
        let n = name(device)
        add(
            "control.colour",
            pick([
                "make the \(n) red", "set the \(n) to blue", "turn the \(n) green", "set the \(n) to purple",
                "set the \(n) to warm white", "make the \(n) cool white", "set the \(n) to daylight",
                "set the \(n) to \(pick([2200, 2700, 3000, 4000, 5000, 6500])) kelvin", "make the \(n) pink",
                "set the \(n) to soft white", "turn the \(n) orange",
            ])
        )
    }
    // Positions of window coverings.
    for device in coverings {
        let n = name(device)
        add(
            "control.position",
            pick([
                "open the \(n)", "close the \(n)", "open the \(n) halfway",
                "set the \(n) to \(number(0...100)) percent",
                "raise the \(n) by 20 percent", "lower the \(n)", "open the \(n) a quarter", "shut the \(n)",
                "open the \(n) three quarters", "lower the \(n) by \(number(5...50)) percent",
            ])
        )
    }
    for room in covered {
        let r = room.lowercased()
        add(
            "control.position",
            pick(["close the blinds in the \(r)", "open the \(r) blinds", "open the curtains in the \(r)"])
        )
    }
    // Garage doors and gates, locks.
    for device in garages {
        let n = name(device)
        add("control.garage", "open the \(n)")
        add("control.garage", "close the \(n)")
    }
    add("control.garage", "close the garage")
    add("control.garage", "open the garage door")
    for device in locks {
        let n = name(device)
        add("control.lock", "lock the \(n)")
        add("control.lock", "unlock the \(n)")
        add("control.lock", "please lock the \(n)")
    }
    for text in [
        "lock all the doors", "lock every lock", "unlock the front door", "lock the front door", "lock everything",
    ] {
        add("control.lock", text)
    }
    // Temperatures, modes, relative.
    for device in thermostats {
        let n = name(device)
        let room = device.room.lowercased()
        add(
            "control.temperature",
            pick([
                "set the \(room) to \(number(16...26)) degrees", "set the \(n) to \(number(16...26))",
                "set the \(n) to \(number(60...78)) fahrenheit", "set the \(room) thermostat to twenty one degrees",
                "set the \(n) to \(number(17...24)).5 degrees", "set the \(room) to \(number(16...26))°",
                "set the temperature in the \(room) to \(number(16...26)) celsius",
            ])
        )
        add(
            "control.relative",
            pick([
                "make the \(room) \(number(1...3)) degrees warmer", "turn up the heat in the \(room)",
                "make it warmer in the \(room)", "make the \(room) cooler", "turn down the heat in the \(room)",
                "make the \(n) 2 degrees colder",
            ])
        )
        add(
            "control.mode",
            pick([
                "set the \(n) to heat mode", "set the \(n) to cool", "set the \(n) to auto",
                "turn off the heating in the \(room)", "switch the \(n) to cooling", "turn off the \(n)",
            ])
        )
    }
    // Fans and purifiers.
    for device in fans {
        let n = name(device)
        add(
            "control.fan",
            pick([
                "set the \(n) to \(number(10...100)) percent", "set the \(n) to high", "set the \(n) to low",
                "set the \(n) to medium", "make the \(n) faster", "make the \(n) slower",
                "set the \(n) speed to 40 percent",
            ])
        )
    }
    // The security system.
    for text in [
        "arm the security system", "disarm the security system", "arm the alarm", "disarm the alarm",
        "set the security system to night mode", "arm the security system in away mode", "arm stay",
        "set the alarm to stay", "arm the security system night",
    ] {
        add("control.security", text)
    }
    // Rooms, zones, types, the whole home.
    for room in rooms {
        let r = room.lowercased()
        add(
            "control.place",
            pick([
                "turn on the lights in the \(r)", "turn off the \(r) lights", "turn off everything in the \(r)",
                "dim the lights in the \(r) to 30 percent", "turn off the outlets in the \(r)",
                "turn on all the lights in the \(r)", "switch off the lamps in the \(r)", "dim the \(r) a bit",
                "brighten the \(r)",
            ])
        )
        add("control.place", pick(["turn off the lights in the \(r)", "turn on the \(r) lights"]))
    }
    for zone in zones {
        for text in [
            "turn on the lights \(zone)", "turn off the lights \(zone)", "close every blind \(zone)",
            "turn off all the fans \(zone)", "dim the lights \(zone) to 40 percent", "turn off everything \(zone)",
        ] {
            add("control.place", text)
        }
    }
    for text in [
        "turn off all the lights", "turn on all the lights", "turn off every fan", "close all the blinds",
        "open all the shades", "turn off all the outlets", "turn off everything", "dim all the lights to 20 percent",
        "turn on the christmas lights", "turn off the reading lights", "turn on the garden lighting",
        "turn off the kids lights", "set the christmas lights to red", "switch off all the plugs",
    ] {
        add("control.place", text)
    }

    // Questions.
    for device in switchable.filter({ _ in random.next() % 3 == 0 }) {
        add(
            "query.state",
            pick(["is the \(name(device)) on?", "is the \(name(device)) off", "is \(name(device)) on?"])
        )
    }
    for device in locks {
        add("query.state", pick(["is the \(name(device)) locked?", "is the \(name(device)) unlocked?"]))
    }
    for device in garages + coverings.prefix(20) {
        add("query.state", "is the \(name(device)) open?")
    }
    let warmRooms = Set(devices([.thermostat, .temperatureSensor, .heaterCooler]).map(\.room)).sorted()
    for room in warmRooms {
        let r = room.lowercased()
        add(
            "query.state",
            pick([
                "what's the temperature in the \(r)?", "how warm is it in the \(r)?",
                "what's the temperature in the \(r)",
                "what is the temperature in the \(r)", "how cold is it in the \(r)?",
            ])
        )
    }
    for room in Set(devices([.thermostat, .humiditySensor]).map(\.room)).sorted() {
        let r = room.lowercased()
        add("query.state", pick(["what is the humidity in the \(r)?", "how humid is it in the \(r)?"]))
    }
    for device in devices([.contactSensor]) { add("query.state", "is the \(name(device)) open?") }
    for device in devices([.temperatureSensor]) { add("query.state", "what's the temperature of the \(name(device))?") }
    for device in dimmable.filter({ _ in random.next() % 5 == 0 }) {
        add("query.state", "what's the brightness of the \(name(device))?")
    }
    for device in devices([.motionSensor]) {
        add("query.state", "is there motion in the \(device.room.lowercased())?")
    }
    for room in indoor {
        let r = room.lowercased()
        add("query.which", pick(["which lights are on in the \(r)?", "which lights are off in the \(r)?"]))
        add("query.count", pick(["how many lights are on in the \(r)?", "how many lights are off in the \(r)?"]))
        add("query.any", pick(["are any lights on in the \(r)?", "are any windows open in the \(r)?"]))
        add("query.all", pick(["are all the lights off in the \(r)?", "are all the blinds closed in the \(r)?"]))
    }
    for zone in zones {
        add("query.any", "are any windows open \(zone)?")
        add("query.any", "are any lights on \(zone)?")
        add("query.which", "which lights are on \(zone)?")
        add("query.count", "how many lights are on \(zone)?")
        add("query.all", "are all the lights off \(zone)?")
    }
    for text in [
        "which lights are on?", "which doors are unlocked?", "which fans are on?", "which outlets are on?",
        "is everything locked?", "are all the lights off?", "are all the doors locked?", "are any doors unlocked?",
        "how many lights are on?", "how many blinds are open?", "is the front door locked?",
        "are any windows open?", "is the garage open?", "how many outlets are on?", "are all the windows closed?",
    ] {
        add("query.mixed", text)
    }

    // Scenes: the name alone, after a verb, the built-ins by their usual phrases.
    for scene in home.scenes {
        let s = scene.lowercased()
        add("scene", s)
        add("scene", pick(["run \(s)", "activate \(s)", "start \(s)", "activate the \(s) scene", "set \(s)"]))
    }
    for text in [
        "good morning", "i'm leaving", "I'm home", "good night", "goodbye", "bedtime", "I'm back", "wake up",
        "time for bed", "i'm going out",
    ] {
        add("scene", text)
    }

    // Refusals: outside the home's control, and unknown words.
    let world = [
        "set a timer for five minutes", "play some music in the kitchen", "what's the weather tomorrow",
        "add milk to the shopping list", "who won the game last night", "what time is it", "order a pizza",
        "set an alarm for 7 am", "tell me a joke", "how far is the moon", "play jazz in the living room",
        "remind me to call mom", "what is the capital of france", "read my messages", "skip this song",
        "turn up the music", "send a message to anna", "how tall is mount everest", "start the vacuum cleaner",
        "book a table for two", "what's on my calendar", "translate hello into french", "is it going to rain",
        "make me a coffee", "navigate to work",
    ]
    for text in world { add("refusal", text) }
    for device in switchable.filter({ _ in random.next() % 12 == 0 }) {
        add(
            "refusal",
            pick([
                "defrost the \(name(device))", "sing to the \(name(device))", "paint the \(name(device)) blue tomorrow",
                "turn on the \(name(device)) in ten minutes", "email the \(name(device))",
            ])
        )
    }
    for room in rooms.filter({ _ in random.next() % 3 == 0 }) {
        add(
            "refusal",
            pick(["turn on the flux capacitor in the \(room.lowercased())", "vacuum the \(room.lowercased())"])
        )
    }

    // Ambiguous: a type said once where the home has many, names shared across rooms.
    for text in [
        "turn on the lamp", "turn off the light", "open the blind", "unlock the door",
        "set the thermostat to 21 degrees",
        "turn on the fan", "turn on the ceiling light", "close the curtain", "turn off the night light",
        "dim the ceiling light", "lock the door", "turn on the light strip", "turn off the outlet",
        "set the fan to high", "is the door locked?", "what's the temperature of the thermostat?",
        "turn on the downlight", "open the shade", "turn off the switch", "close the garage door",
    ] {
        add("ambiguous", text)
    }

    // Out of range values.
    for device in thermostats {
        add(
            "invalid",
            pick(["set the \(device.room.lowercased()) to 90 degrees", "set the \(name(device)) to 5 degrees"])
        )
    }
    for device in dimmable.filter({ _ in random.next() % 6 == 0 }) {
        add("invalid", pick(["set the \(name(device)) to 150 percent", "set the \(name(device)) brightness to 250%"]))
    }
    for device in fans.prefix(8) { add("invalid", "set the \(name(device)) to 120 percent") }
    for device in coverings.prefix(8) { add("invalid", "set the \(name(device)) to 200 percent") }
    for device in colour.prefix(6) { add("invalid", "set the \(name(device)) to 20000 kelvin") }

    // Configuration.
    for device in switchable.filter({ _ in random.next() % 25 == 0 }) {
        add(
            "configure",
            pick([
                "rename the \(name(device)) to \(device.room) Main Light",
                "move the \(name(device)) to the \(pick(rooms).lowercased())",
            ])
        )
    }

    sentences.shuffle(using: &random)
    guard !sentences.isEmpty else { return [] }
    var all = sentences
    while all.count < minimum { all += sentences }
    return all
}
