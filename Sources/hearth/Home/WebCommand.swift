import ArgumentParser
import Foundation
import HearthKit

/// `hearth web`: where to open the hub's web app, and the TLS certificate's fingerprint to compare with the
/// browser's before trusting it (told by the hub over this connection, which is verified or loopback).
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Show where to open the web app and the fingerprint of its TLS certificate."
    )

    @OptionGroup var options: HubOptions

    func run() async throws {
        let client = await options.client()
        let identity = await options.attempt { () throws(HearthError) in try await client.hubIdentity() }
        options.show(identity) {
            var lines: [String] = []
            if client.tunnel == nil { lines.append("On this machine: \(client.baseURL)/") }
            if let url = identity.webURL, let fingerprint = identity.webCertificateFingerprint {
                lines.append("On the home network: \(url)")
                lines.append("Its certificate's SHA-256 fingerprint, to compare with the browser's before trusting it:")
                lines.append("  \(fingerprint)")
            } else {
                lines.append(
                    "The hub serves the web app only on its own machine; hearthd --address or --tls-address serves it"
                        + " over TLS on the home network."
                )
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
