import ArgumentParser
import Foundation
import HearthKit

/// `hearth trigger …`: triggers written in one line, shown and explained in words.
struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        abstract: "List, add, edit, show, explain, enable, disable, rename and remove triggers.",
        subcommands: [
            List.self, Add.self, Edit.self, Show.self, Explain.self, RenameCommand<Triggers>.self,
            RemoveCommand<Triggers>.self, Enable.self, Disable.self,
        ],
        defaultSubcommand: List.self
    )

    /// The help of the words of `add` and `edit`.
    static let wordsHelp = ArgumentHelp(
        "The trigger's name, then its options.",
        discussion: """
            Events (any one fires it): --when ACCESSORY CHARACTERISTIC [VALUE], --when-above/--when-below \
            ACCESSORY CHARACTERISTIC NUMBER, --at 07:30 [--on mon,tue], --at sunset-30m, --timer \
            2026-12-01T07:00 [--every 1d|2h|30m|1w], --when-arrive first|every, --when-leave last|every, \
            --when-enter/--when-exit REGION LAT LON RADIUS (each optionally followed by --who me|NAME,NAME), \
            --when ACCESSORY CHARACTERISTIC VALUE --held-for 10m. Conditions (all must hold): --if "after 18:00", \
            --if "before sunset", --if "between 07:00 22:00", --if ACCESSORY CHARACTERISTIC [OP] VALUE, \
            --if "anyone home", --if "no one home", --if "not fired in 10m". Then --run SCENE (repeatable), \
            --end-after 5m [--end-run SCENE] (undo when no scene), --once, --catch-up 10m, --disabled/--enabled. \
            Edit also takes --no-conditions, --no-end and --repeatable (execute-once off).
            """,
        valueName: "name-and-options"
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The triggers.")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let home = await options.loadHome(await options.client()).home
            options.show(TriggerList(triggers: home.triggers)) {
                Output.table(
                    ["TRIGGER", "ENABLED", "WHEN", "SCENES", "ID"],
                    home.triggers.map { trigger in
                        let text = TriggerText(home: home)
                        return [
                            trigger.name, trigger.isEnabled ? "yes" : "no", text.when(trigger.definition),
                            text.scenes(trigger.actionSetIDs), trigger.id.uuidString,
                        ]
                    }
                )
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a trigger in one line.",
            discussion: """
                Example: hearth trigger add "Welcome" --when "Front Door" lockCurrentState unsecured \
                --if "after sunset-30m" --if "Hallway Motion" motionDetected true --run "Arrive Home"
                """
        )
        @OptionGroup var options: HubOptions
        @Argument(parsing: .captureForPassthrough, help: TriggerCommand.wordsHelp) var words: [String] = []

        func run() async throws {
            let (words, options) = TriggerCommand.read(self.words, options)
            guard let name = words.name else {
                options.fail("name the trigger: hearth trigger add NAME --when …", code: HomeExit.usage, kind: "usage")
            }
            let session = await options.session()
            let resolver = TriggerResolver(session: session)
            let definition = resolver.definition(words, replacing: TriggerDefinition())
            let scenes = words.scenes.map { session.find(.scene, $0).id }
            let created = await session.call { client, homeID throws(HearthError) in
                try await client.addTrigger(
                    named: name,
                    isEnabled: words.isEnabled ?? true,
                    actionSetIDs: scenes,
                    definition: definition,
                    toHome: homeID
                )
            }
            let text = TriggerText(home: session.home)
            options.changed(
                created.events,
                "Added trigger \(created.object.name): \(text.when(definition))\(text.runs(scenes))."
            )
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a trigger: the options given replace its events, conditions, scenes or end."
        )
        @OptionGroup var options: HubOptions
        @Argument(parsing: .captureForPassthrough, help: TriggerCommand.wordsHelp) var words: [String] = []

        func run() async throws {
            let (words, options) = TriggerCommand.read(self.words, options)
            guard let name = words.name else {
                options.fail("name the trigger: hearth trigger edit NAME --if …", code: HomeExit.usage, kind: "usage")
            }
            let session = await options.session()
            let trigger = session.find(.trigger, name)
            let definition =
                words.changesDefinition
                ? TriggerResolver(session: session).definition(words, replacing: trigger.definition) : nil
            let scenes = words.scenes.isEmpty ? nil : words.scenes.map { session.find(.scene, $0).id }
            guard definition != nil || scenes != nil || words.isEnabled != nil else {
                options.fail(
                    "nothing to change: give events, conditions, --run, --end-after, --once, --catch-up, --enabled, "
                        + "--no-conditions, --no-end or --repeatable",
                    code: HomeExit.usage,
                    kind: "usage"
                )
            }
            await session.change("Changed trigger \(trigger.name).") { client, homeID throws(HearthError) in
                try await client.updateTrigger(
                    trigger.id,
                    isEnabled: words.isEnabled,
                    definition: definition,
                    actionSetIDs: scenes,
                    inHome: homeID
                )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A trigger in words.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The trigger, by name or id.") var trigger: String

        func run() async throws {
            let session = await options.session()
            let found = session.find(.trigger, trigger)
            let current = await session.call { client, homeID throws(HearthError) in
                try await client.trigger(found.id, inHome: homeID)
            }
            options.show(TriggerResponse(trigger: current)) { TriggerText(home: session.home).show(current) }
        }
    }

    struct Explain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Why a trigger did or did not fire: its last decisions, newest first."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "The trigger, by name or id.") var trigger: String
        @Option(help: "How many decisions to show.") var last = 5

        func run() async throws {
            let session = await options.session()
            let found = session.find(.trigger, trigger)
            let decisions = await session.call { client, homeID throws(HearthError) in
                try await client.decisions(ofTrigger: found.id, inHome: homeID)
            }
            let shown = Array(decisions.prefix(max(last, 0)))
            options.show(TriggerDecisionList(decisions: shown)) {
                guard !shown.isEmpty else { return "\(found.name) has decided nothing yet." }
                let text = TriggerText(home: session.home)
                return shown.map(text.explain).joined(separator: "\n")
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn a trigger on.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The trigger.") var trigger: String

        func run() async throws { await TriggerCommand.setEnabled(true, trigger, options) }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn a trigger off.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The trigger.") var trigger: String

        func run() async throws { await TriggerCommand.setEnabled(false, trigger, options) }
    }

    static func setEnabled(_ isEnabled: Bool, _ trigger: String, _ options: HubOptions) async {
        await options.change(.trigger, trigger) { client, trigger, homeID throws(HearthError) in
            try await client.updateTrigger(trigger.id, isEnabled: isEnabled, inHome: homeID)
        } report: {
            "Trigger \($0.name) is \(isEnabled ? "on" : "off")."
        }
    }

    /// The words read, and the options with the hub options written among them applied; exits 2 on bad words.
    static func read(_ words: [String], _ options: HubOptions) -> (TriggerWords, HubOptions) {
        var options = options
        do throws(TriggerWordsError) {
            let parsed = try TriggerWords.parse(words)
            if parsed.json { options.json = true }
            if let home = parsed.home { options.home = home }
            if let config = parsed.config { options.config = config }
            return (parsed, options)
        } catch {
            if words.contains("--json") { options.json = true }
            options.fail(error.description, code: HomeExit.usage, kind: "usage")
        }
    }
}

/// `hearth presence …`: report your own presence in the home.
struct PresenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence",
        abstract: "Report that you are home or away, or where you are (the hub tests it against the home's region).",
        subcommands: [Home.self, Away.self, At.self]
    )

    struct Home: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "home", abstract: "You are home.")
        @OptionGroup var options: HubOptions

        func run() async throws { await PresenceCommand.report(isHome: true, position: nil, options) }
    }

    struct Away: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "away", abstract: "You are away.")
        @OptionGroup var options: HubOptions

        func run() async throws { await PresenceCommand.report(isHome: false, position: nil, options) }
    }

    struct At: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "at",
            abstract: "You are at a position; home when it is within the home's presence radius."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "Latitude, -90 to 90.") var latitude: Double
        @Argument(help: "Longitude, -180 to 180.") var longitude: Double

        func run() async throws {
            let position = Location(latitude: latitude, longitude: longitude)
            await PresenceCommand.report(isHome: nil, position: position, options)
        }
    }

    static func report(isHome: Bool?, position: Location?, _ options: HubOptions) async {
        let session = await options.session()
        let events = await session.call { client, homeID throws(HearthError) in
            try await client.reportPresence(isHome: isHome, position: position, inHome: homeID)
        }
        let me = session.client.userID
        let home = events.lazy.compactMap { event -> Bool? in
            if case .userPresenceChanged(let user, let presence) = event.change, user == me { return presence.isHome }
            return nil
        }.first
        let state = home.map { $0 ? "home" : "away" } ?? (isHome == true ? "home" : "away")
        options.changed(events, "You are \(state) at \(session.home.name).")
    }
}

