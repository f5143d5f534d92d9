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
        guard case .request(let method, let target) = message.head.startLine else { return nil }
        return HTTPRequest(method: method, target: target, headers: message.head.headers, body: message.body)
    }

    /// `METHOD SP target SP HTTP/1.x` read from bytes; the same checks as the `String` form, without making one.
    ///
    /// A line with a byte of 0x80 or above goes through the `String` form, whose rules are about characters.
    static func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> (HTTPMethod, String) {
        guard line.allSatisfy({ $0 < 0x80 }) else {
            return try parseRequestLine(String(decoding: line, as: UTF8.self))
        }
        guard let firstSpace = line.firstIndex(of: 0x20),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: 0x20),
            !line[(secondSpace + 1)...].contains(0x20)
        else {
            throw .malformedRequestLine
        }
        let method = UnsafeBufferPointer(rebasing: line[0..<firstSpace])
        let target = UnsafeBufferPointer(rebasing: line[(firstSpace + 1)..<secondSpace])
        let version = UnsafeBufferPointer(rebasing: line[(secondSpace + 1)...])
        guard !method.isEmpty, method.allSatisfy(HTTPMessageFramer.isTokenCharacter) else {
            throw .malformedRequestLine
        }
        guard target.first == UInt8(ascii: "/"), !target.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw .malformedRequestLine
        }
        guard version.starts(with: "HTTP/".utf8) else { throw .malformedRequestLine }
        guard version.equals("HTTP/1.1") || version.equals("HTTP/1.0") else {
            throw .unsupportedVersion
        }
        return (
            knownMethod(method) ?? HTTPMethod(rawValue: String(decoding: method, as: UTF8.self)),
            String(decoding: target, as: UTF8.self)
        )
    }

    /// The shared value for GET, PUT and POST, so the usual methods make no new string.
    private static func knownMethod(_ token: UnsafeBufferPointer<UInt8>) -> HTTPMethod? {
        if token.equals("GET") { return .get }
        if token.equals("PUT") { return .put }
        if token.equals("POST") { return .post }
        return nil
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
