import Foundation
import HAP
import HAPTypes

/// The messages of a connection: hap+json and pairing TLV8 requests as bytes, and the status in an answer.
extension AccessoryConnection {
    /// The parts of a hap+json request.
    struct JSONRequest {
        var method: HTTPMethod
        var path: String
        var readQuery: CharacteristicReadQuery?
        var body: [UInt8]
    }

    /// Appends the bytes of a hap+json request to `bytes`: the target is `path`, then `?` and the query of
    /// `readQuery` when given; `headerLines` are the connection's `Host` and `Content-Type` lines.
    static func encodeJSON(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery?,
        body: [UInt8],
        headerLines: [UInt8],
        into bytes: inout [UInt8]
    ) {
        HTTPRequest.encode(
            method: method,
            target: { target in
                target.append(contentsOf: path.utf8)
                if let readQuery {
                    target.append(UInt8(ascii: "?"))
                    readQuery.appendQuery(to: &target)
                }
            },
            headerLines: headerLines,
            body: body,
            into: &bytes
        )
    }

    /// A POST of a pairing TLV8 body, with the headers iOS sends in its order (hap-protocol.md §7.9).
    nonisolated func tlv8Request(_ path: String, _ body: TLV8) -> HTTPRequest {
        HTTPRequest(
            method: .post,
            target: path,
            headers: ["Host": hostHeader, "Content-Type": HTTPContentType.pairingTLV8.rawValue],
            body: body.encoded()
        )
    }

    static func decodeTLV8(_ response: HTTPResponse) throws(HAPControllerError) -> TLV8 {
        guard response.status.code == 200 else {
            throw .unexpectedHTTPStatus(code: response.status.code, status: hapStatus(in: response.body))
        }
        do {
            return try TLV8(decoding: response.body)
        } catch {
            throw .malformedBody
        }
    }

    /// The `"status"` of a JSON body such as `{"status":-70401}`, if there is one.
    static func hapStatus(in body: [UInt8]) -> HAPStatus? {
        struct StatusBody: Decodable {
            var status: Int
        }
        guard let decoded = try? JSONDecoder().decode(StatusBody.self, from: Data(body)) else { return nil }
        return HAPStatus(code: decoded.status)
    }

    /// `duration` in whole nanoseconds, for NIO.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
