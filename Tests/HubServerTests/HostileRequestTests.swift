import Foundation
import TestSupport
import Testing

@testable import HubServer

/// Random requests on every documented route (but deleting the home or the session), against the real server.
///
/// Whatever a client sends, the hub answers with a status below 500 and, for a refusal, one sentence (no Swift
/// shapes, no control characters), and it goes on answering. The bodies mix the document's field names with values
/// of every kind; the seed is fixed, so a failure repeats.
@Suite struct HostileRequestTests {
    /// Strings a careless server trips on.
    static let awkward = [
        "", " ", "\\u0000", "a\\u0007b", "\\u001b[31m", "\\u202e", String(repeating: "x", count: 3000), "null", "-1",
        "1e999", "Kitchen\\nLight", "🏠", "../../etc/passwd", "%00", "' OR 1=1 --", "<script>", "NaN", "12:30",
        "25:61", "2026-11-26T10:00:00Z", "sunset-30m", "owner", "shared", "on",
        String(repeating: "\\u202e", count: 200), "031-45-154\\u001b[2J",
    ]

    /// A UUID from the seeded generator, so a run repeats whole.
    static func seededID(_ random: inout SplitMix64) -> String {
        let high = random.next()
        let low = random.next()
        let hex = String(high, radix: 16, uppercase: true) + String(low, radix: 16, uppercase: true)
        let digits = Array(String(repeating: "0", count: max(0, 32 - hex.count)) + hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }.joined(separator: "-")
    }

    /// A JSON value of any kind, as text.
    static func value(_ random: inout SplitMix64, ids: [String], fields: [String], depth: Int = 0) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1: return "\"\(awkward.randomElement(using: &random) ?? "")\""
        case 2:
            return [
                "0", "-1", "2147483648", "9223372036854775807", "18446744073709551616", "1e30", "1.5", "-0.0", "1e999",
            ]
            .randomElement(using: &random) ?? "0"
        case 3: return ["true", "false", "null"].randomElement(using: &random) ?? "null"
        case 4 where depth < 3:
            let items = (0..<Int.random(in: 0..<4, using: &random)).map { _ in
                value(&random, ids: ids, fields: fields, depth: depth + 1)
            }
            return "[" + items.joined(separator: ",") + "]"
        case 5 where depth < 3: return object(&random, ids: ids, fields: fields, depth: depth + 1)
        case 6, 7: return "\"\(ids.randomElement(using: &random) ?? seededID(&random))\""
        default: return "\"\(seededID(&random))\""
        }
    }

    /// A JSON object of 1 to 5 of the document's field names (now and then an awkward one), as text.
    static func object(_ random: inout SplitMix64, ids: [String], fields: [String], depth: Int = 0) -> String {
        let members = (0..<Int.random(in: 1...5, using: &random)).map { _ in
            let name =
                Int.random(in: 0..<8, using: &random) == 0
                ? awkward.randomElement(using: &random) ?? "" : fields.randomElement(using: &random) ?? "name"
            return "\"\(name)\": \(value(&random, ids: ids, fields: fields, depth: depth))"
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// Every id in a JSON document with where it is (its path), so they can be put in an order that repeats.
    static func ids(in json: Any?, at path: String = "") -> [(path: String, id: String)] {
        switch json {
        case let object as [String: Any]: object.flatMap { ids(in: $0.value, at: path + "." + $0.key) }
        case let array as [Any]: array.enumerated().flatMap { ids(in: $0.element, at: path + "[\($0.offset)]") }
        case let text as String: UUID(uuidString: text) == nil ? [] : [(path, text)]
        default: []
        }
    }

    @Test func everyRouteAnswersRandomRequestsWithSentencesAndKeepsServing() async throws {
        let fixture = try await Fixture()
        let operations = try documentedOperations().keys.sorted()
        let schemaText = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/api/openapi.yaml"),
            encoding: .utf8
        )
        let fields = Set(schemaText.matches(of: /([A-Za-z][A-Za-z0-9]*): *[{$]/).map { String($0.output.1) })
            .union(["name", "value", "characteristicID", "roomID", "kind", "events", "conditions", "actions"])
            .sorted()
        try await fixture.withServer { api in
            let home = try await api.call(
                .get,
                "/v1/homes/{homeID}",
                ["homeID": fixture.home.id.uuidString],
                token: fixture.owner.token
            )
            // In the order of their paths: the same seed picks the same object in every run.
            var seen = Set<String>()
            let ids = Self.ids(in: home.json).sorted { $0.path < $1.path }.map(\.id).filter { seen.insert($0).inserted }
            var random = SplitMix64(seed: 20_261_126)
            var refusals = 0
            for index in 0..<1500 {
                let operation = operations.randomElement(using: &random) ?? ""
                let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                // Deleting the home or signing the owner out would leave nothing to probe.
                if parts[0] == "DELETE", ["/v1/homes/{homeID}", "/v1/session"].contains(parts[1]) { continue }
                var parameters: [String: String] = [:]
                for match in parts[1].matches(of: /\{(\w+)\}/) {
                    let pick = Int.random(in: 0..<10, using: &random)
                    parameters[String(match.output.1)] =
                        pick < 7
                        ? ids.randomElement(using: &random) ?? "x"
                        : ["x", "%00", "%1B%5B2J", "-1", String(repeating: "A", count: 300), Self.seededID(&random)][
                            pick % 6
                        ]
                }
                var body: String?
                if ["POST", "PUT", "PATCH"].contains(parts[0]) {
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0: body = String(repeating: "[", count: 5000)
                    case 1: body = "{\"name\": \"unterminated"
                    case 2: body = Self.value(&random, ids: ids, fields: fields)
                    default: body = Self.object(&random, ids: ids, fields: fields)
                    }
                }
                let reply = try await api.call(
                    .init(parts[0]) ?? .get,
                    parts[1],
                    parameters,
                    token: fixture.owner.token,
                    body: body
                )
                let request = "#\(index) \(operation) \(parameters) \(body?.prefix(300) ?? "")"
                #expect(reply.status < 500, "\(request): \(reply.status) \(reply.text.prefix(300))")
                guard reply.status >= 400 else { continue }
                refusals += 1
                let message = reply.errorMessage
                #expect(!message.isEmpty && reply.errorCode != nil, "\(request): \(reply.text.prefix(300))")
                #expect(InternalShapes.found(in: message) == nil, "\(request): \(message)")
                #expect(
                    !message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                    "\(request): \(message)"
                )
                #expect(message.count < 600, "\(request): \(message.prefix(300))…")
            }
            // Most of what was sent is refused, and the server still answers afterwards.
            #expect(refusals > 1000)
            let me = try await api.call(.get, "/v1/me", token: fixture.owner.token)
            #expect(me.status == 200)
        }
    }
}

/// The session cookie among `Cookie` headers as browsers and hand-written clients send them.
@Suite struct SessionCookieReadingTests {
    @Test func aCookieIsReadWithoutTheWhiteSpaceAroundItsNameAndValue() {
        #expect(SessionCookie.secret(inCookieHeaders: ["other=1;  hearth_session = abc \t"]) == "abc")
        #expect(SessionCookie.secret(inCookieHeaders: ["other=1", "hearth_session=xyz"]) == "xyz")
        #expect(SessionCookie.secret(inCookieHeaders: ["hearth_session=  "]) == nil)
        #expect(SessionCookie.secret(inCookieHeaders: ["hearth_sessionx=abc", "xhearth_session=abc"]) == nil)
    }
}
