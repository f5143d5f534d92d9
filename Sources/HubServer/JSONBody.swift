import Foundation
import HTTPTypes
import HearthAPI
import HomeGraph
import Hummingbird
import NIOCore

/// Strict JSON for request bodies (unknown fields are refused, errors name the field) and JSON responses.
enum JSONBody {
    /// The largest request body accepted, in bytes.
    static let maximumSize = 256 * 1024

    /// Reads the body of `request` as `T`, refusing bodies that are too large, malformed or have unknown fields.
    static func decode<T: Codable>(_ type: T.Type, from request: Request) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maximumSize)
        } catch {
            throw APIError(
                .contentTooLarge,
                code: "bodyTooLarge",
                message: "the body is larger than \(maximumSize) bytes, the most a request may send"
            )
        }
        return try decode(type, from: Data(buffer.readableBytesView))
    }

    /// Reads the body of `request` as a home file: up to `HomeFile.maximumSize` (a home of a thousand accessories
    /// is far below it), refused with the sentence of `HomeFileError`.
    static func homeFile(from request: Request) async throws -> HomeFile {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: HomeFile.maximumSize)
        } catch {
            throw APIError(
                .contentTooLarge,
                code: "bodyTooLarge",
                message: "the home file is larger than \(HomeFile.maximumSize >> 20) MiB, the most an import may send"
            )
        }
        do {
            return try HomeFile.decode(Data(buffer.readableBytesView))
        } catch {
            throw APIError.invalidRequest(error.sentence)
        }
    }

    /// Reads `data` as `T`, strictly.
    static func decode<T: Codable>(_ type: T.Type, from data: Data) throws(APIError) -> T {
        guard !data.isEmpty else { throw .invalidRequest("a JSON body is required") }
        let original: Any
        do {
            original = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            // JSON has no limit on numbers, but a number beyond a double's range cannot be read: say that.
            if let number = outOfRangeNumber(in: data) {
                let field = number.field.map { "field '\($0)': " } ?? ""
                throw .invalidRequest("\(field)the number \(number.text) is out of range")
            }
            throw .invalidRequest("the body is not valid JSON")
        }
        let value: T
        do {
            value = try JSONDecoder.api.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw .invalidRequest(describe(error))
        } catch {
            throw .invalidRequest("the body could not be read")
        }
        // Fields the type does not know vanish when it is written back; any such field is refused. A flat body
        // whose fields are all known plain values has none, and is not written back to find out.
        if let flat = T.self as? any FlatBody.Type, let object = original as? [String: Any],
            object.allSatisfy({ key, field in
                flat.fieldNames.contains(key) && !(field is [String: Any]) && !(field is [Any])
            })
        {
            return value
        }
        if let encoded = try? JSONEncoder.api.encode(value),
            let written = try? JSONSerialization.jsonObject(with: encoded, options: [.fragmentsAllowed]),
            let unknown = unknownField(in: original, comparedWith: written, path: "")
        {
            throw .invalidRequest("field '\(unknown)' is not known here")
        }
        return value
    }

    /// The first number in `data` (outside strings) too large for a double, with the key of the field it is in.
    ///
    /// Only called for a body that failed to parse, so the scan costs nothing on the common path.
    static func outOfRangeNumber(in data: Data) -> (field: String?, text: String)? {
        let bytes = [UInt8](data)
        var index = 0
        var lastString: String?
        var key: String?
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                lastString = String(decoding: bytes[(index + 1)..<min(end, bytes.count)], as: UTF8.self)
                index = end + 1
            case UInt8(ascii: ":"):
                key = lastString
                index += 1
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = index + 1
                while end < bytes.count, Self.numberBytes.contains(bytes[end]) { end += 1 }
                let text = String(decoding: bytes[index..<end], as: UTF8.self)
                if let number = Double(text), number.isInfinite {
                    return (key, text.count > 40 ? String(text.prefix(40)) + "…" : text)
                }
                index = end
            default:
                index += 1
            }
        }
        return nil
    }

    private static let numberBytes = Set("0123456789+-.eE".utf8)

    /// The path of the first field of `original` missing from `written`, or `nil`.
    static func unknownField(in original: Any, comparedWith written: Any, path: String) -> String? {
        if let object = original as? [String: Any] {
            let writtenObject = written as? [String: Any] ?? [:]
            for key in object.keys.sorted() {
                let fieldPath = path.isEmpty ? key : "\(path).\(key)"
                guard let writtenValue = writtenObject[key] else {
                    if object[key] is NSNull { continue }
                    return fieldPath
                }
                if let value = object[key],
                    let found = unknownField(in: value, comparedWith: writtenValue, path: fieldPath)
                {
                    return found
                }
            }
        } else if let array = original as? [Any], let writtenArray = written as? [Any] {
            for (index, pair) in zip(array, writtenArray).enumerated() {
                if let found = unknownField(in: pair.0, comparedWith: pair.1, path: "\(path)[\(index)]") {
                    return found
                }
            }
        }
        return nil
    }

    /// A sentence that names the field a decoding error is about.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "field '\(fieldPath(context.codingPath + [key]))' is required"
        case .typeMismatch(let type, let context):
            return "field '\(fieldPath(context.codingPath))' must be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "field '\(fieldPath(context.codingPath))' must be \(typeName(type)), not null"
        case .dataCorrupted(let context):
            let path = fieldPath(context.codingPath)
            let reason = reason(context.debugDescription)
            return path.isEmpty ? "the body is not valid: \(reason)" : "field '\(path)' is not valid: \(reason)"
        @unknown default:
            return "the body could not be read"
        }
    }

    /// The decoder's explanation in our words where Foundation's names a Swift type ("Cannot initialize UserRole
    /// from invalid String value …").
    static func reason(_ debugDescription: String) -> String {
        if debugDescription.hasPrefix("Cannot initialize") { return "it is not one of the allowed values" }
        if debugDescription.contains("UUID") { return "it must be an id (a UUID such as 0A1B2C3D-…)" }
        if debugDescription.contains("date") || debugDescription.contains("Date") {
            return "it must be a date and time such as 2026-01-31T07:00:00Z"
        }
        return debugDescription
    }

    static func fieldPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "(body)" : text
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Double.Type, is Float.Type: "a number"
        case is Int.Type, is Int64.Type, is UInt64.Type, is UInt.Type: "an integer"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        case is UUID.Type: "an id (a UUID string)"
        case is Date.Type: "a date and time"
        default: "a value of another kind"
        }
    }

    /// A JSON response with `status`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder.api.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// A request body of one level that always writes every field it has: the strict check of `JSONBody.decode` needs
/// only its field names when the request's fields are plain values (no object or array).
protocol FlatBody {
    /// Every field of the body; each is written whenever the body is encoded.
    static var fieldNames: Set<String> { get }
}

extension WriteValueBody: FlatBody {
    static var fieldNames: Set<String> { ["value"] }
}
