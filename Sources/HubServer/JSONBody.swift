import Foundation
import HAPTypes
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
        let tooLarge = APIError(
            .contentTooLarge,
            code: "bodyTooLarge",
            message: "the body is larger than \(maximumSize) bytes, the most a request may send"
        )
        // A Content-Length over the limit is refused at once, not after waiting for bytes that will be refused.
        if declaredLength(of: request) ?? 0 > maximumSize { throw tooLarge }
        do {
            buffer = try await request.collectBody(upTo: maximumSize)
        } catch {
            throw tooLarge
        }
        return try decode(type, from: Data(buffer.readableBytesView))
    }

    /// Reads the body of `request` as a home file: up to `HomeFile.maximumSize` (a home of a thousand accessories
    /// is far below it), refused with the sentence of `HomeFileError`.
    static func homeFile(from request: Request) async throws -> HomeFile {
        var request = request
        let buffer: ByteBuffer
        let tooLarge = APIError(
            .contentTooLarge,
            code: "bodyTooLarge",
            message: "the home file is larger than \(HomeFile.maximumSize >> 20) MiB, the most an import may send"
        )
        if declaredLength(of: request) ?? 0 > HomeFile.maximumSize { throw tooLarge }
        do {
            buffer = try await request.collectBody(upTo: HomeFile.maximumSize)
        } catch {
            throw tooLarge
        }
        do {
            return try HomeFile.decode(Data(buffer.readableBytesView))
        } catch {
            throw APIError.invalidRequest(error.sentence)
        }
    }

    /// The request's `Content-Length`, when it has one that is a number.
    static func declaredLength(of request: Request) -> Int? {
        request.headers[.contentLength].flatMap { Int($0) }
    }

    /// Reads `data` as `T`, strictly.
    static func decode<T: Codable>(_ type: T.Type, from data: Data) throws(APIError) -> T {
        guard !data.isEmpty else { throw .invalidRequest("a JSON body is required") }
        if T.self == WriteValueBody.self, let body = directWriteValue(in: data) as? T { return body }
        let original: Any
        do {
            original = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            // JSON has no limit on numbers, but a number beyond a double's range cannot be read: say that.
            if let number = outOfRangeNumber(in: data) {
                let field = number.field.map { "field '\(APIError.shown($0, limit: 160))': " } ?? ""
                throw .invalidRequest("\(field)the number \(number.text) is out of range")
            }
            throw .invalidRequest("the body is not valid JSON")
        }
        let value: T
        do {
            value = try JSONDecoder.api.decode(T.self, from: data)
        } catch let error as DecodingError {
            // Foundation reports a decimal or overflowing number in an integer field as invalid JSON, with no path.
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
                let found = nonWholeNumber(in: original, decoding: T.self)
            {
                throw .invalidRequest(found)
            }
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
            throw .invalidRequest("field '\(APIError.shown(unknown, limit: 160))' is not known here")
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

    /// A step of a path into parsed JSON: an object's key or an array's index.
    enum PathStep {
        case key(String)
        case index(Int)
    }

    /// The ranges of the API's whole-number fields, by the field's last key, for the sentence that names one.
    static let wholeNumberRanges: [String: String] = [
        "catchUpSeconds": "0 to 86400", "count": "1 to 10000 (525600 for minutes)",
        "offsetSeconds": "-43200 to 43200", "seconds": "1 to 604800", "daysOfMonth": "1 to 31",
        "afterSeconds": "1 to 86400", "notFiredWithin": "1 to 2592000",
    ]

    /// The sentence for the first number in `original` that is not a whole number an integer can hold (1.5,
    /// 1e23) and that `T` refuses to decode, found by putting 0 in its place until the decoder takes the body.
    ///
    /// Only called for a body that failed to decode, so the search costs nothing on the common path.
    static func nonWholeNumber<T: Decodable>(in original: Any, decoding type: T.Type) -> String? {
        var candidates: [([PathStep], Double)] = []
        func collect(_ value: Any, _ path: [PathStep]) {
            if let object = value as? [String: Any] {
                for key in object.keys.sorted() { collect(object[key] as Any, path + [.key(key)]) }
            } else if let array = value as? [Any] {
                for (index, element) in array.enumerated() { collect(element, path + [.index(index)]) }
            } else if let number = value as? NSNumber, !(value is Bool), candidates.count < 64 {
                let double = number.doubleValue
                if double.rounded() != double || double.magnitude >= 0x1p63 { candidates.append((path, double)) }
            }
        }
        collect(original, [])
        for (path, number) in candidates {
            guard let data = try? JSONSerialization.data(withJSONObject: replacing(path, in: original), options: [])
            else { continue }
            do {
                _ = try JSONDecoder.api.decode(T.self, from: data)
            } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
                continue
            } catch {}
            var text = ""
            var lastKey = ""
            for step in path {
                switch step {
                case .key(let key):
                    text += text.isEmpty ? key : "." + key
                    lastKey = key
                case .index(let index): text += "[\(index)]"
                }
            }
            let range = wholeNumberRanges[lastKey].map { " from \($0)" } ?? ""
            let shownNumber = number.magnitude < 1e15 ? String(number) : String(format: "%g", number)
            return "field '\(APIError.shown(text, limit: 160))' must be a whole number\(range), not \(shownNumber)"
        }
        return nil
    }

    /// `value` with 0 at `path`.
    private static func replacing(_ path: [PathStep], in value: Any) -> Any {
        guard let step = path.first else { return 0 }
        let rest = Array(path.dropFirst())
        switch step {
        case .key(let key):
            guard var object = value as? [String: Any], let inner = object[key] else { return value }
            object[key] = replacing(rest, in: inner)
            return object
        case .index(let index):
            guard var array = value as? [Any], array.indices.contains(index) else { return value }
            array[index] = replacing(rest, in: array[index])
            return array
        }
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
        // Foundation's ISO 8601 date ("Expected date string to be ISO8601-formatted."); a local date and time
        // (a timer's fireDate) says its own form, which has no zone.
        if debugDescription.contains("ISO8601") {
            return "it must be a date and time such as 2026-01-31T07:00:00Z"
        }
        // The decoders' own sentences may quote what was sent.
        return APIError.shown(debugDescription, limit: 200)
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
        return text.isEmpty ? "(body)" : APIError.shown(text, limit: 160)
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
        case is TriggerEvent.Type:
            "an event: an object with one of the keys \(TriggerEvent.caseKeys.joined(separator: ", "))"
        case is Date.Type: "a date and time"
        default: "a value of another kind"
        }
    }

    /// The error body of an answer that could not be encoded.
    static let unwritableAnswer =
        #"{"error":{"code":"internalError","message":"the hub could not write its answer as JSON"}}"#

    /// A JSON response with `status`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let direct =
            (value as? WriteResults).flatMap(directJSON(of:)) ?? (value as? HomeResponse).flatMap(directJSON(of:))
        // An answer JSON cannot hold (a non-finite number) is a failure of the hub, never an empty 200.
        guard let data = direct ?? (try? JSONEncoder.api.encode(value)) else {
            return Response(
                status: .internalServerError,
                headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: Data(unwritableAnswer.utf8)))
            )
        }
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

