/// The shared half of both parsers: finds the head (start line and headers), then collects Content-Length bytes.
///
/// Bytes come in pieces of any size; the scan for the end of the head resumes where it stopped, so a head fed
/// byte by byte costs linear time. Once an error is thrown, every later call throws it again. The head is read
/// straight from the received bytes: a request line is split without making a `String` of it first.
struct HTTPMessageFramer: Sendable {
    /// Which kind of message is read: it decides how the start line is checked and how long the body is.
    enum Kind: Sendable {
        case request
        case response
    }

    /// A start line, already checked and split.
    enum StartLine: Sendable {
        case request(HTTPMethod, target: String)
        case response(HTTPResponseKind, HTTPResponseStatus)
    }

    /// A head split into its start line and header fields.
    struct Head: Sendable {
        var startLine: StartLine
        /// The fields; a response's Content-Length is left out (a parsed ``HTTPResponse``'s headers never hold it).
        var headers: HTTPHeaders
        /// The framing fields, noted as the lines are read.
        var framing = Framing()
    }

    /// What the head says about the body's length: Content-Length values and whether Transfer-Encoding is there.
    struct Framing: Sendable {
        /// The first Content-Length value, trimmed.
        var contentLength: String?
        /// Whether a later Content-Length differs from the first.
        var contentLengthsDiffer = false
        /// Whether a Transfer-Encoding field is present.
        var hasTransferEncoding = false
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
    /// Whether header fields are kept; without, lines are still checked and the framing fields still read.
    let keepsHeaders: Bool
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var scanIndex = 0
    private var state = State.head
    private var failure: HTTPParseError?

    init(maximumHeadLength: Int, maximumBodyLength: Int, keepsHeaders: Bool = true) {
        self.keepsHeaders = keepsHeaders
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
        // Appending from contiguous storage is a plain copy; the unspecialised generic append goes byte by byte.
        if bytes.withContiguousStorageIfAvailable({ buffer.append(contentsOf: $0) }) == nil {
            buffer.append(contentsOf: bytes)
        }
    }

    /// The next complete message, `nil` when more bytes are needed; the start line is checked before the body.
    mutating func nextMessage(_ kind: Kind) throws(HTTPParseError) -> Message? {
        if let failure { throw failure }
        do throws(HTTPParseError) {
            if case .head = state {
                guard let head = try readHead(kind) else { return nil }
                let length = try Self.bodyLength(of: head)
                guard length <= maximumBodyLength else {
                    throw .bodyTooLarge(length: length, limit: maximumBodyLength)
                }
                state = .body(head, length: length)
            }
            guard case .body(let head, let length) = state else { return nil }
            guard buffer.count - readIndex >= length else { return nil }
            let body = length == 0 ? [] : Array(buffer[readIndex..<readIndex + length])
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

    private mutating func readHead(_ kind: Kind) throws(HTTPParseError) -> Head? {
        // Resume 3 bytes back so a CR LF CR LF split across pieces is still found.
        let from = max(readIndex, scanIndex - 3)
        let start = readIndex
        let end = buffer.withUnsafeBufferPointer { bytes -> Int? in
            var index = from
            while index + 3 < bytes.count {
                if bytes[index + 3] == 10, bytes[index + 2] == 13, bytes[index + 1] == 10, bytes[index] == 13 {
                    return index
                }
                index += 1
            }
            return nil
        }
        guard let end else {
            scanIndex = buffer.count
            if buffer.count - readIndex >= maximumHeadLength { throw .headersTooLarge(limit: maximumHeadLength) }
            return nil
        }
        guard end + 4 <= readIndex + maximumHeadLength else { throw .headersTooLarge(limit: maximumHeadLength) }
        let keepsHeaders = keepsHeaders
        let head = try buffer.withUnsafeBufferPointer { bytes throws(HTTPParseError) in
            try Self.parseHead(
                UnsafeBufferPointer(rebasing: bytes[start..<end]),
                kind: kind,
                keepsHeaders: keepsHeaders
            )
        }
        readIndex = end + 4
        scanIndex = end + 4
        return head
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

    /// Splits the bytes before CR LF CR LF into the start line and header fields, and checks the start line.
    ///
    /// The checks run in this order, each over the whole head before the next: line breaks (a CR must be followed
    /// by LF, a lone LF is refused), control characters in the start line, each header line in turn, then the
    /// start line's own syntax.
    private static func parseHead(
        _ bytes: UnsafeBufferPointer<UInt8>,
        kind: Kind,
        keepsHeaders: Bool
    ) throws(HTTPParseError) -> Head {
        var index = 0
        var firstLineEnd: Int?
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 13 {
                guard index + 1 < bytes.count, bytes[index + 1] == 10 else { throw .malformedHeader }
                if firstLineEnd == nil { firstLineEnd = index }
                index += 2
                continue
            }
            if byte == 10 { throw .malformedHeader }
            index += 1
        }
        let startLineEnd = firstLineEnd ?? bytes.count
        let startLine = UnsafeBufferPointer(rebasing: bytes[0..<startLineEnd])
        guard startLine.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else { throw .malformedHeader }
        var headers = HTTPHeaders()
        var framing = Framing()
        var lineStart = startLineEnd + 2
        while lineStart <= bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 13 { lineEnd += 1 }
            try parseHeaderLine(
                UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]),
                into: &headers,
                framing: &framing,
                keepsContentLength: kind == .request,
                keepsHeaders: keepsHeaders
            )
            lineStart = lineEnd + 2
        }
        let parsedStartLine: StartLine
        switch kind {
        case .request:
            let (method, target) = try HTTPRequestParser.parseRequestLine(startLine)
            parsedStartLine = .request(method, target: target)
        case .response:
            let (responseKind, status) = try HTTPResponseParser.parseStatusLine(startLine)
            parsedStartLine = .response(responseKind, status)
        }
        return Head(startLine: parsedStartLine, headers: headers, framing: framing)
    }