/// Looks up the names of `TriggerWords` in a home and makes the typed definition; exits with a sentence naming
/// what is not found.
struct TriggerResolver {
    /// The session whose home names are looked up in.
    let session: HomeSession

    /// `base` with the parts the words give replaced: the timer and events together, the conditions, the end, the
    /// catch-up window; `--once` turns execute-once on.
    func definition(_ words: TriggerWords, replacing base: TriggerDefinition) -> TriggerDefinition {
        var definition = words.removingParts(of: base)
        if !words.events.isEmpty || words.timer != nil {
            definition.timer = words.timer
            definition.events = words.events.map(event)
        }
        if !words.conditions.isEmpty {
            let conditions = words.conditions.map(condition)
            definition.condition = conditions.count == 1 ? conditions[0] : .all(conditions)
        }
        if let after = words.endAfterSeconds {
            definition.end = TriggerEnd(
                afterSeconds: after,
                actionSetIDs: words.endScenes.map { session.find(.scene, $0).id }
            )
        }
        if words.executeOnce { definition.executeOnce = true }
        if let catchUp = words.catchUpSeconds { definition.catchUpSeconds = catchUp }
        return definition
    }

    /// `[]`: every user; `["me"]`: the trigger's maker; names: those users of the home.
    private func users(_ who: [String]) -> UserScope {
        if who.isEmpty { return .everyUser }
        if who == ["me"] { return .currentUser }
        return .users(who.map { session.find(.user, $0).id })
    }

