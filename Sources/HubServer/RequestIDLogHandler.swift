import Logging

/// The API's application log handler: it keeps Hummingbird's request id itself and adds it to each line it logs.
///
/// Hummingbird sets the id on every request, and `StreamLogHandler` formats all of its metadata again each time
/// one is set: about 1 % of an API write's CPU, for lines a hub at its usual level never writes.
struct RequestIDLogHandler: LogHandler {
    /// The metadata key of Hummingbird's request id.
    static let requestIDKey = "hb.request.id"

    /// The handler that logs.
    var inner: any LogHandler
    /// Hummingbird's request id, kept out of `inner`.
    var requestID: Logger.Metadata.Value?

    /// Wraps `inner`.
    init(inner: any LogHandler) { self.inner = inner }

    func log(event: LogEvent) {
        var event = event
        // A line's own metadata wins, as it does over a handler's.
        if let requestID, event.metadata?[Self.requestIDKey] == nil {
            event.metadata = (event.metadata ?? [:]).merging([Self.requestIDKey: requestID]) { own, _ in own }
        }
        inner.log(event: event)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { key == Self.requestIDKey ? requestID : inner[metadataKey: key] }
        set {
            if key == Self.requestIDKey { requestID = newValue } else { inner[metadataKey: key] = newValue }
        }
    }

    var metadata: Logger.Metadata {
        get {
            var metadata = inner.metadata
            if let requestID { metadata[Self.requestIDKey] = requestID }
            return metadata
        }
        set {
            var metadata = newValue
            requestID = metadata.removeValue(forKey: Self.requestIDKey)
            inner.metadata = metadata
        }
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }
}

extension Logger {
    /// This logger with its handler wrapped in ``RequestIDLogHandler``.
    var keepingRequestIDs: Logger {
        var logger = self
        logger.handler = RequestIDLogHandler(inner: handler)
        return logger
    }
}
