import Foundation

// The API's types for remote access (docs/remote-access.md): the hub's identity, pairing codes and client
// pairings.

/// `GET /v1/hub/identity`: the hub's long-term public key, its fingerprint and routing id.
public struct HubIdentityInfo: Codable, Sendable, Equatable {
    /// The Ed25519 public key, 32 bytes as lowercase hex.
    public var publicKey: String
    /// SHA-256 of the public key as lowercase hex in groups of four, for people to compare.
    public var fingerprint: String
    /// The first 16 bytes of SHA-256 of the public key as 32 lowercase hex characters.
    public var routingID: String
    /// The secure listener's address (`host:port`), when it serves.
    public var secureAddress: String?
    /// The relay the hub keeps its link to (`hearthd --relay`), when it has one.
    public var relay: String?
    /// The PEM certificates the hub trusts that relay with (`hearthd --relay-ca`), when not the system's; public.
    public var relayCertificates: String?
    /// The web app over TLS (`https://host:port/`), when the hub serves it on a LAN address.
    public var webURL: String?
    /// SHA-256 of the web app's TLS certificate, uppercase hex pairs joined by colons, as browsers show it: told
    /// over the verified session, so a person can check the certificate their browser is asked to trust.
    public var webCertificateFingerprint: String?

    /// Makes the answer.
    public init(
        publicKey: String,
        fingerprint: String,
        routingID: String,
        secureAddress: String?,
        relay: String? = nil,
        webURL: String? = nil,
        webCertificateFingerprint: String? = nil,
        relayCertificates: String? = nil
    ) {
        self.publicKey = publicKey
        self.fingerprint = fingerprint
        self.routingID = routingID
        self.secureAddress = secureAddress
        self.relay = relay
        self.webURL = webURL
        self.webCertificateFingerprint = webCertificateFingerprint
        self.relayCertificates = relayCertificates
    }
}

/// The body of `POST /v1/account/pairing-codes`: nothing is required.
public struct CreatePairingCodeBody: Codable, Sendable, Equatable {
    /// A label the pairing made with the code gets ("laptop").
    public var label: String?

    /// Makes the body.
    public init(label: String? = nil) { self.label = label }
}

/// `POST /v1/account/pairing-codes`: a one-time code that pairs another device with the caller's account.
public struct NewPairingCode: Codable, Sendable, Equatable {
    /// The code (`XXXX-XXXX-XXXX`), shown once; its first four characters are its public id.
    public var code: String
    /// When it stops working.
    public var expiresAt: Date

    /// Makes the answer.
    public init(code: String, expiresAt: Date) {
        self.code = code
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/account/sign-in-links`: a one-time link that signs a browser in to the caller's account.
public struct NewSignInLink: Codable, Sendable, Equatable {
    /// The page's address with the secret in its fragment (`http://HOST:PORT/#signin=SECRET`), shown once.
    public var url: String
    /// When it stops working.
    public var expiresAt: Date

    /// Makes the answer.
    public init(url: String, expiresAt: Date) {
        self.url = url
        self.expiresAt = expiresAt
    }
}

/// One client device paired with an account.
public struct PairingInfo: Codable, Sendable, Equatable {
    /// The pairing's id.
    public var id: UUID
    /// The client's pairing identifier, as it sent it.
    public var clientID: String
    /// The account the pairing acts as.
    public var accountID: UUID
    /// A label for people.
    public var label: String
    /// When it was made.
    public var createdAt: Date

    /// Makes the record.
    public init(id: UUID, clientID: String, accountID: UUID, label: String, createdAt: Date) {
        self.id = id
        self.clientID = clientID
        self.accountID = accountID
        self.label = label
        self.createdAt = createdAt
    }
}

/// `GET /v1/account/pairings`: the caller's paired devices.
public struct PairingList: Codable, Sendable, Equatable {
    /// The pairings.
    public var pairings: [PairingInfo]

    /// Makes the list.
    public init(pairings: [PairingInfo]) { self.pairings = pairings }
}

/// The extra TLV8 items a client sends in pair-setup M1 to a hub (docs/remote-access.md).
public enum HubPairingTLV {
    /// The code's public id (its first four characters), UTF-8.
    public static let codeID: UInt8 = 0x40
    /// For an invite code: the name of the new account, UTF-8.
    public static let name: UInt8 = 0x41

    /// The public id of a code: its first four characters, upper-case, without dashes or spaces.
    public static func codeID(of code: String) -> String {
        String(normalized(code).prefix(4))
    }

    /// A code as it is used as SRP password: upper-case, without dashes or spaces.
    public static func normalized(_ code: String) -> String {
        code.uppercased().filter { $0 != "-" && $0 != " " }
    }
}

/// What a client keeps to reach a hub over its secure listener: the hub's address and pinned key, and the client's
/// own long-term identity (stored in `client.json`, mode 0600).
public struct SecureClientConfiguration: Codable, Sendable, Equatable {
    /// The secure listener's address, `host:port` (a relay's client forwarder can stand in for it).
    public var address: String
    /// The hub's long-term Ed25519 public key, lowercase hex, pinned at pairing.
    public var hubPublicKey: String
    /// This client's pairing identifier (a UUID string).
    public var clientID: String
    /// This client's long-term Ed25519 private key, base64; as secret as a token.
    public var clientKey: String
    /// The relay that reaches the hub from anywhere (`ws://` or `wss://` URL), when it has one (docs/relay.md).
    public var relay: String?
    /// The hub's routing id at the relay (learned at pairing: its pairing identifier).
    public var route: String?
    /// PEM certificates a `wss://` relay is trusted with instead of the system's authorities (a private CA or the
    /// relay's own certificate), when it has such a certificate; learned from the hub at pairing, or given.
    public var relayCertificates: String?

    /// Makes the configuration.
    public init(address: String, hubPublicKey: String, clientID: String, clientKey: String) {
        self.address = address
        self.hubPublicKey = hubPublicKey
        self.clientID = clientID
        self.clientKey = clientKey
    }

    /// The relay and the routing id, when both are known.
    public var relayRoute: (relay: String, route: String)? {
        guard let relay, !relay.isEmpty, let route, !route.isEmpty else { return nil }
        return (relay, route)
    }

    /// The host and port of `address`, or `nil` when it is not `host:port`.
    public var hostAndPort: (host: String, port: Int)? {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            return nil
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
