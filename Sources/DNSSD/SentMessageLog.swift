/// The messages a responder multicast lately, to recognise them when multicast loopback brings them back.
///
/// A response heard back unchanged is our own (RFC 6762 §9: identical records are no conflict), even when our
/// records have changed since it was sent, as after a TXT update right after the first announcement. Another
/// responder could only send the same bytes with the same records, which is no conflict either.
struct SentMessageLog {
    /// How long a sent message is remembered; loopback brings it back within milliseconds.
    static let window = Duration.seconds(5)
    /// The most messages remembered at once.
    static let capacity = 64

    private var entries: [(message: DNSMessage, sentAt: ContinuousClock.Instant)] = []

    /// Remembers a message sent at `time`.
    mutating func record(_ message: DNSMessage, at time: ContinuousClock.Instant) {
        expire(before: time)
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append((message, time))
    }

    /// Whether `message`, heard at `time`, is one we sent within the window.
    func contains(_ message: DNSMessage, at time: ContinuousClock.Instant) -> Bool {
        entries.contains { time - $0.sentAt <= Self.window && $0.message == message }
    }

    private mutating func expire(before time: ContinuousClock.Instant) {
        entries.removeAll { time - $0.sentAt > Self.window }
    }
}