    private func characteristic(_ words: CharacteristicWords) -> Characteristic {
        let accessory = session.find(.accessory, words.accessory)
        return session.options.characteristic(words.characteristic, of: accessory, in: session.home)
    }

    private func event(_ words: EventWords) -> TriggerEvent {
        switch words {
        case .change(let target, let value):
            let found = characteristic(target)
            return .characteristic(id: found.id, value: value.map { session.options.value($0, for: found) })
        case .threshold(let target, let min, let max):
            return .threshold(id: characteristic(target).id, min: min, max: max)
        case .calendar(let time, let days): return .calendar(time: time, weekdays: days)
        case .sun(let sun, let offset): return .significantTime(sun: sun, offsetSeconds: offset)
        case .presence(let change, let who): return .presence(change: change, users: users(who))
        case .region(let name, let latitude, let longitude, let radius, let transition, let who):
            return .location(
                region: Region(
                    name: name,
                    center: Location(latitude: latitude, longitude: longitude),
                    radius: radius
                ),
                transition: transition,
                users: users(who)
            )
        case .held(let target, let value, let seconds):
            let found = characteristic(target)
            let condition = Condition.characteristic(
                id: found.id,
                comparison: .equal,
                value: session.options.value(value, for: found)
            )
            return .duration(condition: condition, seconds: seconds)
        }
    }

