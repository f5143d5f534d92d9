import Foundation
import HTTPTypes
import HearthAPI
import HubServer
import Hummingbird
import HummingbirdTesting
import NIOCore
import SetupQR
import Testing

/// The page served by the hub and a browser's session, over real HTTP on loopback.
@Suite(.serialized) struct WebPageTests {
    /// A whole answer: status, headers, body bytes.
    struct RawReply: Sendable {
        let status: Int
        let headers: HTTPFields
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    }

    static let page = [SessionHeader.request: "1"]

    enum SessionHeader {
        static let request = HTTPField.Name("X-Hearth-Request")!
    }

    static func raw(
        _ api: API,
        _ method: HTTPRequest.Method,
        _ path: String,
        route: String? = nil,
        headers: [HTTPField.Name: String] = [:],
        body: String? = nil
    ) async throws -> RawReply {
        if let route { api.coverage.record("\(method.rawValue) \(route)") }
        var fields: HTTPFields = [:]
        for (name, value) in headers { fields[name] = value }
        if body != nil { fields[.contentType] = "application/json" }
        let response = try await api.client.execute(
            uri: path,
            method: method,
            headers: fields,
            body: body.map { ByteBuffer(string: $0) }
        )
        return RawReply(
            status: Int(response.status.code),
            headers: response.headers,
            body: Array(buffer: response.body)
        )
    }

    /// Signs in with `token` as the page does; returns the answer and the cookie's `name=value`.
    static func signIn(_ api: API, token: String) async throws -> (reply: RawReply, cookie: String) {
        let reply = try await raw(
            api,
            .post,
            "/v1/session",
            route: "/v1/session",
            headers: page,
            body: #"{"token": "\#(token)"}"#
        )
        let setCookie = reply.headers[.setCookie] ?? ""
        let cookie = String(setCookie.split(separator: ";").first ?? "")
        return (reply, cookie)
    }

