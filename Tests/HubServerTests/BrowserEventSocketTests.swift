import Foundation
import HTTPTypes
import HubServer
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The event WebSocket opened as a browser opens it: the session cookie and an `Origin`, no token.
///
/// A raw socket, because the WebSocket client library always sends its own `Origin` (`ws://host`), which no browser
/// sends and the hub does not take for its own page.
@Suite(.serialized) struct BrowserEventSocketTests {
    /// A WebSocket client on a raw socket: the upgrade request as written, the answer's head, then the server's
    /// frames as they come.
    final class BrowserSocket: Sendable {
        let socket: RawSocket
        /// The bytes read and not yet parsed.
        private let pending = Mutex<[UInt8]>([])

        /// Opens a connection and sends the upgrade request with `headers` (name, value) after the WebSocket's own.
        init(port: Int, headers: [(String, String)]) throws {
            socket = try RawSocket(port: port)
            var request =
                "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            for (name, value) in headers { request += "\(name): \(value)\r\n" }
            try socket.send(request + "\r\n")
        }

        /// The answer's head (status line and headers), and its body when it has a `Content-Length`; `nil` when
        /// none came within `timeout`.
        func answer(timeout: Duration = .seconds(10)) async -> (head: String, body: String)? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let found = pending.withLock { bytes -> (String, String)? in
                    let separator: [UInt8] = [13, 10, 13, 10]
                    guard
                        let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator })
                    else { return nil }
                    let head = String(decoding: bytes[..<end], as: UTF8.self)
                    let length =
                        head.lowercased().split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                        ?? 0
                    guard bytes.count >= end + 4 + length else { return nil }
                    let body = String(decoding: bytes[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                    bytes.removeFirst(end + 4 + length)
                    return (head, body)
                }
                if let found { return found }
                guard await read() else { return nil }
            }
            return nil
        }

        /// One server frame: its opcode and payload; `nil` when the connection closed or none came in `timeout`.
        func frame(timeout: Duration = .seconds(10)) async -> (opcode: UInt8, payload: [UInt8])? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let found = pending.withLock { bytes -> (UInt8, [UInt8])? in
                    guard bytes.count >= 2 else { return nil }
                    var length = Int(bytes[1] & 0x7f)
                    var start = 2
                    if length == 126 {
                        guard bytes.count >= 4 else { return nil }
                        length = Int(bytes[2]) << 8 | Int(bytes[3])
                        start = 4
                    } else if length == 127 {
                        guard bytes.count >= 10 else { return nil }
                        length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
                        start = 10
                    }
                    guard bytes.count >= start + length else { return nil }
                    let frame = (bytes[0] & 0x0f, Array(bytes[start..<(start + length)]))
                    bytes.removeFirst(start + length)
                    return frame
                }
                if let found { return found }
                guard await read() else { return nil }
            }
            return nil
        }

        /// The next text message parsed as JSON, skipping other frames; `nil` once a close frame or the end came.
        func message(timeout: Duration = .seconds(10)) async -> [String: Any]? {
            while let frame = await frame(timeout: timeout) {
                if frame.opcode == 8 { return nil }
                if frame.opcode == 1 { return EventClient.parse(String(decoding: frame.payload, as: UTF8.self)) }
            }
            return nil
        }

        /// Sends a masked text frame, as a client must.
        func send(_ text: String) throws {
            let payload = Array(text.utf8)
            precondition(payload.count < 126)
            let mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
            try socket.send(
                [0x81, 0x80 | UInt8(payload.count)] + mask
                    + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
            )
        }

        /// Reads what has arrived (waiting up to 100 ms); `false` when the peer closed.
        private func read() async -> Bool {
            let descriptor = socket.descriptor
            let chunk = await offThePool { () -> [UInt8]? in
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { return [] }
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                return count > 0 ? Array(buffer[0..<count]) : nil
            }
            guard let chunk else { return false }
            pending.withLock { $0.append(contentsOf: chunk) }
            return true
        }
    }

    /// Opens a browser's socket with `cookie` and `origin`; returns it once the hello has arrived and the client
    /// has asked for live events.
    func openAccepted(_ api: API, cookie: String, origin: String?) async throws -> BrowserSocket {
        var headers = [("Cookie", cookie)]
        if let origin { headers.append(("Origin", origin)) }
        let socket = try BrowserSocket(port: api.port, headers: headers)
        let answer = try #require(await socket.answer())
        #expect(answer.head.hasPrefix("HTTP/1.1 101"), "\(answer.head)")
        let hello = try #require(await socket.message())
        #expect(hello["hello"] != nil, "\(hello)")
        try socket.send(#"{"resume": {}}"#)
        return socket
    }

    @Test func aBrowsersSocketWithItsCookieAndTheHubsOwnOriginGetsTheUsersEvents() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            let (_, cookie) = try await WebPageTests.signIn(api, token: fixture.guest.token)
            let socket = try await openAccepted(api, cookie: cookie, origin: "http://127.0.0.1:\(api.port)")
            defer { socket.socket.close() }
            let reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: fixture.owner.token,
                body: #"{"name": "Loft"}"#
            )
            #expect(reply.status == 201)
            let event = try #require(await socket.message())["event"] as? [String: Any]
            #expect(event?["homeID"] as? String == h)
            #expect((event?["change"] as? [String: Any])?["type"] as? String == "roomAdded", "\(event ?? [:])")
        }
    }

    @Test func aBrowsersSocketFromAnotherOriginOrWithoutOneIsRefusedBeforeTheUpgrade() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let (_, cookie) = try await WebPageTests.signIn(api, token: fixture.owner.token)
            let attempts: [(String, String?)] = [
                ("foreign origin", "http://evil.example"),
                ("other port", "http://127.0.0.1:1"),
                ("https", "https://127.0.0.1:\(api.port)"),
                ("null origin", "null"),
                ("no origin", nil),
            ]
            for (label, origin) in attempts {
                var headers = [("Cookie", cookie)]
                if let origin { headers.append(("Origin", origin)) }
                let socket = try BrowserSocket(port: api.port, headers: headers)
                defer { socket.socket.close() }
                let answer = try #require(await socket.answer(), "\(label): an answer")
                #expect(answer.head.hasPrefix("HTTP/1.1 403"), "\(label): \(answer.head)")
                let error = EventClient.parse(answer.body)["error"] as? [String: Any]
                #expect(error?["code"] as? String == "crossSiteRequest", "\(label): \(answer.body)")
                #expect((error?["message"] as? String)?.contains("Origin") == true, "\(label): \(answer.body)")
                #expect(await socket.frame(timeout: .seconds(2)) == nil, "\(label): no frame, the connection closed")
            }
            // Two Origin headers are not the page's own either.
            let doubled = try BrowserSocket(
                port: api.port,
                headers: [("Cookie", cookie), ("Origin", "http://127.0.0.1:\(api.port)"), ("Origin", "http://evil")]
            )
            defer { doubled.socket.close() }
            #expect(await doubled.answer()?.head.hasPrefix("HTTP/1.1 403") == true)
            // A bearer token is not the browser's ambient credential: its socket opens whatever the Origin.
            let bearer = try BrowserSocket(
                port: api.port,
                headers: [("Authorization", "Bearer \(fixture.owner.token)"), ("Origin", "http://evil.example")]
            )
            defer { bearer.socket.close() }
            #expect(await bearer.answer()?.head.hasPrefix("HTTP/1.1 101") == true)
            #expect(await bearer.message()?["hello"] != nil)
        }
    }

    @Test func signingOutOrRevokingTheTokenClosesTheBrowsersSocketAtOnce() async throws {
        let fixture = try await Fixture()
        try await fixture.withServer { api in
            let own = "http://127.0.0.1:\(api.port)"
            let (_, cookie) = try await WebPageTests.signIn(api, token: fixture.owner.token)
            let socket = try await openAccepted(api, cookie: cookie, origin: own)
            defer { socket.socket.close() }
            // Another session of the same user stays open.
            let (_, otherCookie) = try await WebPageTests.signIn(api, token: fixture.owner.token)
            let other = try await openAccepted(api, cookie: otherCookie, origin: own)
            defer { other.socket.close() }
            let signedOut = ContinuousClock.now
            let reply = try await WebPageTests.raw(
                api,
                .delete,
                "/v1/session",
                headers: WebPageTests.page.merging([.cookie: cookie]) { $1 }
            )
            #expect(reply.status == 204)
            var close: (opcode: UInt8, payload: [UInt8])?
            while let frame = await socket.frame(timeout: .seconds(5)) {
                if frame.opcode == 8 {
                    close = frame
                    break
                }
            }
            let frame = try #require(close, "a close frame")
            print("closed \(ContinuousClock.now - signedOut) after signing out")
            #expect(frame.payload.count >= 2 && Int(frame.payload[0]) << 8 | Int(frame.payload[1]) == 1008)
            #expect(String(decoding: frame.payload.dropFirst(2), as: UTF8.self).contains("signed out"))
            #expect(await other.frame(timeout: .milliseconds(300)) == nil && !other.socket.isClosedByPeer)

            // A session made with a token that is then revoked: its socket closes too.
            let made = try await api.call(
                .post,
                "/v1/me/tokens",
                token: fixture.owner.token,
                body: #"{"label": "laptop"}"#
            )
            let laptop = try #require(made["token"] as? String)
            let tokenID = try #require(made["tokenID"] as? String)
            let (_, laptopCookie) = try await WebPageTests.signIn(api, token: laptop)
            let third = try await openAccepted(api, cookie: laptopCookie, origin: own)
            defer { third.socket.close() }
            let revoked = try await api.call(
                .delete,
                "/v1/me/tokens/{tokenID}",
                ["tokenID": tokenID],
                token: fixture.owner.token
            )
            #expect(revoked.status == 204)
            var closed = false
            while let frame = await third.frame(timeout: .seconds(5)) {
                if frame.opcode == 8 {
                    closed = true
                    break
                }
            }
            #expect(closed)
        }
    }
}
