import Foundation
import HTTPTypes
import HearthAPI
import HubServer
import Testing

/// Signing a browser in with a password, a sign-in link and an invite code, over real HTTP on loopback.
@Suite(.serialized) struct SignInTests {
    /// `POST /v1/session` as the page sends it, with a raw JSON body.
    static func session(_ api: API, _ body: String) async throws -> WebPageTests.RawReply {
        try await WebPageTests.raw(
            api,
            .post,
            "/v1/session",
            route: "/v1/session",
            headers: WebPageTests.page,
            body: body
        )
    }

    static func message(_ reply: WebPageTests.RawReply) -> String {
        (reply.json["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    @Test func aPasswordSignsInAndAWrongOneIsRefusedWithTheSameSentenceForAnyName() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        try await fixture.withServer { api in
            var reply = try await api.call(.put, "/v1/account/password", token: o, body: #"{"password": "short"}"#)
            #expect(reply.status == 400 && reply.errorMessage.contains("at least 8 characters"), "\(reply.text)")
            // Nothing to sign in with yet.
            var signIn = try await Self.session(api, #"{"name": "Ada", "password": "correct horse"}"#)
            #expect(signIn.status == 401)
            reply = try await api.call(.put, "/v1/account/password", token: o, body: #"{"password": "correct horse"}"#)
            #expect(reply.status == 204)

            signIn = try await Self.session(api, #"{"name": "ada", "password": "correct horse"}"#)
            #expect(signIn.status == 201, "\(signIn.text)")
            #expect((signIn.headers[.setCookie] ?? "").hasPrefix("hearth_session="))
            #expect((signIn.json["user"] as? [String: Any])?["name"] as? String == "Ada")
            let cookie = String((signIn.headers[.setCookie] ?? "").split(separator: ";").first ?? "")
            let me = try await WebPageTests.raw(api, .get, "/v1/me", headers: [.cookie: cookie])
            #expect(me.status == 200)

            let wrong = try await Self.session(api, #"{"name": "Ada", "password": "wrong horse"}"#)
            let nobody = try await Self.session(api, #"{"name": "Nobody", "password": "wrong horse"}"#)
            #expect(wrong.status == 401 && nobody.status == 401)
            #expect(Self.message(wrong) == Self.message(nobody) && Self.message(wrong).contains("name and password"))
            #expect(wrong.headers[.setCookie] == nil)
            // The file holds a scrypt hash, never the password.
            let stored = try String(contentsOfFile: fixture.credentials.path, encoding: .utf8)
            #expect(!stored.contains("correct horse") && stored.contains("scrypt"))

            // Changing it needs the current one.
            reply = try await api.call(.put, "/v1/account/password", token: o, body: #"{"password": "battery staple"}"#)
            #expect(reply.status == 400 && reply.errorMessage.contains("currentPassword"), "\(reply.text)")
            reply = try await api.call(
                .put,
                "/v1/account/password",
                token: o,
                body: #"{"password": "battery staple", "currentPassword": "wrong horse"}"#
            )
            #expect(reply.status == 403, "\(reply.text)")
            reply = try await api.call(
                .put,
                "/v1/account/password",
                token: o,
                body: #"{"password": "battery staple", "currentPassword": "correct horse"}"#
            )
            #expect(reply.status == 204, "\(reply.text)")
            #expect(try await Self.session(api, #"{"name": "Ada", "password": "battery staple"}"#).status == 201)
            #expect(try await Self.session(api, #"{"name": "Ada", "password": "correct horse"}"#).status == 401)
            // Two ways at once are refused.
            let both = try await Self.session(api, #"{"token": "\#(o)", "name": "Ada", "password": "battery staple"}"#)
            #expect(both.status == 400)
        }
    }

    @Test func aPasswordWithControlCharactersIsRefusedAndNeverSignsIn() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        try await fixture.withServer(configure: { $0.passwordTries = 4 }) { api in
            for password in [
                #"\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000"#, #"abcdefgh\u0000"#, #"abcdefgh\u0007"#,
                #"abcdefgh\u0085"#, #"abcd\nefgh"#,
            ] {
                let reply = try await api.call(
                    .put,
                    "/v1/account/password",
                    token: o,
                    body: #"{"password": "\#(password)"}"#
                )
                #expect(reply.status == 400 && reply.errorCode == "invalidRequest", "\(reply.text)")
                #expect(reply.errorMessage.contains("field 'password'") && reply.errorMessage.contains("control"))
            }
            var reply = try await api.call(.put, "/v1/account/password", token: o, body: #"{"password": "abcdefgh"}"#)
            #expect(reply.status == 204, "\(reply.text)")
            // scrypt's HMAC pads with zeros: trailing NULs would derive the same key, so they are refused.
            let padded = try await Self.session(api, #"{"name": "Ada", "password": "abcdefgh\u0000\u0000"}"#)
            #expect(padded.status == 401 && Self.message(padded).contains("name and password"), "\(padded.text)")
            reply = try await api.call(
                .put,
                "/v1/account/password",
                token: o,
                body: #"{"password": "battery staple", "currentPassword": "abcdefgh\u0000"}"#
            )
            #expect(reply.status == 403, "\(reply.text)")
            #expect(try await Self.session(api, #"{"name": "Ada", "password": "abcdefgh"}"#).status == 201)
            // Counted as wrong tries: two more and the name is limited.
            _ = try await Self.session(api, #"{"name": "Ada", "password": "abcdefgh\u0001"}"#)
            _ = try await Self.session(api, #"{"name": "Ada", "password": "abcdefgh\u0001"}"#)
            #expect(try await Self.session(api, #"{"name": "Ada", "password": "abcdefgh"}"#).status == 429)
        }
    }

    @Test func wrongPasswordsAreRateLimitedPerAccount() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        try await fixture.withServer(configure: { $0.passwordTries = 3 }) { api in
            let reply = try await api.call(
                .put,
                "/v1/account/password",
                token: o,
                body: #"{"password": "correct horse"}"#
            )
            #expect(reply.status == 204)
            for _ in 0..<3 {
                #expect(try await Self.session(api, #"{"name": "Ada", "password": "wrong horse"}"#).status == 401)
            }
            // Now even the right password waits, for this account only.
            let limited = try await Self.session(api, #"{"name": "Ada", "password": "correct horse"}"#)
            #expect(limited.status == 429 && limited.errorCode == "tooManyAttempts", "\(limited.text)")
            #expect(Self.message(limited).contains("try again"))
            #expect(try await Self.session(api, #"{"name": "Bo", "password": "wrong horse"}"#).status == 401)
            // A name without an account is limited the same way, so the answer tells nothing about it.
            for _ in 0..<3 { _ = try await Self.session(api, #"{"name": "Nobody", "password": "wrong horse"}"#) }
            #expect(try await Self.session(api, #"{"name": "Nobody", "password": "x"}"#).status == 429)
        }
        let later = try await Fixture()
        try await later.withServer(configure: {
            $0.passwordTries = 2; $0.passwordWindow = 3
        }) { api in
            let reply = try await api.call(
                .put,
                "/v1/account/password",
                token: later.owner.token,
                body: #"{"password": "correct horse"}"#
            )
            #expect(reply.status == 204)
            for _ in 0..<2 { _ = try await Self.session(api, #"{"name": "Ada", "password": "wrong horse"}"#) }
            #expect(try await Self.session(api, #"{"name": "Ada", "password": "correct horse"}"#).status == 429)
            try await Task.sleep(for: .milliseconds(3100))
            #expect(try await Self.session(api, #"{"name": "Ada", "password": "correct horse"}"#).status == 201)
        }
    }

    @Test func aSignInLinkWorksOnceAndNotAfterItExpires() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        try await fixture.withServer { api in
            let reply = try await api.call(.post, "/v1/account/sign-in-links", token: o)
            #expect(reply.status == 201)
            let url = try #require(reply["url"] as? String)
            // The page's address as the request named it (its Host; the test client sends "localhost").
            #expect(url.hasPrefix("http://localhost/#signin="), "\(url)")
            let secret = String(url.split(separator: "=", maxSplits: 1).last ?? "")
            let first = try await Self.session(api, #"{"link": "\#(secret)"}"#)
            #expect(first.status == 201 && (first.json["user"] as? [String: Any])?["name"] as? String == "Ada")
            #expect((first.headers[.setCookie] ?? "").hasPrefix("hearth_session="))
            let again = try await Self.session(api, #"{"link": "\#(secret)"}"#)
            #expect(again.status == 401 && Self.message(again).contains("used already"), "\(again.text)")
            let made = try await Self.session(api, #"{"link": "made-up"}"#)
            #expect(made.status == 401)
            let stored = try String(contentsOfFile: fixture.credentials.path, encoding: .utf8)
            #expect(!stored.contains(secret))
        }
        let expiring = try await Fixture()
        try await expiring.withServer(configure: { $0.signInLinkLifetime = 0.2 }) { api in
            let reply = try await api.call(.post, "/v1/account/sign-in-links", token: expiring.owner.token)
            let url = try #require(reply["url"] as? String)
            let secret = String(url.split(separator: "=", maxSplits: 1).last ?? "")
            try await Task.sleep(for: .milliseconds(400))
            let late = try await Self.session(api, #"{"link": "\#(secret)"}"#)
            #expect(late.status == 401 && late.headers[.setCookie] == nil)
        }
    }

    @Test func anInviteCodeMakesAnAccountThatSignsIn() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            var reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: o,
                body: #"{"role": "shared"}"#
            )
            let code = try #require(reply["code"] as? String)
            // What the page does: redeem without a token, then sign in with the new account's token.
            reply = try await api.call(
                .post,
                "/v1/invites/redeem",
                token: nil,
                body: #"{"code": "\#(code)", "name": "Sam"}"#
            )
            #expect(reply.status == 201)
            let token = try #require((reply["token"] as? [String: Any])?["token"] as? String)
            let signIn = try await Self.session(api, #"{"token": "\#(token)"}"#)
            #expect(signIn.status == 201)
            let homes = signIn.json["homes"] as? [[String: Any]] ?? []
            #expect(homes.first?["id"] as? String == h && homes.first?["role"] as? String == "shared")
            #expect((signIn.json["user"] as? [String: Any])?["name"] as? String == "Sam")
            // The code works once.
            reply = try await api.call(
                .post,
                "/v1/invites/redeem",
                token: nil,
                body: #"{"code": "\#(code)", "name": "Tom"}"#
            )
            #expect(reply.status == 404)
        }
    }
}
