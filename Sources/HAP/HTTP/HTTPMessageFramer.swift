/// The shared half of both parsers: finds the head (start line and headers), then collects Content-Length bytes.
///
/// Bytes come in pieces of any size; the scan for the end of the head resumes where it stopped, so a head fed
/// byte by byte costs linear time. Once an error is thrown, every later call throws it again.
struct HTTPMessageFramer: Sendable {
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
            guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else { throw .malformedHeader }
            var value = line[(colon + 1)...]
            guard value.allSatisfy({ ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 }) else { throw .malformedHeader }
            while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
            while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
            headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
        return Head(startLine: String(decoding: first, as: UTF8.self), headers: headers)
    }

    /// RFC 9110 §5.6.2 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
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
