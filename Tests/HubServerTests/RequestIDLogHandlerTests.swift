import Logging
import Synchronization
import TestSupport
import Testing

@testable import HubServer

/// The API's log handler keeps Hummingbird's per-request id to itself and still writes it on every line.
struct RequestIDLogHandlerTests {
    /// How often a handler's metadata was set.
    final class Counter: Sendable {
        let sets = Mutex(0)
        var count: Int { sets.withLock { $0 } }
    }

    /// A handler that counts how often its metadata is set, and logs into a capture.
    struct CountingHandler: LogHandler {
        let counter: Counter
        var inner: any LogHandler
        var logLevel: Logger.Level {
            get { inner.logLevel }
            set { inner.logLevel = newValue }
        }
        var metadata: Logger.Metadata {
            get { inner.metadata }
            set {
                counter.sets.withLock { $0 += 1 }
                inner.metadata = newValue
            }
        }
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { inner[metadataKey: key] }
            set {
                counter.sets.withLock { $0 += 1 }
                inner[metadataKey: key] = newValue
            }
        }
        func log(event: LogEvent) { inner.log(event: event) }
    }

    @Test func theRequestIDIsKeptOutOfTheInnerHandlerAndWrittenOnEachLine() {
        let logs = CapturedLogs()
        let counter = Counter()
        var logger = Logger(label: "test") { _ in CountingHandler(counter: counter, inner: logs.handler()) }
            .keepingRequestIDs
        logger.logLevel = .trace
        for id in 0..<100 { logger[metadataKey: "hb.request.id"] = "\(id)" }
        #expect(counter.count == 0)
        logger[metadataKey: "route"] = "/v1/me"
        #expect(counter.count == 1)
        // Hummingbird reads the id back (`RequestContext.id`).
        #expect(logger[metadataKey: "hb.request.id"] == "99")
        logger.info("answered")
        #expect(logs.all.last?.message == "answered")
        #expect(logs.all.last?.metadata == ["hb.request.id": "99", "route": "/v1/me"])

        // Setting all metadata at once keeps the id here too, and reading it back gives the whole set.
        logger.handler.metadata = ["hb.request.id": "8b4c", "user": "ann"]
        #expect(logger.handler.metadata == ["hb.request.id": "8b4c", "user": "ann"])
        logger.warning("again")
        #expect(logs.all.last?.metadata == ["hb.request.id": "8b4c", "user": "ann"])
        // A line's own metadata wins over the kept id, as it does over a handler's metadata.
        logger.info("own", metadata: ["hb.request.id": "line"])
        #expect(logs.all.last?.metadata["hb.request.id"] == "line")
    }
}
