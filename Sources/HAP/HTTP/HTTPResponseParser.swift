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
    ///
    /// With `keepsHeaders` false, responses come without header fields, for a reader that needs only the status and
    /// body (the controller): every line is still checked and Content-Length still read, so the same bytes are
    /// accepted or refused with the same errors.
    public init(
        maximumHeadLength: Int = Self.defaultMaximumHeadLength,
        maximumBodyLength: Int = Self.defaultMaximumBodyLength,
        keepsHeaders: Bool = true
    ) {
        framer = HTTPMessageFramer(
            maximumHeadLength: maximumHeadLength,
            maximumBodyLength: maximumBodyLength,
            keepsHeaders: keepsHeaders
        )
    }

    /// The bytes received that are not part of a returned message yet.
    public var bufferedByteCount: Int { framer.bufferedByteCount }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        framer.append(bytes)
    }

    /// Adds received bytes held in an array: not generic, so a caller in another module runs code compiled for
    /// exactly this type rather than the generic version.
    public mutating func append(_ bytes: [UInt8]) {
        framer.append(bytes)
    }

    /// The next complete response or event, or `nil` when more bytes are needed.
    public mutating func nextResponse() throws(HTTPParseError) -> HTTPResponse? {
        guard let message = try framer.nextMessage(.response) else { return nil }
        guard case .response(let kind, let status) = message.head.startLine else { return nil }
        return HTTPResponse(kind: kind, status: status, headers: message.head.headers, body: message.body)
    }

    /// `HTTP/1.x code reason` or `EVENT/1.0 code reason`; the reason may be empty or hold spaces.
    static func parseStatusLine(_ line: String) throws(HTTPParseError) -> (HTTPResponseKind, HTTPResponseStatus) {
        var line = line
        let result = line.withUTF8 { bytes in
            Result { () throws(HTTPParseError) in try parseStatusLine(bytes) }
        }
        return try result.get()
    }

    /// The status line from its bytes (CR LF excluded), read without making strings of its parts.
    static func parseStatusLine(
        _ line: UnsafeBufferPointer<UInt8>
    ) throws(HTTPParseError) -> (HTTPResponseKind, HTTPResponseStatus) {
        let space = UInt8(ascii: " ")
        guard let firstSpace = line.firstIndex(of: space) else { throw .malformedStatusLine }
        let version = UnsafeBufferPointer(rebasing: line[0..<firstSpace])
        let kind: HTTPResponseKind
        if version.equals("HTTP/1.1") || version.equals("HTTP/1.0") {
            kind = .response
        } else if version.equals("EVENT/1.0") {
            kind = .event
        } else if version.starts(with: "HTTP/".utf8) || version.starts(with: "EVENT/".utf8) {
            throw .unsupportedVersion
        } else {
            throw .malformedStatusLine
        }
        let codeStart = firstSpace + 1
        let codeEnd = line[codeStart...].firstIndex(of: space) ?? line.count
        guard codeEnd - codeStart == 3 else { throw .malformedStatusLine }
        var code = 0
        for digit in line[codeStart..<codeEnd] {
            guard digit >= 0x30, digit <= 0x39 else { throw .malformedStatusLine }
            code = code * 10 + Int(digit - 0x30)
        }
        guard code >= 100 else { throw .malformedStatusLine }
        let reason =
            codeEnd < line.count
            ? String(decoding: UnsafeBufferPointer(rebasing: line[(codeEnd + 1)...]), as: UTF8.self) : ""
        return (kind, HTTPResponseStatus(code: code, reasonPhrase: reason))
    }
}
