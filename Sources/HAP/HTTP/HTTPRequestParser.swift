/// Reads HTTP/1.1 requests from bytes that arrive in pieces of any size; no I/O.
///
/// Feed bytes with ``append(_:)`` and take requests with ``nextRequest()`` until it returns `nil`. Bytes after one
/// request's Content-Length body belong to the next request. Chunked requests are refused: HAP controllers always
/// send Content-Length (peers/README.md quirk 8). After an error, every later call throws the same error.
public struct HTTPRequestParser: Sendable {
    /// The longest request line plus headers, CR LF CR LF included; a HAP request head is a few hundred bytes.
    public static let defaultMaximumHeadLength = 8 * 1024
    /// The longest request body: a `PUT /characteristics` for 150 accessories' worth of values fits many times over.
    public static let defaultMaximumBodyLength = 64 * 1024

    private var framer: HTTPMessageFramer

    /// Makes a parser with the given limits, in bytes.
    public init(
        maximumHeadLength: Int = Self.defaultMaximumHeadLength,
        maximumBodyLength: Int = Self.defaultMaximumBodyLength
    ) {
        framer = HTTPMessageFramer(maximumHeadLength: maximumHeadLength, maximumBodyLength: maximumBodyLength)
    }

    /// The bytes received that are not part of a returned request yet.
    public var bufferedByteCount: Int { framer.bufferedByteCount }

    /// Whether part of a request has been received but not the whole of it.
    public var isInsideRequest: Bool { framer.isInsideMessage }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        framer.append(bytes)
    }

    /// The next complete request, or `nil` when more bytes are needed.
    public mutating func nextRequest() throws(HTTPParseError) -> HTTPRequest? {
        guard let message = try framer.nextMessage(.request) else { return nil }
        let (method, target) = try Self.parseRequestLine(message.head.startLine)
        return HTTPRequest(method: method, target: target, headers: message.head.headers, body: message.body)
    }

    /// `METHOD SP target SP HTTP/1.x`, the target starting with `/`.
    static func parseRequestLine(_ line: String) throws(HTTPParseError) -> (HTTPMethod, String) {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformedRequestLine }
        let method = parts[0]
        let target = parts[1]
        guard !method.isEmpty, method.utf8.allSatisfy(HTTPMessageFramer.isTokenCharacter) else {
            throw .malformedRequestLine
        }
        guard target.first == "/", !target.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw .malformedRequestLine
        }
        guard parts[2].hasPrefix("HTTP/") else { throw .malformedRequestLine }
        guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else { throw .unsupportedVersion }
        return (HTTPMethod(rawValue: String(method)), String(target))
    }
}
