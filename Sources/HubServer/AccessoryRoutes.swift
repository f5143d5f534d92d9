import Foundation
import HAP
import HomeGraph
import Hub

// The accessory half of the API: the shapes the routes that talk to accessories answer with. The routes
// themselves (`Routes.swift`, `registerAccessoryRoutes`) call the `Hub` directly: pairing, discovery, reads and
// writes through the accessory, identify, notifications, removal and running action sets.

/// An accessory found on the network that is not paired yet.
public struct NearbyAccessory: Sendable, Codable, Equatable {
    /// The HAP device id (`AA:BB:CC:DD:EE:FF`).
    public var deviceID: String
    /// The name it advertises.
    public var name: String
    /// Its category number (HAP `ci`).
    public var category: Int
    /// Whether it is still unpaired (HAP status flag).
    public var isPairable: Bool

    /// Makes a description of a nearby accessory.
    public init(deviceID: String, name: String, category: Int, isPairable: Bool) {
        self.deviceID = deviceID
        self.name = name
        self.category = category
        self.isPairable = isPairable
    }
}

/// One characteristic write of a batch.
public struct CharacteristicWrite: Sendable, Codable, Equatable {
    /// The characteristic written.
    public var characteristicID: UUID
    /// The value.
    public var value: HAPValue

    /// Makes a write.
    public init(characteristicID: UUID, value: HAPValue) {
        self.characteristicID = characteristicID
        self.value = value
    }
}

/// The outcome of one write of a batch: the value accepted, or why it was refused.
public struct CharacteristicWriteResult: Sendable, Codable, Equatable {
    /// The characteristic written.
    public var characteristicID: UUID
    /// The value the accessory accepted, or `nil` when refused.
    public var value: HAPValue?
    /// Why it was refused, or `nil`.
    public var error: ErrorBody.Detail?

    /// Makes a result.
    public init(characteristicID: UUID, value: HAPValue?, error: ErrorBody.Detail?) {
        self.characteristicID = characteristicID
        self.value = value
        self.error = error
    }
}
