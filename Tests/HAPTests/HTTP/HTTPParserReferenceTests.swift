import HAP
import TestSupport
import Testing

@testable import HAP

/// The parsers read heads straight from bytes; on any input they must return what the `String`-based reader
/// they replaced returned: the same requests and responses, the same errors, at the same points.
@Suite struct HTTPParserReferenceTests {
    static let seeds: [[UInt8]] = [
        Array("GET /characteristics?id=1.9&ev=1 HTTP/1.1\r\nHost: 10.0.0.2\r\n\r\n".utf8),
        Array(
            "PUT /characteristics HTTP/1.1\r\nContent-Length: 2\r\nContent-Type: application/hap+json\r\n\r\n{}".utf8
        ),
        Array("POST /pair-verify HTTP/1.0\r\ncontent-length: 3\r\nContent-Length: 3\r\nX-A:\t b \t\r\n\r\nabc".utf8),
        Array("GET /accessories HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8),
        Array("HTTP/1.1 207 Multi-Status\r\nContent-Length: 4\r\n\r\nnull".utf8),
        Array("EVENT/1.0 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: 2\r\n\r\n{}".utf8),
        Array("HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n".utf8),
        Array("GET /a\u{301}?b HTTP/1.1\r\n\r\n".utf8),
        // Framing names in odd cases, and near misses that are other headers.
        Array("HTTP/1.1 200 OK\r\nCONTENT-LENGTH: 3\r\ncontent-length: 3\r\nContent_Length: 9\r\n\r\nabc".utf8),
        Array("HTTP/1.1 200 OK\r\ntransfer-ENCODING: identity\r\nContent-Length: 1\r\n\r\nx".utf8),
        Array("PUT /x HTTP/1.1\r\nContent-Lengths: 5\r\nContent-Length : 1\r\nTransfer-Encodin: y\r\n\r\nx".utf8),
    ]

    enum Outcome<Message: Equatable>: Equatable {
        case message(Message)
        case failure(HTTPParseError)
    }

    @Test("50,000 random and mutated inputs, in random pieces: the byte reader agrees with the String reader")
    func agreesWithTheStringReader() {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        for round in 0..<50_000 {
            let input: [UInt8]
            if round.isMultiple(of: 5) {
                input = random.bytes(Int.random(in: 0...120, using: &random))
            } else {
                let first = Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &random)]
                let second = Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &random)]
                input = mutate(first + second, using: &random)
            }
            let limits = (head: Int.random(in: 16...256, using: &random), body: Int.random(in: 0...64, using: &random))
            var requests = HTTPRequestParser(maximumHeadLength: limits.head, maximumBodyLength: limits.body)
            var responses = HTTPResponseParser(maximumHeadLength: limits.head, maximumBodyLength: limits.body)
            // Without header fields kept: the same outcome, with no fields.
            var bareResponses = HTTPResponseParser(
                maximumHeadLength: limits.head,
                maximumBodyLength: limits.body,
                keepsHeaders: false
            )
            var referenceRequests = ReferenceFramer(maximumHeadLength: limits.head, maximumBodyLength: limits.body)
            var referenceResponses = ReferenceFramer(maximumHeadLength: limits.head, maximumBodyLength: limits.body)
            var offset = 0
            while offset < input.count {
                let end = min(input.count, offset + Int.random(in: 1...40, using: &random))
                let piece = input[offset..<end]
                offset = end
                requests.append(piece)
                responses.append(piece)
                bareResponses.append(piece)
                referenceRequests.append(piece)
                referenceResponses.append(piece)
                for _ in 0..<3 {
                    let got = Self.outcome { () throws(HTTPParseError) in try requests.nextRequest() }
                    let want = Self.outcome { () throws(HTTPParseError) in try Self.nextRequest(&referenceRequests) }
                    #expect(got == want, "seed \(seed), round \(round), input \(input)")
                    let gotResponse = Self.outcome { () throws(HTTPParseError) in try responses.nextResponse() }
                    let wantResponse = Self.outcome { () throws(HTTPParseError) in
                        try Self.nextResponse(&referenceResponses)
                    }
                    #expect(gotResponse == wantResponse, "seed \(seed), round \(round), input \(input)")
                    let gotBare = Self.outcome { () throws(HTTPParseError) in try bareResponses.nextResponse() }
                    let wantBare = wantResponse.map { outcome -> Outcome<HTTPResponse> in
                        guard case .message(var response) = outcome else { return outcome }
                        response.headers = HTTPHeaders()
                        return .message(response)
                    }
                    #expect(gotBare == wantBare, "without headers: seed \(seed), round \(round), input \(input)")
                    guard got == want, gotResponse == wantResponse, gotBare == wantBare else { return }
                }
                #expect(requests.bufferedByteCount == referenceRequests.bufferedByteCount)
                #expect(responses.bufferedByteCount == referenceResponses.bufferedByteCount)
            }
        }
    }

    static func outcome<Message: Equatable>(
        _ body: () throws(HTTPParseError) -> Message?
    ) -> Outcome<Message>? {
        do {
            return try body().map { .message($0) }
        } catch {
            return .failure(error)
        }
    }

    static func nextRequest(_ framer: inout ReferenceFramer) throws(HTTPParseError) -> HTTPRequest? {
        guard let message = try framer.nextMessage(.request) else { return nil }
        let (method, target) = try HTTPRequestParser.parseRequestLine(message.head.startLine)
        return HTTPRequest(method: method, target: target, headers: message.head.headers, body: message.body)
    }

    static func nextResponse(_ framer: inout ReferenceFramer) throws(HTTPParseError) -> HTTPResponse? {
        guard let message = try framer.nextMessage(.response) else { return nil }
        let (kind, status) = try HTTPResponseParser.parseStatusLine(message.head.startLine)
        var headers = message.head.headers
        headers.remove(name: "Content-Length")
        return HTTPResponse(kind: kind, status: status, headers: headers, body: message.body)
    }

    @Test func responsesAreWrittenAsTheStringWriterWroteThem() {
        var random = SplitMix64(seed: 11)
        let codes = [200, 204, 207, 304, 100, 470, 0, 7, 1000, 123_456_789_012, -5]
        let headerSets: [HTTPHeaders] = [
            [:], ["Content-Type": "application/hap+json"], ["content-length": "99", "X": "y"],
            ["Content-Type": "a", "content-type": "b", "Content-Length": "1"],
        ]
        for code in codes {
            for headers in headerSets {
                for kind in [HTTPResponseKind.response, .event] {
                    let body = random.bytes(Int.random(in: 0...40, using: &random))
                    let response = HTTPResponse(kind: kind, status: .init(code: code), headers: headers, body: body)
                    #expect(response.encoded() == Self.referenceEncoded(response))
                    var appended: [UInt8] = [1, 2]
                    response.encode(into: &appended)
                    #expect(appended == [1, 2] + Self.referenceEncoded(response))
                }
            }
        }
    }

    /// `HTTPResponse.encoded()` as it was written with string interpolation.
    static func referenceEncoded(_ response: HTTPResponse) -> [UInt8] {
        var text = "\(response.kind.protocolToken) \(response.status.code) \(response.status.reasonPhrase)\r\n"
        let code = response.status.code
        let hasNoBody = code == 204 || code == 304 || code < 200
        for field in response.headers where !field.name.caseInsensitiveEquals("Content-Length") {
            if hasNoBody, field.name.caseInsensitiveEquals("Content-Type") { continue }
            text += "\(field.name): \(field.value)\r\n"
        }
        if !hasNoBody {
            text += "Content-Length: \(response.body.count)\r\n"
        }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if !hasNoBody { bytes += response.body }
        return bytes
    }

    @Test func aTargetSplitsAtItsFirstQuestionMarkCharacter() {
        let cases: [(String, String, String?)] = [
            ("/characteristics?id=1.2", "/characteristics", "id=1.2"),
            ("/accessories", "/accessories", nil),
            ("/a?b?c", "/a", "b?c"),
            ("/?", "/", ""),
            ("/x?\u{301}y?z", "/x?\u{301}y", "z"),
        ]
        for (target, path, query) in cases {
            let request = HTTPRequest(method: .get, target: target)
            #expect(request.path == path)
            #expect(request.query == query)
        }
    }
}

