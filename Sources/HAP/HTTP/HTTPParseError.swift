/// Why bytes received could not be read as an HTTP message; the connection that sent them is closed.
public enum HTTPParseError: Error, Hashable, Sendable {
    /// The request or status line and headers did not end within the limit (bytes).
    case headersTooLarge(limit: Int)
    /// Content-Length announced more than the limit (bytes).
    case bodyTooLarge(length: Int, limit: Int)
    /// The request line is not `METHOD SP /target SP HTTP/1.x`.
    case malformedRequestLine
    /// The status line is not `HTTP/1.x code reason` or `EVENT/1.0 code reason`.
    case malformedStatusLine
    /// A header line has no colon, an invalid name, a control character, or is a folded continuation.
    case malformedHeader
    /// Content-Length is not a decimal number, or two of them disagree.
    case invalidContentLength
    /// A Transfer-Encoding was sent; HAP messages always carry Content-Length.
    case unsupportedTransferEncoding
    /// The protocol version is not one HAP speaks.
    case unsupportedVersion

    /// The status a server answers before closing the connection.
    public var responseStatus: HTTPResponseStatus {
        switch self {
        case .headersTooLarge: .headersTooLarge
        case .bodyTooLarge: .payloadTooLarge
        case .malformedRequestLine, .malformedStatusLine, .malformedHeader, .invalidContentLength,
            .unsupportedTransferEncoding, .unsupportedVersion:
            .badRequest
        }
    }
}

extension HTTPParseError: CustomStringConvertible {
    /// A sentence for people.
    public var description: String {
        switch self {
        case .headersTooLarge(let limit): "the HTTP head is longer than \(limit) bytes"
        case .bodyTooLarge(let length, let limit): "the HTTP body of \(length) bytes is longer than \(limit) bytes"
        case .malformedRequestLine: "the HTTP request line is malformed"
        case .malformedStatusLine: "the HTTP status line is malformed"
        case .malformedHeader: "an HTTP header line is malformed"
        case .invalidContentLength: "the HTTP Content-Length is not one decimal number"
        case .unsupportedTransferEncoding: "an HTTP Transfer-Encoding was sent, which HAP does not use"
        case .unsupportedVersion: "the HTTP version is not one HAP speaks"
        }
    }
}
