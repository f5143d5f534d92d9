import Foundation
import SetupQR
import TestSupport
import Testing

/// The page's QR decoder (`Web/qr.js`, which the Add accessory view uses where the browser has no
/// `BarcodeDetector`) against SetupQR's encoder: some 120 symbols, versions 1 to 10 at every error correction level,
/// in every mode and mask, decoded in headless Chromium by `Tests/Peers/qr_decoder_check.py` from their modules,
/// from a scaled and turned drawing, and (levels Q and H) with modules damaged.
@Suite(
    .serialized,
    .enabled(
        if: HeadlessChromium.isAvailable,
        "run scripts/bootstrap.sh (chromium, chromium-driver) and scripts/setup-peers.sh (selenium)"
    )
)
struct WebPageQRDecoderTests {
    /// What the driver must report as passed.
    static let checks = [
        "the decoder module loads", "every symbol's modules decode to its text",
        "every symbol drawn scaled and turned is read", "damaged Q and H symbols are corrected",
        "the symbols cover versions 1 to 10, every level, mask and mode",
    ]

    /// A text of `length` characters that needs `mode`.
    static func text(length: Int, mode: QRCode.Mode) -> String {
        let alphabet =
            switch mode {
            case .numeric: Array("3141592653589793")
            case .alphanumeric: Array("X-HM://0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+./:")
            case .byte: Array("Hearth, ünïcode ✓ and lower case; ")
            }
        return String((0..<length).map { alphabet[$0 % alphabet.count] })
    }

    /// For each level and mode, the shortest text of each version found by lengthening it bit by bit, each with the
    /// next mask in turn, as the driver reads them.
    static func cases() throws -> [[String: Any]] {
        let levels: [(QRCode.ErrorCorrection, String)] = [(.low, "L"), (.medium, "M"), (.quartile, "Q"), (.high, "H")]
        let modes: [(QRCode.Mode, String)] = [(.numeric, "numeric"), (.alphanumeric, "alphanumeric"), (.byte, "byte")]
        var cases: [[String: Any]] = []
        for (level, letter) in levels {
            for (mode, modeName) in modes {
                var seen = Set<Int>()
                var length = 1
                while true {
                    let text = Self.text(length: length, mode: mode)
                    let mask = try #require(QRCode.Mask(rawValue: cases.count % 8))
                    guard let code = try? QRCode(encoding: text, errorCorrection: level, mode: mode, mask: mask) else {
                        break
                    }
                    if seen.insert(code.version).inserted {
                        let rows = (0..<code.size).map { y in
                            String((0..<code.size).map { x in code[x, y] ? "1" : "0" })
                        }
                        cases.append([
                            "text": text, "level": letter, "version": code.version, "mask": mask.rawValue,
                            "mode": modeName, "modules": rows,
                        ])
                    }
                    length += max(1, length / 16)
                }
            }
        }
        return cases
    }

    @Test(.timeLimit(.minutes(5))) func theDecoderReadsSetupQRSymbolsInChromium() async throws {
        let state = NSTemporaryDirectory() + "hearthd-web-qr-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let cases = try Self.cases()
        #expect(cases.count >= 100, "\(cases.count) symbols")
        let casesPath = NSTemporaryDirectory() + "hearth-qr-cases-\(UUID().uuidString).json"
        try JSONSerialization.data(withJSONObject: cases).write(to: URL(fileURLWithPath: casesPath))
        defer { try? FileManager.default.removeItem(atPath: casesPath) }
        let reports = try await offThePool { () throws -> [String: WebPageBrowserTests.Report] in
            let hub = try WebPageBrowserTests.startHub(state: state, port: 0)
            defer { hub.terminate() }
            let client = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: state + "/client.json"))
            )
            let url = try #require((client as? [String: Any])?["url"] as? String)
            return try WebPageBrowserTests.reports(of: "qr_decoder_check.py", ["--url", url, "--cases", casesPath])
        }
        for name in Self.checks {
            let report = reports[name]
            #expect(report?.ok == true, "\(name): \(report?.detail ?? "not reported")")
        }
        for (name, report) in reports where !report.ok && !Self.checks.contains(name) {
            Issue.record("\(name): \(report.detail)")
        }
    }
}