    private func condition(_ words: ConditionWords) -> Condition {
        switch words {
        case .time(let after, let before): return .time(after: after, before: before)
        case .characteristic(let target, let comparison, let value):
            let found = characteristic(target)
            return .characteristic(
                id: found.id,
                comparison: comparison,
                value: session.options.value(value, for: found)
            )
        case .presence(let requirement): return .presence(requirement)
        case .notFiredWithin(let seconds): return .notFiredWithin(seconds: seconds)
        }
    }
}

/// Triggers, their parts and their decisions in words, with the home's names.
struct TriggerText {
    /// The home whose names are used.
    let home: Home

    /// "Front Door lockCurrentState" for a characteristic id.
    func name(_ id: UUID) -> String {
        for accessory in home.accessories {
            if let found = accessory.characteristics.first(where: { $0.id == id }) {
                return "\(accessory.name) \(Naming.name(of: found))"
            }
        }
        return id.uuidString
    }

    /// A value of the characteristic `id` as text (`1 (unsecured)`).
    func value(_ value: HAPValue, of id: UUID) -> String {
        guard let found = home.accessories.lazy.flatMap(\.characteristics).first(where: { $0.id == id }) else {
            return value.description
        }
        // A value read back from JSON may be any integer case: name it as the characteristic's uint.
        if case .int(let number) = value, number >= 0 { return Naming.text(.uint(UInt64(number)), of: found) }
        return Naming.text(value, of: found)
    }

    /// The scenes by name, comma separated.
    func scenes(_ ids: [UUID]) -> String {
        ids.map { id in home.actionSets.first { $0.id == id }?.name ?? id.uuidString }.joined(separator: ", ")
    }

    /// ", runs Arrive Home" or "".
    func runs(_ ids: [UUID]) -> String { ids.isEmpty ? "" : ", runs \(scenes(ids))" }

    /// What fires a definition, in words.
    func when(_ definition: TriggerDefinition) -> String {
        if let timer = definition.timer { return self.timer(timer) }
        guard !definition.events.isEmpty else { return "no events" }
        return "when " + definition.events.map(event).joined(separator: " or ")
    }

    /// A timer in words.
    func timer(_ timer: TimerSchedule) -> String {
        var text = "at \(timer.fireDate)"
        switch timer.recurrence {
        case nil: break
        case .every(let count, let unit): text += ", every \(count) \(unit.rawValue)\(count == 1 ? "" : "s")"
        case .weekdays(let days): text += ", on \(days.map(\.rawValue).joined(separator: ", "))"
        case .daysOfMonth(let days): text += ", on days \(days.map(String.init).joined(separator: ", "))"
        }
        return text
    }

    /// An event in words.
    func event(_ event: TriggerEvent) -> String {
        switch event {
        case .characteristic(let id, let value?): return "\(name(id)) becomes \(self.value(value, of: id))"
        case .characteristic(let id, nil): return "\(name(id)) changes"
        case .threshold(let id, let min, let max):
            switch (min, max) {
            case (let min?, let max?): return "\(name(id)) enters \(min)…\(max)"
            case (let min?, nil): return "\(name(id)) rises to \(min) or above"
            case (nil, let max?): return "\(name(id)) falls to \(max) or below"
            case (nil, nil): return "\(name(id)) changes"
            }
        case .calendar(let time, let days):
            return "it is \(time)" + (days.isEmpty ? "" : " on \(days.map(\.rawValue).joined(separator: ", "))")
        case .significantTime(let sun, let offset):
            return "it is \(TimePoint.sun(sun, offsetSeconds: offset))"
        case .presence(let change, let users):
            let who = self.users(users)
            switch change {
            case .everyEntry: return "\(who) arrives"
            case .everyExit: return "\(who) leaves"
            case .firstEntry: return "the first of \(who) arrives"
            case .lastExit: return "the last of \(who) leaves"
            }
        case .location(let region, let transition, let users):
            return "\(self.users(users)) \(transition == .entry ? "enters" : "leaves") \(region.name)"
        case .duration(let condition, let seconds):
            return "\(self.condition(condition)) for \(DurationText.text(seconds))"
        }
    }

