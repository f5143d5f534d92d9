import Foundation
import Testing

@testable import HomeGraph

/// Adding triggers checks names and ids against an index kept with the home (issue 17): the same names are taken
/// and the same clashes refused as by a scan of the whole home, and adding many costs the same per trigger.
@Suite struct TriggerNameIndexTests {
    /// Names that clash with earlier objects are refused naming the same object, however many triggers came before,
    /// and after renames, removals and other changes the index does not follow.
    @Test func clashingNamesAreRefusedAsBefore() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        var triggerIDs: [UUID] = []
        for number in 0..<300 {
            let id = fixture.ids.makeID()
            try fixture.apply(.addTrigger(home: home, trigger: Trigger.make(id: id, name: "Trigger \(number)")))
            triggerIDs.append(id)
        }
        let room = try fixture.addRoom("Küche")
        let lamp = try fixture.addLamp("Reading Light")
        for (name, existing) in [
            ("trigger 0", ObjectReference(.trigger, triggerIDs[0])),
            ("TRIGGER 299", ObjectReference(.trigger, triggerIDs[299])),
            ("Trig\u{200B}ger 150", ObjectReference(.trigger, triggerIDs[150])),
            ("kuche", ObjectReference(.room, room)),
            ("reading  light", ObjectReference(.accessory, lamp.id)),
            ("Default Room", ObjectReference(.room, fixture.entireHomeRoomID)),
        ] {
            let id = fixture.ids.makeID()
            fixture.expectFailure(
                .addTrigger(home: home, trigger: Trigger.make(id: id, name: name)),
                .nameTaken(name: Names.normalized(name), existing: existing)
            )
        }
        // A taken id is refused naming the object that has it, before the name is looked at.
        fixture.expectFailure(
            .addTrigger(home: home, trigger: Trigger.make(id: triggerIDs[7], name: "Fresh")),
            .idTaken(ObjectReference(.trigger, triggerIDs[7]))
        )
        fixture.expectFailure(
            .addTrigger(home: home, trigger: Trigger.make(id: lamp.services[0].characteristics[0].id, name: "Fresh")),
            .idTaken(ObjectReference(.characteristic, lamp.services[0].characteristics[0].id))
        )

        // A renamed trigger frees its old name and takes the new one; a removed one frees its name.
        try fixture.apply(.renameTrigger(home: home, trigger: triggerIDs[3], name: "Sunset"))
        try fixture.apply(.removeTrigger(home: home, trigger: triggerIDs[4]))
        let renamed = fixture.ids.makeID()
        try fixture.apply(.addTrigger(home: home, trigger: Trigger.make(id: renamed, name: "trigger 3")))
        let freed = fixture.ids.makeID()
        try fixture.apply(.addTrigger(home: home, trigger: Trigger.make(id: freed, name: "Trigger  4")))
        fixture.expectFailure(
            .addTrigger(home: home, trigger: Trigger.make(id: fixture.ids.makeID(), name: "SUNSET")),
            .nameTaken(name: "SUNSET", existing: ObjectReference(.trigger, triggerIDs[3]))
        )
        fixture.expectFailure(
            .addTrigger(home: home, trigger: Trigger.make(id: fixture.ids.makeID(), name: "Trigger 4")),
            .nameTaken(name: "Trigger 4", existing: ObjectReference(.trigger, freed))
        )
        let names = try fixture.home.triggers.map(\.name)
        #expect(names.count == 301)
        #expect(names.suffix(2) == ["trigger 3", "Trigger 4"])
        #expect(Set(names.map(Names.key)).count == names.count)
    }

    /// Adding 10,000 triggers: the last thousand cost about what the first thousand did.
    ///
    /// With a scan per add they cost about 19 times as much: 8.3 s against 0.46 s in a debug build. A guard of the
    /// growth, not a speed measurement: half a second of slack absorbs a machine busy with other tests. Prints both
    /// times.
    @Test func addingTenThousandTriggersCostsTheSamePerTrigger() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let clock = ContinuousClock()
        var times: [Duration] = []
        for thousand in 0..<10 {
            let start = clock.now
            for number in (thousand * 1000)..<((thousand + 1) * 1000) {
                let trigger = Trigger.make(id: fixture.ids.makeID(), name: "Trigger \(number)")
                try fixture.apply(.addTrigger(home: home, trigger: trigger))
            }
            times.append(clock.now - start)
        }
        let total = times.reduce(Duration.zero, +)
        print("Adding 10,000 triggers: \(total); first 1,000 \(times[0]), last 1,000 \(times[9])")
        #expect(try fixture.home.triggers.count == 10_000)
        #expect(times[9] < times[0] * 5 + .milliseconds(500), "first 1,000: \(times[0]), last 1,000: \(times[9])")
    }

    /// Operations on one trigger find it by id through a positions cache: after adds, removals (which move the
    /// triggers behind) and renames, each operation changes exactly the trigger it names, and a removed trigger is
    /// not found.
    @Test func operationsFindTheirTriggerAfterAddsAndRemovals() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        var ids: [UUID] = []
        for number in 0..<50 {
            let id = fixture.ids.makeID()
            try fixture.apply(.addTrigger(home: home, trigger: Trigger.make(id: id, name: "Trigger \(number)")))
            ids.append(id)
            // Every add is followed by an operation on the newest trigger and on the first.
            try fixture.apply(.renameTrigger(home: home, trigger: id, name: "Newest \(number)"))
            try fixture.apply(.renameTrigger(home: home, trigger: ids[0], name: "First \(number)"))
        }
        for removed in [ids[0], ids[10], ids[49]] {
            try fixture.apply(.removeTrigger(home: home, trigger: removed))
            fixture.expectFailure(
                .renameTrigger(home: home, trigger: removed, name: "Ghost"),
                .notFound(.trigger, removed)
            )
        }
        try fixture.apply(.renameTrigger(home: home, trigger: ids[11], name: "Moved"))
        try fixture.apply(.enableTrigger(home: home, trigger: ids[48], isEnabled: false))
        let late = fixture.ids.makeID()
        try fixture.apply(.addTrigger(home: home, trigger: Trigger.make(id: late, name: "Late")))
        try fixture.apply(.renameTrigger(home: home, trigger: late, name: "Later"))
        let triggers = try Array(fixture.home.triggers)
        #expect(triggers.count == 48)
        #expect(!triggers.contains { [ids[0], ids[10], ids[49]].contains($0.id) })
        #expect(triggers.first { $0.id == ids[11] }?.name == "Moved")
        #expect(triggers.first { $0.id == ids[12] }?.name == "Newest 12")
        #expect(triggers.first { $0.id == ids[48] }?.isEnabled == false)
        #expect(triggers.filter { !$0.isEnabled }.map(\.id) == [ids[48]])
        #expect(triggers.last?.id == late)
        #expect(triggers.last?.name == "Later")
    }
}
