/// An HTTP request method; HAP uses GET, PUT and POST, and any other token is kept as sent.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token as it appears on the request line.
    public let rawValue: String

    /// Wraps a method token.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `GET`: reads.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `PUT`: characteristic writes and `/prepare`.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `POST`: pairing endpoints and `/identify`.
    public static let post = HTTPMethod(rawValue: "POST")

    /// The method token.
    public var description: String { rawValue }
}

/// A status code with the reason phrase aiohomekit needs on every status line (peers/README.md quirk 1).
public struct HTTPResponseStatus: Hashable, Sendable, CustomStringConvertible {
    /// The three-digit code.
    public var code: Int
    /// The reason phrase written after the code.
    public var reasonPhrase: String

    /// Makes a status; an empty reason phrase is replaced by the standard one or "Unknown" when written.
    public init(code: Int, reasonPhrase: String = "") {
        self.code = code
        self.reasonPhrase = reasonPhrase.isEmpty ? Self.standardReasonPhrase(for: code) : reasonPhrase
    }

    /// 200: reads, pairing endpoints, `/prepare`.
    public static let ok = HTTPResponseStatus(code: 200)
    /// 204: a write or identify succeeded; no body.
    public static let noContent = HTTPResponseStatus(code: 204)
    /// 207: per-item statuses of a read or write.
    public static let multiStatus = HTTPResponseStatus(code: 207)
    /// 400: malformed request.
    public static let badRequest = HTTPResponseStatus(code: 400)
    /// 404: unknown path.
    public static let notFound = HTTPResponseStatus(code: 404)
    /// 405: known path, other method.
    public static let methodNotAllowed = HTTPResponseStatus(code: 405)
    /// 413: a body over the parser's limit.
    public static let payloadTooLarge = HTTPResponseStatus(code: 413)
    /// 431: a request line and headers over the parser's limit.
    public static let headersTooLarge = HTTPResponseStatus(code: 431)
    /// 470: the request needs a verified session (hap-protocol.md §7.2).
    public static let connectionAuthorizationRequired = HTTPResponseStatus(code: 470)
    /// 500: the accessory failed.
    public static let internalServerError = HTTPResponseStatus(code: 500)
    /// 503: no room for the request.
    public static let serviceUnavailable = HTTPResponseStatus(code: 503)

    /// The phrase HAP peers send for a code; hap-protocol.md §7.2.
    public static func standardReasonPhrase(for code: Int) -> String {
        switch code {
        case 200: "OK"
        case 204: "No Content"
        case 207: "Multi-Status"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 413: "Payload Too Large"
        case 422: "Unprocessable Entity"
        case 431: "Request Header Fields Too Large"
        case 470: "Connection Authorization Required"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Unknown"
        }
    }

    /// The code and phrase, as on the status line.
    public var description: String { "\(code) \(reasonPhrase)" }
}

/// Header fields in the order they were sent or added; names compare case-insensitively.
public struct HTTPHeaders: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// One field.
    public struct Field: Hashable, Sendable {
        /// The name as sent.
        public var name: String
        /// The value, without surrounding spaces.
        public var value: String
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Makes headers from name–value pairs, in order.
    public init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Makes headers from a literal, in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Adds a field at the end.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field with this name by one field at the end.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field with this name.
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// The value of the first field with this name.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the fields with this name, in order.
    public func values(named name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}

extension String {
    /// ASCII case-insensitive comparison, the rule for header names.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let left = utf8
        let right = other.utf8
        guard left.count == right.count else { return false }
        // Native strings are contiguous: compare their bytes in place rather than through two UTF-8 iterators.
        let contiguous = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                for index in 0..<leftBytes.count
                where Self.lowercasedASCII(leftBytes[index]) != Self.lowercasedASCII(rightBytes[index]) {
                    return false
                }
                return true
            }
        }
        if let contiguous, let equal = contiguous { return equal }
        return zip(left, right).allSatisfy { Self.lowercasedASCII($0) == Self.lowercasedASCII($1) }
    }

    private static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}

/// One HTTP/1.1 request: the method, the target (path and query), headers and the Content-Length body.
public struct HTTPRequest: Hashable, Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The request target as sent: the path and, after `?`, the query (`/characteristics?id=1.10`).
    public var target: String
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body, exactly Content-Length bytes.
    public var body: [UInt8]

    /// Makes a request.
    public init(method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The target up to the `?`.
    public var path: String { String(pathAndQuery.path) }

    /// The target after the `?`, or `nil` when there is none.
    public var query: String? { pathAndQuery.query.map(String.init) }

    /// The target split at its first `?` without copying: the path, and the query when there is a `?`.
    public var pathAndQuery: (path: Substring, query: Substring?) {
        let utf8 = target.utf8
        // In ASCII every byte is a character, so the first `?` byte is the first `?` character.
        let question: String.Index?
        if utf8.allSatisfy({ $0 < 0x80 }) {
            question = utf8.firstIndex(of: UInt8(ascii: "?"))
        } else {
            question = target.firstIndex(of: "?")
        }
        guard let question else { return (target[...], nil) }
        return (target[..<question], target[target.index(after: question)...])
    }
}

/// Whether a response line is an HTTP response or a HAP event (`EVENT/1.0`, hap-protocol.md §7.8).
public enum HTTPResponseKind: Hashable, Sendable {
    /// `HTTP/1.1`: the answer to a request.
    case response
    /// `EVENT/1.0`: an unsolicited event notification.
    case event

    /// The protocol token on the status line.
    public var protocolToken: String {
        switch self {
        case .response: "HTTP/1.1"
        case .event: "EVENT/1.0"
        }
    }
}

/// One HTTP response or HAP event: status line, headers and the Content-Length body.
public struct HTTPResponse: Hashable, Sendable {
    /// A response to a request, or an event.
    public var kind: HTTPResponseKind
    /// The status and reason phrase.
    public var status: HTTPResponseStatus
    /// The header fields, without Content-Length (the serialiser writes it).
    public var headers: HTTPHeaders
    /// The body.
    public var body: [UInt8]

    /// Makes a response.
    public init(
        kind: HTTPResponseKind = .response,
        status: HTTPResponseStatus,
        headers: HTTPHeaders = [:],
        body: [UInt8] = []
    ) {
        self.kind = kind
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Makes a response with a body of the given content type.
    public init(status: HTTPResponseStatus, contentType: HTTPContentType, body: [UInt8]) {
        self.init(status: status, headers: ["Content-Type": contentType.rawValue], body: body)
    }

    /// Makes an `EVENT/1.0 200 OK` with a hap+json body (hap-protocol.md §7.8).
    public static func event(body: [UInt8]) -> HTTPResponse {
        HTTPResponse(
            kind: .event,
            status: .ok,
            headers: ["Content-Type": HTTPContentType.hapJSON.rawValue],
            body: body
        )
    }
}

/// The content types HAP uses; peers/README.md quirk 8.
public enum HTTPContentType: String, Sendable {
    /// `application/hap+json`: characteristics, accessories, status bodies.
    case hapJSON = "application/hap+json"
    /// `application/pairing+tlv8`: `/pair-setup`, `/pair-verify`, `/pairings`.
    case pairingTLV8 = "application/pairing+tlv8"
}
