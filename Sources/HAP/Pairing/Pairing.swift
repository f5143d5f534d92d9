/// A controller the accessory knows: its pairing identifier, long-term Ed25519 public key and permissions.
public struct Pairing: Sendable, Equatable, Hashable, Codable {
    /// The controller's pairing identifier, kept as the exact bytes it sent (hap-protocol.md §6).
    public var identifier: [UInt8]
    /// The controller's Ed25519 long-term public key, 32 bytes.
    public var publicKey: [UInt8]
    /// Whether the controller may manage pairings.
    public var isAdmin: Bool

    /// Makes a pairing record.
    public init(identifier: [UInt8], publicKey: [UInt8], isAdmin: Bool) {
        self.identifier = identifier
        self.publicKey = publicKey
        self.isAdmin = isAdmin
    }

    /// The permissions byte sent in TLV8: 0x01 for an admin, 0x00 for a regular user.
    public var permissionsByte: UInt8 { isAdmin ? 1 : 0 }
}

/// Where an accessory keeps the controllers it is paired with; the server persists it, the protocol logic edits it.
public protocol PairingStore {
    /// Every pairing, in the order added.
    var pairings: [Pairing] { get }
    /// How many pairings fit; hap-protocol.md §12.3 asks for at least 16.
    var capacity: Int { get }
    /// Adds a pairing, or replaces the one with the same identifier.
    mutating func save(_ pairing: Pairing)
    /// Removes the pairing with this identifier, if any.
    mutating func remove(identifier: [UInt8])
    /// Removes every pairing: the accessory is unpaired again.
    mutating func removeAll()
}

extension PairingStore {
    /// The pairing with exactly these identifier bytes.
    public func pairing(identifier: [UInt8]) -> Pairing? {
        pairings.first { $0.identifier == identifier }
    }

    /// Whether any controller is paired; pair-setup is refused while this holds.
    public var isPaired: Bool { !pairings.isEmpty }

    /// Whether at least one admin is left.
    public var hasAdmin: Bool { pairings.contains { $0.isAdmin } }
}

/// A pairing store held in memory as a value; servers persist its `pairings` however they like.
public struct PairingTable: PairingStore, Sendable, Equatable, Codable {
    /// Every pairing, in the order added.
    public private(set) var pairings: [Pairing]
    /// How many pairings fit.
    public var capacity: Int

    /// Makes a table with the given pairings and room for `capacity` of them (16 by default).
    public init(_ pairings: [Pairing] = [], capacity: Int = 16) {
        self.pairings = pairings
        self.capacity = capacity
    }

    /// Adds a pairing, or replaces the one with the same identifier in place.
    public mutating func save(_ pairing: Pairing) {
        if let index = pairings.firstIndex(where: { $0.identifier == pairing.identifier }) {
            pairings[index] = pairing
        } else {
            pairings.append(pairing)
        }
    }

    /// Removes the pairing with this identifier, if any.
    public mutating func remove(identifier: [UInt8]) {
        pairings.removeAll { $0.identifier == identifier }
    }

    /// Removes every pairing.
    public mutating func removeAll() {
        pairings.removeAll()
    }
}
