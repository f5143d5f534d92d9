/// Reads HTTP/1.1 responses and HAP `EVENT/1.0` messages from bytes that arrive in pieces of any size; no I/O.
///
/// The controller role's reader. A response without Content-Length has an empty body, as aiohomekit reads it
/// (peers/README.md quirk 2); chunked bodies are refused. After an error, every later call throws the same error.
public struct HTTPResponseParser: Sendable {
    /// The longest status line plus headers, CR LF CR LF included.
    public static let defaultMaximumHeadLength = 8 * 1024
    /// The longest body: `/accessories` of a full bridge (150 accessories) is a few hundred KiB at most.
    public static let defaultMaximumBodyLength = 4 * 1024 * 1024

    private var framer: HTTPMessageFramer

    /// Makes a parser with the given limits, in bytes.
    public init(
        maximumHeadLength: Int = Self.defaultMaximumHeadLength,
        maximumBodyLength: Int = Self.defaultMaximumBodyLength
    ) {
        framer = HTTPMessageFramer(maximumHeadLength: maximumHeadLength, maximumBodyLength: maximumBodyLength)
    }

    /// The bytes received that are not part of a returned message yet.
    public var bufferedByteCount: Int { framer.bufferedByteCount }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        framer.append(bytes)
    }

    /// The next complete response or event, or `nil` when more bytes are needed.
    public mutating func nextResponse() throws(HTTPParseError) -> HTTPResponse? {
        guard let message = try framer.nextMessage(.response) else { return nil }
        guard case .response(let kind, let status) = message.head.startLine else { return nil }
        var headers = message.head.headers
        headers.remove(name: "Content-Length")
        return HTTPResponse(kind: kind, status: status, headers: headers, body: message.body)
    }

    /// `HTTP/1.x code reason` or `EVENT/1.0 code reason`; the reason may be empty or hold spaces.
    static func parseStatusLine(_ line: String) throws(HTTPParseError) -> (HTTPResponseKind, HTTPResponseStatus) {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { throw .malformedStatusLine }
        let kind: HTTPResponseKind
        switch parts[0] {
        case "HTTP/1.1", "HTTP/1.0": kind = .response
        case "EVENT/1.0": kind = .event
        default:
            if parts[0].hasPrefix("HTTP/") || parts[0].hasPrefix("EVENT/") { throw .unsupportedVersion }
            throw .malformedStatusLine
        }
        let codeText = parts[1]
        guard codeText.utf8.count == 3, codeText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let code = Int(codeText), code >= 100
        else {
            throw .malformedStatusLine
        }
        let reason = parts.count == 3 ? String(parts[2]) : ""
        return (kind, HTTPResponseStatus(code: code, reasonPhrase: reason))
    }
}
