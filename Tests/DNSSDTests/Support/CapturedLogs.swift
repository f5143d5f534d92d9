import Logging
import Synchronization

/// Every log entry of a responder, kept for a test to read.
final class CapturedLogs: Sendable {
    private let messages = Mutex<[(level: Logger.Level, message: String)]>([])

    /// The messages so far, oldest first.
    var all: [String] { messages.withLock { $0.map(\.message) } }

    /// A logger at trace level that appends to this capture.
    func logger() -> Logger {
        var logger = Logger(label: "test.dnssd") { _ in Handler(logs: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ level: Logger.Level, _ message: String) {
        messages.withLock { $0.append((level, message)) }
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
            logs.append(event.level, event.message.description)
        }
    }
}
