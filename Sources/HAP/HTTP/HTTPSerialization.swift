/// Writing messages as bytes: a status line with a reason phrase, the headers in order, and Content-Length.
///
/// peers/README.md quirks 1–5 and 8: aiohomekit needs the reason phrase and Content-Length on every message with a
/// body; a 204 carries neither headers about a body nor a body.
extension HTTPResponse {
    /// The response or event as bytes, ready to send (or to seal on an encrypted session).
    public func encoded() -> [UInt8] {
        var text = "\(kind.protocolToken) \(status.code) \(status.reasonPhrase)\r\n"
        let hasNoBody = status.code == 204 || status.code == 304 || status.code < 200
        for field in headers where !field.name.caseInsensitiveEquals("Content-Length") {
            if hasNoBody, field.name.caseInsensitiveEquals("Content-Type") { continue }
            text += "\(field.name): \(field.value)\r\n"
        }
        if !hasNoBody {
            text += "Content-Length: \(body.count)\r\n"
        }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if !hasNoBody { bytes += body }
        return bytes
    }
}

extension HTTPRequest {
    /// The request as bytes; Content-Length is written for every PUT and POST and for any body.
    public func encoded() -> [UInt8] {
        var text = "\(method.rawValue) \(target) HTTP/1.1\r\n"
        for field in headers where !field.name.caseInsensitiveEquals("Content-Length") {
            text += "\(field.name): \(field.value)\r\n"
        }
        if !body.isEmpty || method == .put || method == .post {
            text += "Content-Length: \(body.count)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8) + body
    }
}
