import Logging
import Synchronization

/// Every log entry of a server or responder, kept for a test to read.
public final class CapturedLogs: Sendable {
    /// One entry: its level, message and metadata as text.
    public struct Entry: Sendable {
        /// The level.
        public var level: Logger.Level
        /// The message.
        public var message: String
        /// The metadata, as text.
        public var metadata: [String: String]

        /// The message and metadata in one string, to search for text that must never be logged.
        public var text: String {
            ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }

    private let entries = Mutex<[Entry]>([])

    /// The entries so far, oldest first.
    public var all: [Entry] { entries.withLock { $0 } }

    /// Makes an empty capture.
    public init() {}

    /// The messages so far, oldest first.
    public var messages: [String] { all.map(\.message) }

    /// A logger at trace level that appends to this capture.
    public func logger(label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(logs: self) }
        logger.logLevel = .trace
        return logger
    }

    /// A handler that appends to this capture.
    public func handler() -> some LogHandler { Handler(logs: self) }

    fileprivate func append(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
    }

    /// Waits up to `timeout` for an entry that satisfies `condition`.
    public func first(timeout: Duration = .seconds(10), where condition: (Entry) -> Bool) async -> Entry? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let entry = all.first(where: condition) { return entry }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    private struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            logs.append(
                Entry(level: event.level, message: event.message.description, metadata: merged.mapValues(\.description))
            )
        }
    }
}