    /// `name: value`: a token name, a value of visible characters, spaces and tabs, trimmed at both ends.
    ///
    /// Content-Length and Transfer-Encoding are also noted in `framing`; Content-Length is added to `headers` only
    /// when `keepsContentLength`.
    private static func parseHeaderLine(
        _ line: UnsafeBufferPointer<UInt8>,
        into headers: inout HTTPHeaders,
        framing: inout Framing,
        keepsContentLength: Bool,
        keepsHeaders: Bool
    ) throws(HTTPParseError) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformedHeader }
        guard colon > 0, line[0..<colon].allSatisfy(isTokenCharacter) else { throw .malformedHeader }
        var valueStart = colon + 1
        var valueEnd = line.count
        guard line[valueStart..<valueEnd].allSatisfy({ ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 }) else {
            throw .malformedHeader
        }
        while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        let name = UnsafeBufferPointer(rebasing: line[0..<colon])
        let valueBytes = UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd])
        if asciiCaseInsensitiveEquals(name, "content-length") {
            let value = String(decoding: valueBytes, as: UTF8.self)
            if let first = framing.contentLength {
                if value != first { framing.contentLengthsDiffer = true }
            } else {
                framing.contentLength = value
            }
            if keepsContentLength, keepsHeaders {
                headers.add(name: String(decoding: name, as: UTF8.self), value: value)
            }
            return
        }
        if asciiCaseInsensitiveEquals(name, "transfer-encoding") { framing.hasTransferEncoding = true }
        guard keepsHeaders else { return }
        // HAP's two content types come with nearly every message: their strings are made once.
        let value =
            reusing(HTTPContentType.hapJSON.rawValue, for: valueBytes)
            ?? reusing(HTTPContentType.pairingTLV8.rawValue, for: valueBytes)
            ?? String(decoding: valueBytes, as: UTF8.self)
        headers.add(name: String(decoding: name, as: UTF8.self), value: value)
    }

    /// `string` itself when `bytes` are exactly its UTF-8, so that no new string is made; else `nil`.
    private static func reusing(_ string: String, for bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard string.utf8.count == bytes.count else { return nil }
        let equal = string.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) }
        return equal == true ? string : nil
    }

    /// Whether the token `bytes` spell `lowercase` (ASCII letters, digits and `-`) in any letter case.
    ///
    /// Folding with `| 0x20` is exact here: no token character other than a letter's two cases folds onto a lowercase
    /// letter, a digit or `-`.
    static func asciiCaseInsensitiveEquals(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for index in 0..<bytes.count where bytes[index] | 0x20 != expected[index] | 0x20 {
            return false
        }
        return true
    }

    /// RFC 9110 §5.6.2 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func bodyLength(of head: Head) throws(HTTPParseError) -> Int {
        // RFC 9112 §6.3: 1xx, 204 and 304 never have a body.
        if case .response(_, let status) = head.startLine,
            status.code == 204 || status.code == 304 || status.code < 200
        {
            return 0
        }
        return try contentLength(of: head.framing) ?? 0
    }

    /// Content-Length as a number: only digits, every copy equal; `nil` when absent.
    static func contentLength(of framing: Framing) throws(HTTPParseError) -> Int? {
        if framing.hasTransferEncoding { throw .unsupportedTransferEncoding }
        guard let first = framing.contentLength else { return nil }
        guard !framing.contentLengthsDiffer, !first.isEmpty, first.utf8.count <= 18,
            first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else {
            throw .invalidContentLength
        }
        var length = 0
        for digit in first.utf8 { length = length * 10 + Int(digit - UInt8(ascii: "0")) }
        return length
    }
}
