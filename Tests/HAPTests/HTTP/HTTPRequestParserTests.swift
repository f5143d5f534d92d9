import HAP
import Testing

@Suite struct HTTPRequestParserTests {
    static let getAccessories = "GET /accessories HTTP/1.1\r\nHost: 10.0.0.2\r\n\r\n"
    static let putCharacteristics =
        "PUT /characteristics HTTP/1.1\r\nHost: 10.0.0.2\r\nContent-Length: 46\r\n"
        + "Content-Type: application/hap+json\r\n\r\n"
        + #"{"characteristics":[{"aid":1,"iid":9,"v":1}]}"#
    static let pairVerify =
        "POST /pair-verify HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 3\r\n\r\n\u{06}\u{01}\u{01}"

    static let stream = Array((getAccessories + putCharacteristics + pairVerify + getAccessories).utf8)

    static func parseAll(_ pieces: [ArraySlice<UInt8>]) throws -> [HTTPRequest] {
        var parser = HTTPRequestParser()
        var requests: [HTTPRequest] = []
        for piece in pieces {
            parser.append(piece)
            while let request = try parser.nextRequest() { requests.append(request) }
        }
        return requests
    }

    @Test func readsPipelinedRequestsWithTheirBodies() throws {
        let requests = try Self.parseAll([Self.stream[...]])
        #expect(requests.count == 4)
        #expect(requests[0].method == .get)
        #expect(requests[0].path == "/accessories")
        #expect(requests[0].query == nil)
        #expect(requests[0].headers["host"] == "10.0.0.2")
        #expect(requests[1].method == .put)
        #expect(requests[1].body.count == 46)
        #expect(requests[2].body == [6, 1, 1])
        #expect(requests[3] == requests[0])
    }

    @Test func givesTheSameRequestsAtEverySplitPoint() throws {
        let whole = try Self.parseAll([Self.stream[...]])
        for split in 0...Self.stream.count {
            let pieces = [Self.stream[..<split], Self.stream[split...]]
            #expect(try Self.parseAll(pieces) == whole, "split at \(split)")
        }
        for firstSplit in stride(from: 0, through: Self.stream.count, by: 7) {
            for secondSplit in firstSplit...Self.stream.count {
                let pieces = [
                    Self.stream[..<firstSplit], Self.stream[firstSplit..<secondSplit], Self.stream[secondSplit...],
                ]
                #expect(try Self.parseAll(pieces) == whole)
            }
        }
        #expect(try Self.parseAll(Self.stream.indices.map { Self.stream[$0...$0] }) == whole)
    }