/// The JSON of a single write, read and answered without Foundation's coders: the body of every tap on the page.
extension JSONBody {
    /// `{"value": V}` with V `true`, `false` or a whole number of up to 18 digits, as `JSONDecoder.api` reads it
    /// (the narrowest reading: a bool, else a signed integer); `nil` for anything else, which the strict decoder
    /// reads.
    static func directWriteValue(in data: Data) -> WriteValueBody? {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> WriteValueBody? in
            var index = 0
            func skipSpace() {
                while index < bytes.count {
                    switch bytes[index] {
                    case 0x20, 0x09, 0x0A, 0x0D: index += 1
                    default: return
                    }
                }
            }
            func take(_ text: StaticString) -> Bool {
                let count = text.utf8CodeUnitCount
                guard bytes.count - index >= count else { return false }
                for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
                index += count
                return true
            }
            skipSpace()
            guard take("{") else { return nil }
            skipSpace()
            guard take("\"value\"") else { return nil }
            skipSpace()
            guard take(":") else { return nil }
            skipSpace()
            let value: HAPValue
            if take("true") {
                value = .bool(true)
            } else if take("false") {
                value = .bool(false)
            } else {
                let start = index
                if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
                let digitsStart = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                let digits = index - digitsStart
                // JSON allows no leading zero; 18 digits always fit an Int64.
                guard digits > 0, digits <= 18, digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else {
                    return nil
                }
                guard let number = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else { return nil }
                guard number != 0 || digitsStart == start else { return nil }  // "-0": the decoder's to read
                value = .int(number)
            }
            skipSpace()
            guard take("}") else { return nil }
            skipSpace()
            return index == bytes.count ? WriteValueBody(value: value) : nil
        }
    }

    /// The answer of writes that all succeeded with a Boolean or whole-number value, byte for byte what
    /// `JSONEncoder.api` writes; `nil` for any other, which the encoder writes.
    static func directJSON(of results: WriteResults) -> Data? {
        var text = "{\"results\":["
        for (index, result) in results.results.enumerated() {
            guard result.error == nil, let valueText = result.value?.plainJSON else { return nil }
            if index > 0 { text += "," }
            text += "{\"characteristicID\":\"\(result.characteristicID.uuidString)\",\"value\":\(valueText)}"
        }
        text += "]}"
        return Data(text.utf8)
    }
}