    private func users(_ scope: UserScope) -> String {
        switch scope {
        case .currentUser: "its maker"
        case .everyUser: "anyone"
        case .users(let ids):
            ids.map { id in home.users.first { $0.id == id }?.name ?? id.uuidString }.joined(separator: " or ")
        }
    }

    /// A condition in words.
    func condition(_ condition: Condition) -> String {
        switch condition {
        case .all(let parts): return parts.map(self.condition).joined(separator: " and ")
        case .any(let parts): return "(" + parts.map(self.condition).joined(separator: " or ") + ")"
        case .not(let part): return "not (\(self.condition(part)))"
        case .time(let after?, let before?): return "between \(after) and \(before)"
        case .time(let after?, nil): return "after \(after)"
        case .time(nil, let before?): return "before \(before)"
        case .time(nil, nil): return "any time"
        case .characteristic(let id, let comparison, let value):
            return "\(name(id)) \(comparison.rawValue) \(self.value(value, of: id))"
        case .presence(.anyone): return "anyone home"
        case .presence(.noOne): return "no one home"
        case .presence(.userHome(let id)): return "\(home.users.first { $0.id == id }?.name ?? id.uuidString) home"
        case .presence(.userAway(let id)): return "\(home.users.first { $0.id == id }?.name ?? id.uuidString) away"
        case .notFiredWithin(let seconds): return "not fired in \(DurationText.text(seconds))"
        }
    }

    /// A time in the home's time zone: `2026-11-25 19:42:03`.
    func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: home.timeZoneIdentifier) ?? .gmt
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// The whole trigger, one part a line.
    func show(_ trigger: Trigger) -> String {
        let definition = trigger.definition
        var lines = ["\(trigger.name) (\(trigger.isEnabled ? "on" : "off"))"]
        if let note = trigger.note { lines.append("  note: \(note)") }
        lines.append("  fires: \(when(definition))")
        if let condition = definition.condition { lines.append("  if: \(self.condition(condition))") }
        lines.append("  runs: \(trigger.actionSetIDs.isEmpty ? "no scenes" : scenes(trigger.actionSetIDs))")
        if let end = definition.end {
            let after = end.afterSeconds.map { "after \(DurationText.text($0))" } ?? ""
            let on = end.events.isEmpty ? "" : " or when " + end.events.map(event).joined(separator: " or ")
            let does = end.actionSetIDs.isEmpty ? "undoes its writes" : "runs \(scenes(end.actionSetIDs))"
            lines.append("  ends: \(after)\(on), \(does)")
        }
        if definition.executeOnce { lines.append("  once: turns off after its first firing") }
        if definition.catchUpSeconds > 0 {
            lines.append(
                "  catch-up: a firing missed up to \(DurationText.text(definition.catchUpSeconds)) ago runs on start"
            )
        }
        if let last = trigger.state.lastFired { lines.append("  last fired: \(time(last))") }
        if let next = trigger.state.nextFire { lines.append("  next: \(time(next))") }
        return lines.joined(separator: "\n")
    }

    /// One decision in sentences: when, the cause, the outcome, each condition and each write.
    func explain(_ decision: TriggerDecision) -> String {
        let outcome: String =
            switch decision.outcome {
            case .fired: "fired" + (decision.isCatchUp ? " (late, caught up on start)" : "")
            case .skipped: "did not fire because \(decision.reason ?? "a condition did not hold")"
            case .ended: "ended" + (decision.reason.map { ": \($0)" } ?? "")
            }
        var lines = ["\(time(decision.at))  \(decision.cause): \(outcome)"]
        for check in decision.conditions {
            lines.append("  \(check.holds ? "✓" : "✗") \(check.condition) (saw \(check.observed))")
        }
        for write in decision.writes {
            let result = write.error.map { "failed: \($0)" } ?? "done"
            lines.append(
                "  wrote \(name(write.characteristicID)) = \(value(write.value, of: write.characteristicID)): \(result)"
            )
        }
        return lines.joined(separator: "\n")
    }
}
