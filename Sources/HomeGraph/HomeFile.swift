import Foundation

/// A home written to a file: what `hearth home export` writes and `hearth home import` and `hearth say --home` read
/// (docs/home-file.md).
public struct HomeFile: Sendable, Equatable, Codable {
    /// The value of `format` in every home file.
    public static let formatName = "hearth.home"
    /// The version of the format this code writes and reads.
    public static let currentVersion = 1
    /// The largest file read: a home of a thousand accessories is far below it.
    public static let maximumSize = 64 << 20

    /// Always ``formatName``.
    public var format: String
    /// The format's version.
    public var version: Int
    /// When it was written.
    public var exportedAt: Date
    /// The home, as the API returns it.
    public var home: Home

    /// A file of `home`, written now unless told otherwise.
    public init(home: Home, exportedAt: Date = Date()) {
        self.format = Self.formatName
        self.version = Self.currentVersion
        self.exportedAt = exportedAt
        self.home = home
    }

    /// The file's bytes: JSON with sorted keys and ISO 8601 dates.
    public func encoded() throws(HomeFileError) -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        do { return try encoder.encode(self) } catch { throw .unreadable("it could not be written as JSON") }
    }

    /// The home file in `data`, or an error a person can act on.
    public static func decode(_ data: Data) throws(HomeFileError) -> HomeFile {
        guard data.count <= maximumSize else { throw .unreadable("it is larger than \(maximumSize >> 20) MiB") }
        struct Header: Decodable {
            var format: String?
            var version: Int?
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let header: Header
        do { header = try decoder.decode(Header.self, from: data) } catch {
            throw .unreadable("it is not a JSON object")
        }
        guard header.format == formatName else { throw .notAHomeFile }
        guard let version = header.version, version == currentVersion else {
            throw .unsupportedVersion(header.version)
        }
        do { return try decoder.decode(HomeFile.self, from: data) } catch let error as DecodingError {
            throw .unreadable(Self.describe(error))
        } catch {
            throw .unreadable("its home could not be read")
        }
    }

    /// Where a decoding error is, in words: the field path and what was wrong.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let context):
            let at = path(context.codingPath + [key])
            return "field '\(at)' is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "field '\(path(context.codingPath))' has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "it is not valid JSON" : "field '\(path(context.codingPath))' has a value that cannot be used"
        @unknown default:
            return "its home could not be read"
        }
    }
}

/// Why a home file cannot be read.
public enum HomeFileError: Error, Sendable, Equatable {
    /// The JSON has no `format` of ``HomeFile/formatName``.
    case notAHomeFile
    /// A version this code does not read.
    case unsupportedVersion(Int?)
    /// It could not be read; the text says where.
    case unreadable(String)

    /// The error as a sentence for people.
    public var sentence: String {
        switch self {
        case .notAHomeFile:
            "This is not a Hearth home file (its field 'format' is not \"\(HomeFile.formatName)\")"
        case .unsupportedVersion(let version):
            "This home file has version \(version.map(String.init) ?? "none"); this Hearth reads version \(HomeFile.currentVersion)"
        case .unreadable(let reason):
            "This home file cannot be read: \(reason)"
        }
    }
}
