import Crypto
import Foundation
import HAP
import HTTPTypes
import Hummingbird
import NIOCore
import SetupQR

/// The page's files as the server answers them: `GET /` is `index.html`, `GET /app/<name>` the others in
/// `Sources/HubServer/Web`, embedded in the binary by `scripts/embed-web.sh` (`WebEmbedded/`: one generated file per
/// page file, and the list `embedded` in `WebFiles+Embedded.swift`).
struct WebFiles: Sendable {
    /// One file, ready to send.
    struct File: Sendable {
        /// Its `Content-Type`.
        let contentType: String
        /// Its bytes.
        let identity: ByteBuffer
        /// Its bytes compressed with gzip at build time, or `nil` when that saves nothing.
        let gzip: ByteBuffer?
        /// The hex start of the SHA-256 of its bytes, which the two representations' ETags are made from.
        let digest: String

        /// The strong ETag of the plain or the gzip representation.
        func etag(gzip: Bool) -> String { gzip ? "\"\(digest)-gz\"" : "\"\(digest)\"" }
    }

    /// The files by request path.
    let files: [String: File]

    /// The embedded files.
    static let shared = WebFiles(embedded: embedded)

    /// The files from `embedded` (name, text, gzip as base64).
    init(embedded: [(name: String, text: String, gzipBase64: String)]) {
        var files: [String: File] = [:]
        for (name, text, gzipBase64) in embedded {
            let bytes = Array(text.utf8)
            let digest = SHA256.hash(data: bytes).prefix(12).map { String(format: "%02x", $0) }.joined()
            let gzip = Data(base64Encoded: gzipBase64).flatMap { $0.count < bytes.count ? ByteBuffer(bytes: $0) : nil }
            let file = File(
                contentType: Self.contentType(of: name),
                identity: ByteBuffer(bytes: bytes),
                gzip: gzip,
                digest: digest
            )
            files[name == "index.html" ? "/" : "/app/" + name] = file
        }
        self.files = files
    }

    /// The `Content-Type` of a file by its extension.
    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// The headers on the page and its files: a content security policy with no inline script, no sniffing, no
    /// referrer.
    static let securityHeaders: [(HTTPField.Name, String)] = [
        (
            .contentSecurityPolicy,
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        ),
        (HTTPField.Name.literal("X-Content-Type-Options"), "nosniff"),
        (HTTPField.Name.literal("Referrer-Policy"), "no-referrer"),
    ]

    /// Whether a request's `Accept-Encoding` takes gzip (`gzip` or `*` with a quality above 0).
    static func acceptsGzip(_ request: Request) -> Bool {
        for header in request.headers[values: .acceptEncoding] {
            for item in header.split(separator: ",") {
                let parts = item.split(separator: ";").map { $0.trimmingWhitespace().lowercased() }
                guard let coding = parts.first, coding == "gzip" || coding == "*" else { continue }
                let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
                return (quality ?? 1) > 0
            }
        }
        return false
    }

    /// The answer to `GET` of a file: `304` when `If-None-Match` names either of its ETags, else its bytes, gzipped
    /// when the client takes it.
    func response(to request: Request, for file: File) -> Response {
        let gzip = file.gzip != nil && Self.acceptsGzip(request)
        var headers: HTTPFields = [:]
        headers[.eTag] = file.etag(gzip: gzip)
        headers[.cacheControl] = "no-cache"
        headers[.vary] = "Accept-Encoding"
        for (name, value) in Self.securityHeaders { headers[name] = value }
        let tags = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }.map {
            let tag = $0.trimmingWhitespace()
            return tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
        }
        if tags.contains(where: { $0 == "*" || $0 == file.etag(gzip: false) || $0 == file.etag(gzip: true) }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = file.contentType
        let body: ByteBuffer
        if gzip, let compressed = file.gzip {
            headers[.contentEncoding] = "gzip"
            body = compressed
        } else {
            body = file.identity
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}

extension HubServer {
    /// The page's files as embedded in the binary (name in `Sources/HubServer/Web`, text, gzip), so a test can
    /// check them against the repository.
    public static var embeddedWebFiles: [(name: String, text: String, gzip: [UInt8])] {
        WebFiles.embedded.map { ($0.name, $0.text, Array(Data(base64Encoded: $0.gzipBase64) ?? Data())) }
    }
}

/// Answers `GET /` and `GET /app/<file>` with the page's embedded files, before the API's routes (which are all
/// under `/v1`); every other request goes on to them.
struct WebPageMiddleware<Context: RequestContext>: RouterMiddleware {
    let files = WebFiles.shared

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.method == .get, request.uri.path == "/app/qr.svg" {
            return WebFiles.qrResponse(text: request.uri.queryParameters["text"].map(String.init) ?? "")
        }
        guard request.method == .get, let file = files.files[request.uri.path] else {
            return try await next(request, context)
        }
        return files.response(to: request, for: file)
    }
}

extension WebFiles {
    /// The QR code of `text` as SVG (an invite code on the People page), or `400` when it is empty, longer than
    /// 200 characters, or does not fit in a QR code.
    static func qrResponse(text: String) -> Response {
        var headers: HTTPFields = [:]
        headers[.cacheControl] = "no-store"
        for (name, value) in securityHeaders { headers[name] = value }
        guard !text.isEmpty, text.count <= 200, let code = try? QRCode(encoding: text) else {
            headers[.contentType] = "text/plain; charset=utf-8"
            let message = "The text to encode must have 1 to 200 characters that fit in a QR code."
            return Response(status: .badRequest, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message)))
        }
        headers[.contentType] = "image/svg+xml"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: svg(of: code))))
    }

    /// A QR code as SVG: one path of unit squares, black on white, with a quiet zone of 4 modules.
    static func svg(of code: QRCode, quietZone: Int = 4) -> String {
        let side = code.size + 2 * quietZone
        var path = ""
        for y in 0..<code.size {
            for x in 0..<code.size where code[x, y] {
                path += "M\(x + quietZone) \(y + quietZone)h1v1h-1z"
            }
        }
        return
            ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \##(side) \##(side)" shape-rendering="crispEdges">"##
            + ##"<rect width="100%" height="100%" fill="#fff"/><path fill="#000" d="\##(path)"/></svg>"##
    }
}

extension HTTPField.Name {
    /// A header name from a literal of this source (letters and hyphens, always valid).
    static func literal(_ name: StaticString) -> HTTPField.Name {
        guard let field = HTTPField.Name("\(name)") else { preconditionFailure("invalid header name \(name)") }
        return field
    }
}