    @Test func thePageAndItsFilesAreServedWithTheirHeadersAndETags() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            for (path, type) in [
                ("/", "text/html; charset=utf-8"), ("/app/app.js", "text/javascript; charset=utf-8"),
                ("/app/app.css", "text/css; charset=utf-8"),
            ] {
                let reply = try await Self.raw(api, .get, path)
                #expect(reply.status == 200, "\(path)")
                #expect(reply.headers[.contentType] == type, "\(path)")
                #expect(reply.headers[.contentEncoding] == nil, "\(path): no gzip unless asked")
                #expect(reply.headers[.cacheControl] == "no-cache", "\(path)")
                let csp = reply.headers[.contentSecurityPolicy] ?? ""
                for directive in [
                    "script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'",
                ] {
                    #expect(csp.contains(directive), "\(path): \(csp)")
                }
                #expect(!csp.contains("unsafe-inline"), "\(path)")
                #expect(reply.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(path)")
                #expect(reply.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(path)")
                let etag = try #require(reply.headers[.eTag], "\(path)")

                // The same file again with its ETag: 304, no body, the headers still there.
                let again = try await Self.raw(api, .get, path, headers: [.ifNoneMatch: etag])
                #expect(again.status == 304 && again.body.isEmpty, "\(path)")
                #expect(again.headers[.eTag] == etag && again.headers[.contentSecurityPolicy] == csp, "\(path)")
                let stale = try await Self.raw(api, .get, path, headers: [.ifNoneMatch: "\"0000\""])
                #expect(stale.status == 200 && stale.body == reply.body, "\(path)")

                // Gzip when accepted: another ETag, the same bytes once decompressed.
                let zipped = try await Self.raw(api, .get, path, headers: [.acceptEncoding: "gzip, deflate"])
                #expect(zipped.status == 200 && zipped.headers[.contentEncoding] == "gzip", "\(path)")
                #expect(zipped.headers[.vary] == "Accept-Encoding", "\(path)")
                #expect(zipped.headers[.eTag] != etag && zipped.body.count < reply.body.count, "\(path)")
                #expect(try gunzip(zipped.body) == reply.body, "\(path)")
                let refused = try await Self.raw(api, .get, path, headers: [.acceptEncoding: "gzip;q=0"])
                #expect(refused.headers[.contentEncoding] == nil, "\(path)")
            }
            let index = try await Self.raw(api, .get, "/")
            #expect(index.text.contains(#"<script type="module" src="/app/app.js"></script>"#))
            #expect(try await Self.raw(api, .get, "/app/missing.js").status == 404)
            // The API is untouched by the page.
            #expect(try await Self.raw(api, .get, "/v1/me").status == 401)
        }
    }

    @Test func aQRCodeIsServedAsSVGWithTheEncodersModules() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let reply = try await Self.raw(api, .get, "/app/qr.svg?text=H8740R0TFFT3")
            #expect(reply.status == 200 && reply.headers[.contentType] == "image/svg+xml", "\(reply.text)")
            #expect(reply.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            // The squares drawn are exactly the encoder's dark modules, moved by the quiet zone of 4.
            let code = try QRCode(encoding: "H8740R0TFFT3")
            var expected: Set<[Int]> = []
            for y in 0..<code.size { for x in 0..<code.size where code[x, y] { expected.insert([x + 4, y + 4]) } }
            let squares = reply.text.matches(of: /M(\d+) (\d+)h1v1h-1z/).map { [Int($0.1) ?? -1, Int($0.2) ?? -1] }
            #expect(Set(squares) == expected && squares.count == expected.count)
            #expect(
                reply.text.contains(#"viewBox="0 0 \#(code.size + 8) \#(code.size + 8)""#),
                "\(reply.text.prefix(200))"
            )
            for text in ["", String(repeating: "A", count: 201)] {
                let refused = try await Self.raw(api, .get, "/app/qr.svg?text=\(text)")
                #expect(refused.status == 400 && refused.text.contains("1 to 200 characters"), "\(refused.text)")
            }
        }
    }

    @Test func theEmbeddedFilesAreTheFilesInTheRepository() throws {
        // Fails when a file in Sources/HubServer/Web changed without running scripts/embed-web.sh.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let web = root.appendingPathComponent("Sources/HubServer/Web")
        let names = try FileManager.default.contentsOfDirectory(atPath: web.path).sorted()
        let embedded = EmbeddedWebPage.files
        #expect(embedded.map(\.name).sorted() == names, "run scripts/embed-web.sh")
        // One generated file per page file, and the list: none left over from a page file that is gone.
        let generated = try FileManager.default.contentsOfDirectory(
            atPath: root.appendingPathComponent("Sources/HubServer/WebEmbedded").path
        )
        #expect(generated.sorted() == (names.map { "Web+\($0).swift" } + ["WebFiles+Embedded.swift"]).sorted())
        for file in embedded {
            let onDisk = try Data(contentsOf: web.appendingPathComponent(file.name))
            let textIsCurrent = Array(file.text.utf8) == Array(onDisk)
            #expect(textIsCurrent, "\(file.name) is stale: run scripts/embed-web.sh")
            let gzipIsCurrent = try gunzip(file.gzip) == Array(onDisk)
            #expect(gzipIsCurrent, "\(file.name)'s gzip is stale: run scripts/embed-web.sh")
            // Under 600 lines, unless the page file itself is that long (it adds 12 lines around it).
            let swift = try Data(
                contentsOf: root.appendingPathComponent("Sources/HubServer/WebEmbedded/Web+\(file.name).swift")
            )
            let lines = swift.count { $0 == 0x0A }
            #expect(lines < max(600, onDisk.count { $0 == 0x0A } + 13), "Web+\(file.name).swift: \(lines) lines")
        }
    }

    @Test func signingInSetsAnHttpOnlyStrictCookieThatAuthorisesReads() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let (reply, cookie) = try await Self.signIn(api, token: fixture.owner.token)
            #expect(reply.status == 201, "\(reply.text)")
            #expect((reply.json["user"] as? [String: Any])?["name"] as? String == "Ada")
            let setCookie = try #require(reply.headers[.setCookie])
            let parts = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(parts.first?.hasPrefix("hearth_session=") == true)
            #expect(Set(parts.dropFirst()) == ["Path=/", "HttpOnly", "SameSite=Strict"], "no Secure over plain HTTP")
            let secret = String(cookie.dropFirst("hearth_session=".count))
            #expect(secret.count >= 40 && secret != fixture.owner.token && !secret.contains(fixture.owner.token))
            // The hub keeps only a hash of it.
            let stored = try String(contentsOfFile: fixture.credentials.path, encoding: .utf8)
            #expect(!stored.contains(secret))

            let me = try await Self.raw(api, .get, "/v1/me", headers: [.cookie: "theme=dark; \(cookie)"])
            #expect(me.status == 200 && (me.json["user"] as? [String: Any])?["name"] as? String == "Ada")
            let homes = try await Self.raw(api, .get, "/v1/homes", headers: [.cookie: cookie])
            #expect(homes.status == 200 && (homes.json["homes"] as? [Any])?.count == 1)

            // A guest's cookie is the guest: the hub's rights apply as with their token.
            let (_, guestCookie) = try await Self.signIn(api, token: fixture.guest.token)
            let denied = try await Self.raw(
                api,
                .post,
                "/v1/homes/\(fixture.home.id)/rooms",
                headers: Self.page.merging([.cookie: guestCookie]) { $1 },
                body: #"{"name": "Attic"}"#
            )
            #expect(denied.status == 403 && denied.errorCode == "notPermitted", "\(denied.text)")
        }
    }

    @Test func signingInNeedsAValidTokenAndThePagesHeader() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let wrong = try await Self.signIn(api, token: "hearth_not-a-token")
            #expect(wrong.reply.status == 401 && wrong.reply.headers[.setCookie] == nil)
            // Another site's form cannot set the header, so it cannot sign a browser in to its own account.
            let forged = try await Self.raw(
                api,
                .post,
                "/v1/session",
                body: #"{"token": "\#(fixture.owner.token)"}"#
            )
            #expect(forged.status == 403 && forged.errorCode == "crossSiteRequest" && forged.headers[.setCookie] == nil)
            let foreign = try await Self.raw(
                api,
                .post,
                "/v1/session",
                headers: Self.page.merging([.origin: "http://evil.example"]) { $1 },
                body: #"{"token": "\#(fixture.owner.token)"}"#
            )
            #expect(foreign.status == 403 && foreign.headers[.setCookie] == nil)
        }
    }

    @Test func aChangeWithTheCookieNeedsThePagesHeaderAndOrigin() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let (_, cookie) = try await Self.signIn(api, token: fixture.owner.token)
            let rooms = "/v1/homes/\(fixture.home.id)/rooms"
            let roomCount = { fixture.hub.graph.home(withID: fixture.home.id)?.rooms.count ?? -1 }
            let before = roomCount()
            let attempts: [(String, [HTTPField.Name: String])] = [
                ("no header", [.cookie: cookie]),
                ("header 0", [.cookie: cookie, SessionHeader.request: "0"]),
                ("foreign origin", [.cookie: cookie, SessionHeader.request: "1", .origin: "http://evil.example"]),
                ("other port", [.cookie: cookie, SessionHeader.request: "1", .origin: "http://localhost:1"]),
                ("https", [.cookie: cookie, SessionHeader.request: "1", .origin: "https://localhost"]),
                ("null origin", [.cookie: cookie, SessionHeader.request: "1", .origin: "null"]),
            ]
            for (label, headers) in attempts {
                let reply = try await Self.raw(api, .post, rooms, headers: headers, body: #"{"name": "Attic"}"#)
                #expect(reply.status == 403 && reply.errorCode == "crossSiteRequest", "\(label): \(reply.text)")
                #expect(reply.text.contains("X-Hearth-Request") || reply.text.contains("origin"), "\(label)")
                #expect(roomCount() == before, "\(label) changed nothing")
            }
            // The page's own request: the header, and its own origin or none.
            // The test client sends `Host: localhost`, so the server's own origin is that host's.
            let own = "http://localhost"
            var reply = try await Self.raw(
                api,
                .post,
                rooms,
                headers: [.cookie: cookie, SessionHeader.request: "1", .origin: own],
                body: #"{"name": "Attic"}"#
            )
            #expect(reply.status == 201, "\(reply.text)")
            reply = try await Self.raw(
                api,
                .post,
                rooms,
                headers: [.cookie: cookie, SessionHeader.request: "1"],
                body: #"{"name": "Cellar"}"#
            )
            #expect(reply.status == 201, "\(reply.text)")
            #expect(roomCount() == before + 2)
            // A bearer token needs neither, as before.
            let bearer = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": fixture.home.id.uuidString],
                token: fixture.owner.token,
                body: #"{"name": "Loft"}"#
            )
            #expect(bearer.status == 201 && roomCount() == before + 3)
        }
    }

    @Test func signingOutRevokesTheSessionOnTheHub() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let (_, cookie) = try await Self.signIn(api, token: fixture.owner.token)
            let (_, other) = try await Self.signIn(api, token: fixture.owner.token)
            // Signing out is a change: another site cannot sign the browser out either.
            var reply = try await Self.raw(api, .delete, "/v1/session", headers: [.cookie: cookie])
            #expect(reply.status == 403)
            reply = try await Self.raw(
                api,
                .delete,
                "/v1/session",
                route: "/v1/session",
                headers: Self.page.merging([.cookie: cookie]) { $1 }
            )
            #expect(reply.status == 204)
            let cleared = reply.headers[.setCookie] ?? ""
            #expect(cleared.hasPrefix("hearth_session=;") && cleared.contains("Max-Age=0"), "\(cleared)")
            // The old cookie, sent again as a browser that kept it would: the hub no longer knows it.
            reply = try await Self.raw(api, .get, "/v1/me", headers: [.cookie: cookie])
            #expect(reply.status == 401)
            // The browser's other session and the token are untouched.
            #expect(try await Self.raw(api, .get, "/v1/me", headers: [.cookie: other]).status == 200)
            #expect(try await api.call(.get, "/v1/me", token: fixture.owner.token).status == 200)
            // Signing out with a token, not a cookie, is refused with a sentence.
            reply = try await Self.raw(
                api,
                .delete,
                "/v1/session",
                headers: [.authorization: "Bearer \(fixture.owner.token)"]
            )
            #expect(reply.status == 400 && reply.text.contains("/v1/me/tokens"), "\(reply.text)")
        }
    }

    @Test func revokingTheTokenEndsItsSessions() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            var reply = try await api.call(.post, "/v1/me/tokens", token: fixture.owner.token, body: "{}")
            let laptop = try #require(reply["token"] as? String)
            let laptopID = try #require(reply["tokenID"] as? String)
            let (_, cookie) = try await Self.signIn(api, token: laptop)
            #expect(try await Self.raw(api, .get, "/v1/me", headers: [.cookie: cookie]).status == 200)
            reply = try await api.call(
                .delete,
                "/v1/me/tokens/{tokenID}",
                ["tokenID": laptopID],
                token: fixture.owner.token
            )
            #expect(reply.status == 204)
            #expect(try await Self.raw(api, .get, "/v1/me", headers: [.cookie: cookie]).status == 401)
        }
    }

    @Test func largeJSONAnswersAreGzippedWhenAccepted() async throws {
        let fixture = try await Fixture()
        let token = fixture.owner.token
        let home = fixture.home.id.uuidString
        try await fixture.withServer { api in
            for index in 1...40 {
                let made = try await api.call(
                    .post,
                    "/v1/homes/{homeID}/rooms",
                    ["homeID": home],
                    token: token,
                    body: #"{"name": "Room number \#(index)"}"#
                )
                #expect(made.status == 201)
            }
            let bearer: [HTTPField.Name: String] = [.authorization: "Bearer \(token)"]
            let plain = try await Self.raw(api, .get, "/v1/homes/\(home)", headers: bearer)
            #expect(plain.status == 200 && plain.headers[.contentEncoding] == nil, "no gzip unless asked")
            #expect(plain.body.count > 2048)
            var asking = bearer
            asking[.acceptEncoding] = "gzip, deflate, br"
            let zipped = try await Self.raw(api, .get, "/v1/homes/\(home)", headers: asking)
            #expect(zipped.status == 200 && zipped.headers[.contentEncoding] == "gzip")
            #expect(zipped.headers[.contentType] == "application/json; charset=utf-8")
            #expect(zipped.headers[values: .vary].contains("Accept-Encoding"))
            #expect(zipped.body.count * 2 < plain.body.count, "\(zipped.body.count) of \(plain.body.count) bytes")
            let unzipped = try gunzip(zipped.body)
            let same =
                (try? JSONSerialization.jsonObject(with: Data(unzipped))) as? NSDictionary
                == (try? JSONSerialization.jsonObject(with: Data(plain.body))) as? NSDictionary
            #expect(same)
            let small = try await Self.raw(api, .get, "/v1/me", headers: asking)
            #expect(small.status == 200 && small.headers[.contentEncoding] == nil, "a small answer is sent as it is")
        }
    }

    @Test func aForgedOrGarbageCookieIsNoCaller() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let (_, cookie) = try await Self.signIn(api, token: fixture.owner.token)
            let secret = cookie.dropFirst("hearth_session=".count)
            let forged = "hearth_session=" + String(secret.dropLast()) + (secret.last == "A" ? "B" : "A")
            for value in [forged, "hearth_session=garbage", "hearth_session=", "hearth_session=\(fixture.owner.token)"]
            {
                let reply = try await Self.raw(api, .get, "/v1/me", headers: [.cookie: value])
                #expect(reply.status == 401, "\(value)")
            }
            // An open route still works with a stale cookie: the browser can sign in again.
            let again = try await Self.raw(
                api,
                .post,
                "/v1/session",
                headers: Self.page.merging([.cookie: "hearth_session=garbage"]) { $1 },
                body: #"{"token": "\#(fixture.owner.token)"}"#
            )
            #expect(again.status == 201)
        }
    }
}

/// The embedded page files, read through the server's `WebFiles` for the staleness test.
enum EmbeddedWebPage {
    static var files: [(name: String, text: String, gzip: [UInt8])] {
        HubServer.embeddedWebFiles.map { ($0.name, $0.text, $0.gzip) }
    }
}

/// `bytes` decompressed by the system's gzip.
func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-web-\(UUID().uuidString).gz")
    try Data(bytes).write(to: path)
    defer { try? FileManager.default.removeItem(at: path) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
    process.arguments = ["-dc", path.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Array(data)
}
