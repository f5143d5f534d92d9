import HAP
import HAPTypes

extension AccessoryServer {
    /// How the server presents itself and what it allows.
    public struct Configuration: Sendable {
        /// hap-protocol.md §12.3: ADK needs at least 8 sessions and recommends 17; we insist on 16.
        public static let minimumSessions = 16

        /// The name announced over mDNS.
        public var name: String
        /// The model announced as `md`.
        public var model: String
        /// The category announced as `ci`.
        public var category: AccessoryCategory
        /// The address to listen on, for example `127.0.0.1` or `0.0.0.0`.
        public var host: String
        /// The TCP port; 0 picks a free one (read it from ``AccessoryServer/port``).
        public var port: Int
        /// Connections served at once, at least 16; one more closes the connection idle longest that has not
        /// completed pair-verify, or the verified session idle longest when every connection is verified.
        public var maximumSessions: Int
        /// How long a connection that has not completed pair-verify may take to complete its next request before it
        /// is closed (at least the pair-setup timeout, 30 s, while it runs a pair-setup); a verified session has none.
        ///
        /// Controllers connect and verify at once; a stranger's idle connection or partial request is closed after
        /// this. The default is ``defaultUnverifiedTimeout``.
        public var unverifiedTimeout: Duration
        /// How long a connection's events are held back after an event message, to merge bursts; `.zero` sends each
        /// change at once.
        ///
        /// The first change after a quiet period is sent immediately; changes within the window after it are
        /// merged (last value per characteristic) and sent when the window ends. 250 ms (HAP-NodeJS's batch) keeps
        /// a dragged slider at four messages a second while a lone change costs no delay; HAP-python holds every
        /// event 0.5 s and ADK sends at most one message per second.
        public var eventCoalescingWindow: Duration
        /// The setup code: makes the SRP verifier on first start, and a new one when it changes while unpaired.
        public var setupCode: SetupCode?
        /// Whether the server trims the heap after starting and after `/accessories` answers; off by default.
        ///
        /// ``AccessoryServer/releaseFreeMemory()`` trims the whole process's heap, so it is for a process that is
        /// mostly this server (hearth-sim).
        public var releasesFreeMemory = false

        /// The default for ``eventCoalescingWindow``.
        public static let defaultEventCoalescingWindow = Duration.milliseconds(250)
        /// The default for ``unverifiedTimeout``: pair-verify takes milliseconds, a pair-setup request about a second.
        public static let defaultUnverifiedTimeout = Duration.seconds(10)

        /// Makes a configuration.
        public init(
            name: String,
            model: String,
            category: AccessoryCategory,
            host: String = "0.0.0.0",
            port: Int = 0,
            maximumSessions: Int = 17,
            eventCoalescingWindow: Duration = Self.defaultEventCoalescingWindow,
            unverifiedTimeout: Duration = Self.defaultUnverifiedTimeout,
            setupCode: SetupCode? = nil
        ) {
            self.name = name
            self.model = model
            self.category = category
            self.host = host
            self.port = port
            self.maximumSessions = max(maximumSessions, Self.minimumSessions)
            self.eventCoalescingWindow = eventCoalescingWindow
            self.unverifiedTimeout = unverifiedTimeout
            self.setupCode = setupCode
        }
    }
}
