import HAP
import Testing

@Suite struct HTTPResponseParserTests {
    static func parseAll(_ pieces: [ArraySlice<UInt8>]) throws -> [HTTPResponse] {
        var parser = HTTPResponseParser()
        var responses: [HTTPResponse] = []
        for piece in pieces {
            parser.append(piece)
            while let response = try parser.nextResponse() { responses.append(response) }
        }
        return responses
    }

    static let messages: [HTTPResponse] = [
        HTTPResponse(status: .noContent),
        HTTPResponse(status: .ok, contentType: .hapJSON, body: Array(#"{"characteristics":[]}"#.utf8)),
        .event(body: Array(#"{"characteristics":[{"aid":1,"iid":9,"value":1}]}"#.utf8)),
        HTTPResponse(status: .multiStatus, contentType: .hapJSON, body: Array("{}".utf8)),
        HTTPResponse(status: .connectionAuthorizationRequired, contentType: .hapJSON, body: Array("{}".utf8)),
        HTTPResponse(status: .ok, contentType: .pairingTLV8, body: [6, 1, 2]),
    ]

    @Test func roundTripsResponsesAndEventsAtEverySplitPoint() throws {
        let stream = Self.messages.flatMap { $0.encoded() }
        let whole = try Self.parseAll([stream[...]])
        #expect(whole.count == Self.messages.count)
        #expect(whole[2].kind == .event)
        for (parsed, sent) in zip(whole, Self.messages) {
            #expect(parsed.status == sent.status)
            #expect(parsed.body == sent.body)
            #expect(parsed.headers["Content-Type"] == sent.headers["Content-Type"])
        }
        for split in 0...stream.count {
            #expect(try Self.parseAll([stream[..<split], stream[split...]]) == whole, "split at \(split)")
        }
        #expect(try Self.parseAll(stream.indices.map { stream[$0...$0] }) == whole)
    }

    @Test func writesTheReasonPhraseAndContentLength() {
        let ok = HTTPResponse(status: .ok, contentType: .hapJSON, body: Array("{}".utf8))
        #expect(
            String(decoding: ok.encoded(), as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: 2\r\n\r\n{}"
        )
        #expect(
            String(decoding: HTTPResponse(status: .noContent).encoded(), as: UTF8.self)
                == "HTTP/1.1 204 No Content\r\n\r\n"
        )
        let event = HTTPResponse.event(body: Array("{}".utf8))
        #expect(String(decoding: event.encoded(), as: UTF8.self).hasPrefix("EVENT/1.0 200 OK\r\n"))
        let status470 = HTTPResponse(status: .connectionAuthorizationRequired)
        #expect(
            String(decoding: status470.encoded(), as: UTF8.self)
                == "HTTP/1.1 470 Connection Authorization Required\r\nContent-Length: 0\r\n\r\n"
        )
    }

    @Test func writesRequestsWithContentLength() throws {
        let request = HTTPRequest(
            method: .post,
            target: "/pair-setup",
            headers: ["Host": "127.0.0.1", "Content-Type": "application/pairing+tlv8"],
            body: [6, 1, 1]
        )
        var parser = HTTPRequestParser()
        parser.append(request.encoded())
        let parsed = try #require(try parser.nextRequest())
        #expect(parsed.headers["Content-Length"] == "3")
        #expect(parsed.body == request.body)
        let get = HTTPRequest(method: .get, target: "/accessories", headers: ["Host": "h"])
        #expect(String(decoding: get.encoded(), as: UTF8.self) == "GET /accessories HTTP/1.1\r\nHost: h\r\n\r\n")
    }

    @Test func readsAResponseWithoutContentLengthAsEmpty() throws {
        let responses = try Self.parseAll([Array("HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n".utf8)[...]])
        #expect(responses.count == 2)
        #expect(responses[0].body.isEmpty)
    }

    @Test func rejectsMalformedStatusLines() {
        let cases: [(String, HTTPParseError)] = [
            ("HTTP/1.1\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1 2000 OK\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1 abc OK\r\n\r\n", .malformedStatusLine),
            ("ICY 200 OK\r\n\r\n", .malformedStatusLine),
            ("HTTP/3 200 OK\r\n\r\n", .unsupportedVersion),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", .unsupportedTransferEncoding),
        ]
        for (text, expected) in cases {
            var parser = HTTPResponseParser()
            parser.append(Array(text.utf8))
            #expect(throws: expected, "\(text.debugDescription)") { try parser.nextResponse() }
        }
    }

    @Test func keepsAReasonPhraseWithSpaces() throws {
        let responses = try Self.parseAll([Array("HTTP/1.1 470 Connection Authorization Required\r\n\r\n".utf8)[...]])
        #expect(responses.first?.status == .connectionAuthorizationRequired)
    }
}
