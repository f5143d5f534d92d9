import Foundation
import HTTPTypes
import HearthAPI
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

    /// Reads `data` as `T`, strictly.
    static func decode<T: Codable>(_ type: T.Type, from data: Data) throws(APIError) -> T {
        guard !data.isEmpty else { throw .invalidRequest("a JSON body is required") }
        let original: Any
        do {
            original = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
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
        // Fields the type does not know vanish when it is written back; any such field is refused.
        if let encoded = try? JSONEncoder.api.encode(value),
            let written = try? JSONSerialization.jsonObject(with: encoded, options: [.fragmentsAllowed]),
            let unknown = unknownField(in: original, comparedWith: written, path: "")
        {
            throw .invalidRequest("field '\(unknown)' is not known here")
        }
        return value
    }

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
            return path.isEmpty
                ? "the body is not valid: \(context.debugDescription)"
                : "field '\(path)' is not valid: \(context.debugDescription)"
        @unknown default:
            return "the body could not be read"
        }
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
        default: "of type \(type)"
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
