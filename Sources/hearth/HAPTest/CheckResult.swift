/// What one check of `hearth hap test` concluded.
enum CheckOutcome: String, Encodable, Sendable {
    /// The accessory did what hap-protocol.md asks.
    case pass
    /// The accessory did something else; the details say what was seen on the wire.
    case fail
    /// Allowed, but peers or the spec's readers disagree, or it will trouble some controllers.
    case warning
    /// Not run; the details say why.
    case skipped
}

/// One check: its id, title and spec reference (a section of docs/hap-protocol.md).
struct CheckDefinition: Sendable, Equatable {
    /// A stable dotted id, `pair-setup.wrong-code`.
    var id: String
    /// What is checked, in a few words.
    var title: String
    /// The section of hap-protocol.md the check rests on, `hap-protocol.md §3.5`.
    var spec: String
}

/// One check's result as reported: one line of `--json`.
struct CheckResult: Encodable, Sendable {
    var id: String
    var title: String
    var spec: String
    var result: CheckOutcome
    /// What was seen: status codes, TLV error codes, TXT values, or why the check was skipped.
    var details: [String]

    init(_ check: CheckDefinition, _ result: CheckOutcome, _ details: [String] = []) {
        id = check.id
        title = check.title
        spec = check.spec
        self.result = result
        self.details = details
    }
}

/// Every check `hearth hap test` runs, in the order it runs them.
enum Checks {
    static func check(_ id: String, _ title: String, _ section: String) -> CheckDefinition {
        CheckDefinition(id: id, title: title, spec: "hap-protocol.md §" + section)
    }

    static let txtRecord = check("mdns.txt", "TXT keys c#, ff, id, md, pv, s#, sf, ci, sh present and well formed", "8")
    static let setupHash = check("mdns.setup-hash", "sh is the setup hash of the setup ID and device ID", "8")
    static let statusFlag = check("mdns.sf", "sf bit 0 clears once paired and is set again once unpaired", "8, 3.5, 6")
    static let configurationNumber = check("mdns.c#", "c# increases when the accessory database changes", "8, 7.4")
    static let plaintext470 = check(
        "plain.470",
        "requests that need a session are answered 470 before pair-verify",
        "7.1, 7.2"
    )
    static let identifyUnpaired = check("identify.unpaired", "POST /identify before pairing answers 204", "7.1")
    static let wrongCode = check(
        "pair-setup.wrong-code",
        "a wrong setup code is refused with Authentication at M4",
        "3.5, 2.4"
    )
    static let busy = check("pair-setup.busy", "a second pair-setup while one runs is refused with Busy", "12.2, 2.4")
    static let pairSetup = check("pair-setup.pair", "pair-setup with the right code pairs the tester as admin", "3")
    static let unavailable = check(
        "pair-setup.unavailable",
        "pair-setup once paired is refused with Unavailable",
        "12.2, 2.4"
    )
    static let verifyGood = check("pair-verify.good", "pair-verify as the paired controller opens a session", "4, 5")
    static let verifyUnknown = check(
        "pair-verify.unknown",
        "pair-verify as an unknown controller is refused at M4",
        "4"
    )
    static let badFrame = check("session.bad-frame", "a session that sends a frame with a bad tag is closed", "5")
    static let accessoryInformation = check(
        "db.accessory-information",
        "aid 1 exists, every accessory has Accessory Information, first on aid 1",
        "7.4, 11.1"
    )
    static let uniqueIDs = check("db.unique-ids", "aids unique, iids unique within an accessory", "7.4")
    static let noDuplicates = check("db.no-duplicate-types", "no characteristic type twice in a service", "7.4, 11.1")
    static let required = check("db.required", "every Apple service has its required characteristics", "11.1")
    static let optional = check(
        "db.optional",
        "Apple services hold only their required and optional characteristics",
        "11.1"
    )
    static let duplicateServices = check(
        "db.no-duplicate-services",
        "at most one Accessory Information and one Protocol Information per accessory",
        "7.4, 11.1"
    )
    static let catalog = check("db.catalog", "formats, permissions and metadata agree with the type catalog", "9, 11.2")
    static let values = check("db.values", "every value is inside its own format and metadata", "9.1, 9.3")
    static let accessoryCount = check("db.count", "at most 150 accessories", "12.3")
    static let readAll = check("rw.read", "every readable characteristic reads with its value", "7.5")
    static let writeRestore = check(
        "rw.write",
        "writes of every writable characteristic succeed and read back; restored",
        "7.6"
    )
    static let writeReadOnly = check("rw.read-only", "writing a read-only characteristic answers -70404", "7.3, 7.6")
    static let readWriteOnly = check("rw.write-only", "reading a write-only characteristic answers -70405", "7.3, 7.5")
    static let outOfRange = check("rw.out-of-range", "writing a value outside the metadata answers -70410", "7.3, 9.3")
    static let unknownIID = check("rw.unknown-iid", "reading and writing an unknown iid answer -70409", "7.3, 7.6")
    static let timedWrite = check(
        "rw.timed-write",
        "tw characteristics need /prepare; with it the write succeeds",
        "7.7"
    )
    static let writeResponse = check(
        "rw.write-response",
        "a write with r:true on a wr characteristic returns the value",
        "7.6"
    )
    static let events = check("events", "subscribe, a change from another session arrives, unsubscribe stops it", "7.8")
    static let coalescing = check(
        "events.coalescing",
        "rapid changes are coalesced into spaced event messages, the last value arriving",
        "7.8, 12.3, 14 item 5"
    )
    static let unsolicitedEvents = check(
        "events.unsolicited",
        "no events for characteristics the session did not subscribe to",
        "7.8"
    )
    static let restart = check(
        "restart.reconnect",
        "after a restart: same aids and iids, pair-verify works, events resume once re-subscribed",
        "7.4, 4, 7.8"
    )
    static let pairingsManage = check("pairings.add-list-remove", "Add, List and Remove Pairing", "6")
    static let pairingsAdminOnly = check(
        "pairings.admin-only",
        "a regular controller's /pairings is refused with Authentication",
        "6"
    )
    static let pairingsCloseSessions = check(
        "pairings.remove-closes-sessions",
        "removing a controller closes its open sessions",
        "6, 14.7"
    )
    static let lastAdmin = check(
        "pairings.last-admin",
        "removing the last admin makes the accessory pairable again",
        "6, 12.2"
    )
    static let maxTries = check(
        "pair-setup.max-tries",
        "after 100 wrong codes pair-setup answers MaxTries",
        "12.2, 2.4"
    )

    /// Every check, in report order.
    static let all: [CheckDefinition] = [
        txtRecord, setupHash, plaintext470, identifyUnpaired, wrongCode, busy, pairSetup, unavailable, verifyGood,
        verifyUnknown, badFrame, accessoryInformation, uniqueIDs, noDuplicates, required, optional, duplicateServices,
        catalog,
        values, accessoryCount, readAll, writeRestore, writeReadOnly, readWriteOnly, outOfRange, unknownIID, timedWrite,
        writeResponse, events, coalescing, unsolicitedEvents, restart, pairingsManage, pairingsAdminOnly,
        pairingsCloseSessions, lastAdmin,
        statusFlag,
        configurationNumber, maxTries,
    ]
}
