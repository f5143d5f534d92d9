import HAPTypes

/// Writing messages as bytes: a status line with a reason phrase, the headers in order, and Content-Length.
///
/// peers/README.md quirks 1–5 and 8: aiohomekit needs the reason phrase and Content-Length on every message with a
/// body; a 204 carries neither headers about a body nor a body.
extension HTTPResponse {
    /// The response or event as bytes, ready to send (or to seal on an encrypted session).
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// Appends the response or event as bytes to `bytes`, the same bytes as `encoded()`, without a new array.
    public func encode(into bytes: inout [UInt8]) {
        let hasNoBody = status.code == 204 || status.code == 304 || status.code < 200
        bytes.reserveCapacity(bytes.count + 64 + (hasNoBody ? 0 : body.count))
        switch kind {
        case .response: bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        case .event: bytes.append(contentsOf: "EVENT/1.0 ".utf8)
        }
        Self.appendDecimal(status.code, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: status.reasonPhrase.utf8)
        bytes.append(contentsOf: "\r\n".utf8)
        for field in headers where !field.name.caseInsensitiveEquals("Content-Length") {
            if hasNoBody, field.name.caseInsensitiveEquals("Content-Type") { continue }
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: field.value.utf8)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        if !hasNoBody {
            bytes.append(contentsOf: "Content-Length: ".utf8)
            Self.appendDecimal(body.count, to: &bytes)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        bytes.append(contentsOf: "\r\n".utf8)
        if !hasNoBody { bytes.append(contentsOf: body) }
    }

    /// Appends `value` in decimal, as `String(value)` writes it.
    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        guard value >= 0 else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        appendDecimal(UInt64(value), to: &bytes)
    }

    /// Appends `value` in decimal, as `String(value)` writes it.
    static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        DecimalText.append(value, to: &bytes)
    }
}

extension HTTPRequest {
    /// The request as bytes; Content-Length is written for every PUT and POST and for any body.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96 + target.utf8.count + body.count)
        Self.encode(
            method: method,
            target: { $0.append(contentsOf: target.utf8) },
            headerLines: headers.encodedLines,
            body: body,
            into: &bytes
        )
        return bytes
    }

    /// Appends a request made of these parts to `bytes`: the bytes ``encoded()`` gives for the same request.
    ///
    /// For a client that sends the same headers every time: `target` writes the path and query, and `headerLines`
    /// are the fields already written as `Name: value` lines (see ``HTTPHeaders/encodedLines``).
    public static func encode(
        method: HTTPMethod,
        target: (inout [UInt8]) -> Void,
        headerLines: [UInt8],
        body: [UInt8],
        into bytes: inout [UInt8]
    ) {
        bytes.append(contentsOf: method.rawValue.utf8)
        bytes.append(UInt8(ascii: " "))
        target(&bytes)
        bytes.append(contentsOf: " HTTP/1.1\r\n".utf8)
        bytes.append(contentsOf: headerLines)
        if !body.isEmpty || method == .put || method == .post {
            bytes.append(contentsOf: "Content-Length: ".utf8)
            HTTPResponse.appendDecimal(body.count, to: &bytes)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        bytes.append(contentsOf: "\r\n".utf8)
        bytes.append(contentsOf: body)
    }
}

extension HTTPHeaders {
    /// The fields as header lines, `Name: value` and CR LF each, in order; Content-Length is left out (a request's
    /// or response's writer adds its own).
    public var encodedLines: [UInt8] {
        var bytes: [UInt8] = []
        for field in fields where !field.name.caseInsensitiveEquals("Content-Length") {
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: field.value.utf8)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        return bytes
    }
}