    @Test func writesARequestFromItsPartsAsItsEncodingAndReadsItBack() throws {
        let requests = [
            HTTPRequest(method: .get, target: "/characteristics?id=1.10", headers: ["Host": "a:1", "X-A": "b"]),
            HTTPRequest(method: .put, target: "/characteristics", headers: ["Host": "h"], body: Array("{}".utf8)),
            HTTPRequest(method: .post, target: "/pairings", headers: ["Content-Length": "99", "Host": "h"]),
            HTTPRequest(method: .get, target: "/accessories"),
        ]
        for request in requests {
            var bytes: [UInt8] = [7]
            HTTPRequest.encode(
                method: request.method,
                target: { $0.append(contentsOf: request.target.utf8) },
                headerLines: request.headers.encodedLines,
                body: request.body,
                into: &bytes
            )
            #expect(Array(bytes.dropFirst()) == request.encoded())
            var parser = HTTPRequestParser()
            parser.append(bytes.dropFirst())
            let read = try #require(try parser.nextRequest())
            #expect(read.method == request.method && read.target == request.target && read.body == request.body)
            // A Content-Length among the headers is never written twice: the encoder writes its own.
            #expect(read.headers.values(named: "content-length").count <= 1)
        }
        #expect(
            HTTPHeaders([("A", "1"), ("content-length", "5"), ("B", " 2")]).encodedLines
                == Array("A: 1\r\nB:  2\r\n".utf8)
        )
        // The bytes themselves, written out: a PUT always carries Content-Length, after the given lines.
        var put: [UInt8] = []
        HTTPRequest.encode(
            method: .put,
            target: { $0.append(contentsOf: "/prepare".utf8) },
            headerLines: Array("Host: h\r\n".utf8),
            body: [],
            into: &put
        )
        #expect(put == Array("PUT /prepare HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n".utf8))
    }

    @Test func splitsTargetIntoPathAndQuery() throws {
        let requests = try Self.parseAll([Array("GET /characteristics?id=1.9,1.10&ev=1 HTTP/1.1\r\n\r\n".utf8)[...]])
        #expect(requests.first?.path == "/characteristics")
        #expect(requests.first?.query == "id=1.9,1.10&ev=1")
    }

    @Test func waitsForTheWholeBody() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST /pairings HTTP/1.1\r\nContent-Length: 5\r\n\r\nabc".utf8))
        #expect(try parser.nextRequest() == nil)
        #expect(parser.isInsideRequest)
        parser.append(Array("deGET".utf8))
        #expect(try parser.nextRequest()?.body == Array("abcde".utf8))
        #expect(try parser.nextRequest() == nil)
        #expect(parser.bufferedByteCount == 3)
    }

    static let malformed: [(String, HTTPParseError)] = [
        ("GET /accessories\r\n\r\n", .malformedRequestLine),
        ("GET accessories HTTP/1.1\r\n\r\n", .malformedRequestLine),
        ("GET  /accessories HTTP/1.1\r\n\r\n", .malformedRequestLine),
        ("G(T /accessories HTTP/1.1\r\n\r\n", .malformedRequestLine),
        ("GET /accessories HTTP/2.0\r\n\r\n", .unsupportedVersion),
        ("GET /accessories HTTP/1.1\r\nHost 1\r\n\r\n", .malformedHeader),
        ("GET /accessories HTTP/1.1\r\n: x\r\n\r\n", .malformedHeader),
        ("GET /accessories HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", .malformedHeader),
        ("GET /accessories HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", .malformedHeader),
        ("GET /accessories HTTP/1.1\r\nHost: a\u{01}\r\n\r\n", .malformedHeader),
        ("PUT /prepare HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
        ("PUT /prepare HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", .invalidContentLength),
        ("PUT /prepare HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", .invalidContentLength),
        ("PUT /prepare HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", .invalidContentLength),
        ("PUT /prepare HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", .unsupportedTransferEncoding),
        ("PUT /prepare HTTP/1.1\r\nContent-Length: 65537\r\n\r\n", .bodyTooLarge(length: 65537, limit: 65536)),
    ]

    @Test func rejectsMalformedRequestsWithTypedErrors() {
        for (text, expected) in Self.malformed {
            var parser = HTTPRequestParser()
            parser.append(Array(text.utf8))
            #expect(throws: expected, "\(text.debugDescription)") { try parser.nextRequest() }
            // The error sticks: later bytes do not revive the parser.
            parser.append(Array(Self.getAccessories.utf8))
            #expect(throws: expected) { try parser.nextRequest() }
        }
    }

    @Test func refusesAHeadOverTheLimitWhetherFedWholeOrInPieces() {
        let head = "GET /accessories HTTP/1.1\r\nX-Filler: " + String(repeating: "a", count: 64 * 1024) + "\r\n\r\n"
        let bytes = Array(head.utf8)
        var whole = HTTPRequestParser()
        whole.append(bytes)
        #expect(throws: HTTPParseError.headersTooLarge(limit: 8192)) { try whole.nextRequest() }
        var pieces = HTTPRequestParser()
        var thrown: HTTPParseError?
        for chunk in stride(from: 0, to: bytes.count, by: 100) {
            pieces.append(bytes[chunk..<min(chunk + 100, bytes.count)])
            do {
                _ = try pieces.nextRequest()
            } catch {
                thrown = error
                break
            }
        }
        #expect(thrown == .headersTooLarge(limit: 8192))
    }

    @Test func acceptsAHeadOfExactlyTheLimit() throws {
        let prefix = "GET / HTTP/1.1\r\nX: "
        let filler = String(repeating: "b", count: 8192 - prefix.utf8.count - 4)
        let bytes = Array((prefix + filler + "\r\n\r\n").utf8)
        #expect(bytes.count == 8192)
        var parser = HTTPRequestParser()
        parser.append(bytes)
        #expect(try parser.nextRequest() != nil)
        var tooLong = HTTPRequestParser()
        tooLong.append(Array((prefix + filler + "b\r\n\r\n").utf8))
        #expect(throws: HTTPParseError.headersTooLarge(limit: 8192)) { try tooLong.nextRequest() }
    }
}
