#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The body of `PUT /characteristics`: values to write and subscriptions to change; hap-protocol.md §7.6.
public struct CharacteristicWriteRequest: Sendable, Equatable, Codable {
    /// One write or subscription change.
    public struct Item: Sendable, Equatable, Codable {
        /// The accessory id (`aid`).
        public var accessoryID: UInt64
        /// The characteristic's instance id (`iid`).
        public var instanceID: UInt64
        /// The value to write, as sent: convert it with `HAPCharacteristic.normalized(_:)` (`value`).
        public var value: HAPValue?
        /// `true` subscribes this connection to events, `false` unsubscribes (`ev`).
        public var events: Bool?
        /// Whether the controller wants the value back after the write, only for `wr` characteristics (`r`).
        public var requestsResponse: Bool?
        /// Additional authorization data for `aa` characteristics, base64 on the wire (`authData`).
        public var authorizationData: [UInt8]?
        /// Whether the write came through a home hub (`remote`).
        public var isRemote: Bool?

        /// Makes a write item; give a `value`, `events`, or both.
        public init(
            accessoryID: UInt64,
            instanceID: UInt64,
            value: HAPValue? = nil,
            events: Bool? = nil,
            requestsResponse: Bool? = nil,
            authorizationData: [UInt8]? = nil,
            isRemote: Bool? = nil
        ) {
            self.accessoryID = accessoryID
            self.instanceID = instanceID
            self.value = value
            self.events = events
            self.requestsResponse = requestsResponse
            self.authorizationData = authorizationData
            self.isRemote = isRemote
        }

        /// The characteristic this item addresses.
        public var id: CharacteristicID { CharacteristicID(accessoryID: accessoryID, instanceID: instanceID) }

        private enum CodingKeys: String, CodingKey {
            case accessoryID = "aid"
            case instanceID = "iid"
            case value
            case events = "ev"
            case requestsResponse = "r"
            case authorizationData = "authData"
            case isRemote = "remote"
        }

        /// Reads an item; `authData` must be base64.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            accessoryID = try container.decode(UInt64.self, forKey: .accessoryID)
            instanceID = try container.decode(UInt64.self, forKey: .instanceID)
            value = try container.decodeIfPresent(HAPValue.self, forKey: .value)
            events = try container.decodeIfPresent(Bool.self, forKey: .events)
            requestsResponse = try container.decodeIfPresent(Bool.self, forKey: .requestsResponse)
            if let text = try container.decodeIfPresent(String.self, forKey: .authorizationData) {
                guard let bytes = Data(base64Encoded: text) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .authorizationData,
                        in: container,
                        debugDescription: "authData is not base64"
                    )
                }
                authorizationData = [UInt8](bytes)
            } else {
                authorizationData = nil
            }
            isRemote = try container.decodeIfPresent(Bool.self, forKey: .isRemote)
        }

        /// Writes an item, leaving out every field that is `nil`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(accessoryID, forKey: .accessoryID)
            try container.encode(instanceID, forKey: .instanceID)
            try container.encodeIfPresent(value, forKey: .value)
            try container.encodeIfPresent(events, forKey: .events)
            try container.encodeIfPresent(requestsResponse, forKey: .requestsResponse)
            if let authorizationData {
                try container.encode(Data(authorizationData).base64EncodedString(), forKey: .authorizationData)
            }
            try container.encodeIfPresent(isRemote, forKey: .isRemote)
        }
    }

    /// The writes, in the order the controller sent them.
    public var characteristics: [Item]
    /// The id of the `/prepare` this timed write executes (`pid`); hap-protocol.md §7.7.
    public var preparedWriteID: UInt64?

    /// Makes a write request, timed when `preparedWriteID` is given.
    public init(characteristics: [Item], preparedWriteID: UInt64? = nil) {
        self.characteristics = characteristics
        self.preparedWriteID = preparedWriteID
    }

    private enum CodingKeys: String, CodingKey {
        case characteristics
        case preparedWriteID = "pid"
    }
}

/// The body of `PUT /prepare`, announcing a timed write; hap-protocol.md §7.7.
public struct PrepareWriteRequest: Sendable, Equatable, Codable {
    /// How long the prepared write stays valid, in milliseconds (`ttl`).
    public var timeToLiveMilliseconds: UInt64
    /// The id the following write must carry (`pid`).
    public var preparedWriteID: UInt64

    /// Makes a prepare body.
    public init(timeToLiveMilliseconds: UInt64, preparedWriteID: UInt64) {
        self.timeToLiveMilliseconds = timeToLiveMilliseconds
        self.preparedWriteID = preparedWriteID
    }

    private enum CodingKeys: String, CodingKey {
        case timeToLiveMilliseconds = "ttl"
        case preparedWriteID = "pid"
    }
}
