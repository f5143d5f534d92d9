import AtomicFiles
import Crypto
import Foundation
import HummingbirdTLS
import NIOCore
import SwiftASN1
import X509

/// The certificate the web app is served with over TLS on a LAN address (docs/remote-access.md).
///
/// It is either one the hub makes for itself (self-signed, ECDSA P-256, the addresses it serves as subject
/// alternative names), or one the owner configures. People compare its fingerprint with what their browser shows
/// before trusting it.
public struct WebCertificate: Sendable {
    /// The certificate chain, leaf first, as PEM.
    public let certificatePEM: String
    /// SHA-256 of the leaf certificate's DER, as uppercase hex pairs joined by colons (as browsers show it).
    public let fingerprint: String
    /// The server configuration for NIOSSL.
    public let tlsConfiguration: TLSConfiguration

    /// How long a certificate the hub makes is valid: 397 days, the most browsers accept for a server certificate.
    public static let lifetime: TimeInterval = 397 * 24 * 3600
    /// A certificate the hub made is made again when it has less than this left.
    public static let renewal: TimeInterval = 30 * 24 * 3600

    /// A failure to read or make the certificate, as a sentence.
    public struct Failure: Error, CustomStringConvertible {
        /// The sentence.
        public let description: String
    }

    /// Reads the owner's certificate chain and private key (PEM files).
    public static func load(certificatePath: String, keyPath: String) throws(Failure) -> WebCertificate {
        guard let chainText = try? String(contentsOfFile: certificatePath, encoding: .utf8) else {
            throw Failure(description: "could not read the TLS certificate or key: \(certificatePath) cannot be read")
        }
        guard let keyText = try? String(contentsOfFile: keyPath, encoding: .utf8) else {
            throw Failure(description: "could not read the TLS certificate or key: \(keyPath) cannot be read")
        }
        return try make(chainPEM: chainText, keyPEM: keyText, source: certificatePath)
    }

    /// The certificate the hub made for itself in `certificatePath` and `keyPath` (mode 0600), made again when
    /// missing, unreadable, about to expire, or not naming every one of `hosts`.
    public static func loadOrCreate(
        certificatePath: String,
        keyPath: String,
        hosts: [String],
        now: Date = Date()
    ) throws(Failure) -> WebCertificate {
        if let chainText = try? String(contentsOfFile: certificatePath, encoding: .utf8),
            let keyText = try? String(contentsOfFile: keyPath, encoding: .utf8),
            let certificate = try? Certificate(pemEncoded: chainText),
            certificate.notValidAfter.timeIntervalSince(now) > renewal,
            certificate.notValidBefore <= now,
            names(hosts, in: certificate),
            let made = try? make(chainPEM: chainText, keyPEM: keyText, source: certificatePath)
        {
            return made
        }
        let (chainText, keyText) = try create(hosts: hosts, now: now)
        do {
            try AtomicFile.write(Data(keyText.utf8), toPath: keyPath)
            try AtomicFile.write(Data(chainText.utf8), toPath: certificatePath)
        } catch {
            throw Failure(
                description: "could not store the TLS certificate in \(certificatePath): \(error.operation) failed"
                    + " (\(String(cString: strerror(error.code))))"
            )
        }
        return try make(chainPEM: chainText, keyPEM: keyText, source: certificatePath)
    }

    /// A new self-signed certificate for `hosts` and its key, as PEM.
    static func create(hosts: [String], now: Date) throws(Failure) -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        do {
            let name = try DistinguishedName {
                OrganizationName("Hearth")
                CommonName("hearthd on \(hosts.first ?? "this hub")")
            }
            let alternativeNames = SubjectAlternativeNames(hosts.map(generalName))
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                alternativeNames
            }
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3600),
                notValidAfter: now.addingTimeInterval(lifetime),
                issuer: name,
                subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: extensions,
                issuerPrivateKey: Certificate.PrivateKey(key)
            )
            return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
        } catch {
            throw Failure(description: "could not make a TLS certificate: \(error)")
        }
    }

    /// The subject alternative name of `host`: an IP address (4 or 16 bytes) or a DNS name.
    static func generalName(_ host: String) -> GeneralName {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(withUnsafeBytes(of: v4) { Array($0) })))
        }
        var storage = in6_addr()
        if inet_pton(AF_INET6, host, &storage) == 1 {
            let bytes = withUnsafeBytes(of: storage) { Array($0) }
            return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes)))
        }
        return .dnsName(host)
    }

    /// Whether `certificate` names every one of `hosts` (as the subject alternative names it would be made with).
    static func names(_ hosts: [String], in certificate: Certificate) -> Bool {
        guard let alternative = try? certificate.extensions.subjectAlternativeNames else { return false }
        return Set(hosts.map(generalName)).isSubset(of: Set(alternative))
    }

    /// The chain and key as NIOSSL takes them, with the leaf's fingerprint.
    static func make(chainPEM: String, keyPEM: String, source: String) throws(Failure) -> WebCertificate {
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8))
            guard let leaf = chain.first else {
                throw Failure(description: "\(source) holds no certificate")
            }
            let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) },
                privateKey: .privateKey(key)
            )
            // NIOSSL would also speak TLS 1.0 and 1.1, which every browser has dropped and RFC 8996 forbids.
            configuration.minimumTLSVersion = .tlsv12
            return WebCertificate(
                certificatePEM: chainPEM,
                fingerprint: fingerprint(der: try leaf.toDERBytes()),
                tlsConfiguration: configuration
            )
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(
                description: "could not read the TLS certificate or key from \(source): they are not a PEM certificate "
                    + "chain and its PEM private key"
            )
        }
    }

    /// "AB:CD:…": SHA-256 of `der` as uppercase hex pairs.
    public static func fingerprint(der: [UInt8]) -> String {
        SHA256.hash(data: der).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