/// The framer both parsers used before heads were read from bytes (commit a2484c2), kept word for word as the
/// reference the byte reader must agree with.
struct ReferenceFramer: Sendable {
    /// Which kind of message is read: it decides how the start line is checked and how long the body is.
    enum Kind: Sendable {
        case request
        case response
    }

    /// A head split into its start line and header fields.
    struct Head: Sendable {
        var startLine: String
        var headers: HTTPHeaders
    }

    /// A complete message: the head and its body.
    struct Message: Sendable {
        var head: Head
        var body: [UInt8]
    }

    private enum State: Sendable {
        case head
        case body(Head, length: Int)
    }

    let maximumHeadLength: Int
    let maximumBodyLength: Int
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var scanIndex = 0
    private var state = State.head
    private var failure: HTTPParseError?

    init(maximumHeadLength: Int, maximumBodyLength: Int) {
        self.maximumHeadLength = maximumHeadLength
        self.maximumBodyLength = maximumBodyLength
    }

    /// The bytes received but not yet returned in a message.
    var bufferedByteCount: Int { buffer.count - readIndex }

    /// Whether a message has been started but not completed.
    var isInsideMessage: Bool {
        if case .body = state { return true }
        return bufferedByteCount > 0
    }

    mutating func append(_ bytes: some Sequence<UInt8>) {
        guard failure == nil else { return }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, `nil` when more bytes are needed; the start line is checked before the body.
    mutating func nextMessage(_ kind: Kind) throws(HTTPParseError) -> Message? {
        if let failure { throw failure }
        do throws(HTTPParseError) {
            if case .head = state {
                guard let head = try readHead() else { return nil }
                let length = try Self.bodyLength(of: head, kind: kind)
                guard length <= maximumBodyLength else {
                    throw .bodyTooLarge(length: length, limit: maximumBodyLength)
                }
                state = .body(head, length: length)
            }
            guard case .body(let head, let length) = state else { return nil }
            guard buffer.count - readIndex >= length else { return nil }
            let body = Array(buffer[readIndex..<readIndex + length])
            readIndex += length
            scanIndex = readIndex
            state = .head
            compact()
            return Message(head: head, body: body)
        } catch {
            failure = error
            buffer = []
            readIndex = 0
            scanIndex = 0
            throw error
        }
    }

    private mutating func readHead() throws(HTTPParseError) -> Head? {
        // Resume 3 bytes back so a CR LF CR LF split across pieces is still found.
        var index = max(readIndex, scanIndex - 3)
        let limitEnd = readIndex + maximumHeadLength
        while index + 3 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                let end = index + 4
                guard end <= limitEnd else { throw .headersTooLarge(limit: maximumHeadLength) }
                let head = try Self.parseHead(buffer[readIndex..<index])
                readIndex = end
                scanIndex = end
                return head
            }
            index += 1
        }
        scanIndex = buffer.count
        if buffer.count - readIndex >= maximumHeadLength { throw .headersTooLarge(limit: maximumHeadLength) }
        return nil
    }

    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
            scanIndex = 0
        } else if readIndex > 4096 {
            buffer.removeSubrange(0..<readIndex)
            scanIndex -= readIndex
            readIndex = 0
        }
    }

    /// Splits the bytes before CR LF CR LF into the start line and header fields.
    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> Head {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 13 {
                guard index + 1 < bytes.endIndex, bytes[index + 1] == 10 else { throw .malformedHeader }
                lines.append(bytes[lineStart..<index])
                index += 2
                lineStart = index
                continue
            }
            if bytes[index] == 10 { throw .malformedHeader }
            index += 1
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        guard let first = lines.first else { throw .malformedHeader }
        guard first.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else { throw .malformedHeader }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformedHeader }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(HTTPMessageFramer.isTokenCharacter) else { throw .malformedHeader }
            var value = line[(colon + 1)...]
            guard value.allSatisfy({ ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 }) else { throw .malformedHeader }
            while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
            while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
            headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
        return Head(startLine: String(decoding: first, as: UTF8.self), headers: headers)
    }

    private static func bodyLength(of head: Head, kind: Kind) throws(HTTPParseError) -> Int {
        switch kind {
        case .request:
            _ = try HTTPRequestParser.parseRequestLine(head.startLine)
        case .response:
            let (_, status) = try HTTPResponseParser.parseStatusLine(head.startLine)
            // RFC 9112 §6.3: 1xx, 204 and 304 never have a body.
            if status.code == 204 || status.code == 304 || status.code < 200 { return 0 }
        }
        return try contentLength(of: head.headers) ?? 0
    }

    /// Content-Length as a number: only digits, every copy equal; `nil` when absent.
    static func contentLength(of headers: HTTPHeaders) throws(HTTPParseError) -> Int? {
        if !headers.values(named: "Transfer-Encoding").isEmpty { throw .unsupportedTransferEncoding }
        let values = headers.values(named: "Content-Length")
        guard let first = values.first else { return nil }
        guard values.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
            first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let length = Int(first)
        else {
            throw .invalidContentLength
        }
        return length
    }
}
