import Foundation
import HomeGraph

/// A message the server sends on the event WebSocket (one JSON object per text frame, keyed by its kind).
public enum ServerMessage: Codable, Sendable, Equatable {
    /// First message: who is connected and each home's current sequence.
    case hello(userID: UUID, homes: [HomeSequence])
    /// One change event.
    case event(HomeEvent)
    /// The changes asked for in a `resume` are no longer kept: reload the home.
    case reloadRequired(homeID: UUID, currentSequence: UInt64)
    /// A client message was not understood, or a resumed home is unknown.
    case error(ErrorBody.Detail)
    /// Owners and administrators only: an unpaired accessory appeared nearby or changed its advertisement
    /// (`isPairable` false: it has just been paired, by this hub or another controller, and is no longer offered).
    case found(NearbyAccessory)
    /// Owners and administrators only: an accessory announced by `found` is no longer advertised.
    case removed(deviceID: String)

    /// A home and the sequence number of its last change.
    public struct HomeSequence: Codable, Sendable, Equatable {
        /// The home.
        public var homeID: UUID
        /// Its last sequence number.
        public var sequence: UInt64

        /// Makes a pair.
        public init(homeID: UUID, sequence: UInt64) {
            self.homeID = homeID
            self.sequence = sequence
        }
    }

    private enum Key: String, CodingKey { case hello, event, reloadRequired, error, found, removed }
    private enum RemovedKey: String, CodingKey { case deviceID }
    private enum HelloKey: String, CodingKey { case userID, homes }
    private enum ReloadKey: String, CodingKey { case homeID, currentSequence }

    /// Writes `{"<kind>": …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .hello(let userID, let homes):
            var hello = container.nestedContainer(keyedBy: HelloKey.self, forKey: .hello)
            try hello.encode(userID, forKey: .userID)
            try hello.encode(homes, forKey: .homes)
        case .event(let event):
            try container.encode(event, forKey: .event)
        case .reloadRequired(let homeID, let sequence):
            var reload = container.nestedContainer(keyedBy: ReloadKey.self, forKey: .reloadRequired)
            try reload.encode(homeID, forKey: .homeID)
            try reload.encode(sequence, forKey: .currentSequence)
        case .error(let detail):
            try container.encode(detail, forKey: .error)
        case .found(let accessory):
            try container.encode(accessory, forKey: .found)
        case .removed(let deviceID):
            var removed = container.nestedContainer(keyedBy: RemovedKey.self, forKey: .removed)
            try removed.encode(deviceID, forKey: .deviceID)
        }
    }

    /// Reads `{"<kind>": …}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.event) {
            self = .event(try container.decode(HomeEvent.self, forKey: .event))
        } else if container.contains(.hello) {
            let hello = try container.nestedContainer(keyedBy: HelloKey.self, forKey: .hello)
            self = .hello(
                userID: try hello.decode(UUID.self, forKey: .userID),
                homes: try hello.decode([HomeSequence].self, forKey: .homes)
            )
        } else if container.contains(.reloadRequired) {
            let reload = try container.nestedContainer(keyedBy: ReloadKey.self, forKey: .reloadRequired)
            self = .reloadRequired(
                homeID: try reload.decode(UUID.self, forKey: .homeID),
                currentSequence: try reload.decode(UInt64.self, forKey: .currentSequence)
            )
        } else if container.contains(.error) {
            self = .error(try container.decode(ErrorBody.Detail.self, forKey: .error))
        } else if container.contains(.found) {
            self = .found(try container.decode(NearbyAccessory.self, forKey: .found))
        } else if container.contains(.removed) {
            let removed = try container.nestedContainer(keyedBy: RemovedKey.self, forKey: .removed)
            self = .removed(deviceID: try removed.decode(String.self, forKey: .deviceID))
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "not a known event-socket message")
            )
        }
    }
}

/// A message a client sends: `{"resume": {"<homeID>": N, …}}` (an empty object starts live events at once).
public struct ClientMessage: Codable, Sendable, Equatable {
    /// The last sequence number the client has, per home id (as a string).
    public var resume: [String: UInt64]

    /// Makes the message.
    public init(resume: [String: UInt64]) { self.resume = resume }

    /// A resume from the sequence numbers a client has, per home.
    public init(resumingAfter sequences: [UUID: UInt64]) {
        resume = Dictionary(uniqueKeysWithValues: sequences.map { ($0.key.uuidString, $0.value) })
    }
}
