import Foundation
import HAPTypes
import HomeGraph
import HomeStore

// Sentences a person reads for each error: the field or object concerned and what is allowed, never a Swift enum.
// The API's error bodies and the automation's decision records both use them.

extension HubError {
    /// A sentence for a hub error that names the object or value concerned.
    public var sentence: String {
        switch self {
        case .rejected(let graphError): graphError.sentence
        case .invalidWrite(let index, let count, let graphError):
            count > 1 ? "writes[\(index)]: " + graphError.sentence : graphError.sentence
        case .notPermitted(let reason): "not permitted: \(reason)"
        case .homeNotFound(let id): "no home with id \(id.uuidString)"
        case .storage(let storeError): storeError.sentence
        case .accessory(let controllerError): "the accessory failed: \(controllerError)"
        case .accessoryNotFound(let deviceID): "no accessory with device id \(deviceID) is known"
        case .stopped: "the hub is shutting down"
        case .invalidRequest(let reason): reason
        case .internalError(let reason): "the hub failed: \(reason)"
        case .conflict(let reason): reason
        }
    }
}

extension HomeGraphError {
    /// A sentence for a refusal of the home graph.
    public var sentence: String {
        switch self {
        case .notFound(let kind, let id): "no \(Self.words(kind.rawValue)) with id \(id.uuidString)"
        case .nameTaken(let name, let existing):
            "the name '\(name)' is taken by the \(Self.words(existing.kind.rawValue)) \(existing.id.uuidString): "
                + (existing.kind == .home ? "home names are unique" : "names are unique within a home")
        case .invalidName(_, let problem): problem.sentence
        case .idTaken(let reference):
            "the id \(reference.id.uuidString) is taken by a \(Self.words(reference.kind.rawValue))"
        case .invalidValue(let valueError, let type):
            valueError.message(naming: ValueError.displayName(of: type))
        case .roomForEntireHome(let id): "the room for the entire home (\(id.uuidString)) cannot be removed or zoned"
        case .invalidLocation(let location):
            "field 'latitude'/'longitude': \(location.latitude), \(location.longitude) is not on Earth"
        case .invalidTimeZone(let identifier): "field 'timeZone': no time zone is called '\(Self.quoted(identifier))'"
        case .ownerExists(let id): "the home already has an owner (\(id.uuidString))"
        case .builtInActionSetExists(let kind, let existing):
            "field 'kind': the home already has a '\(kind.rawValue)' action set (\(existing.uuidString))"
        case .builtInActionSetNotRemovable(_, let name, _):
            "the scene '\(name)' is built in, and built-in scenes cannot be removed; rename it or change its actions"
        case .duplicateAction(let id): "field 'actions': two actions write characteristic \(id.uuidString)"
        case .invalidBridge(let id): "the accessory cannot sit behind bridge \(id.uuidString)"
        case .invalidTrigger(let field, let problem): "field '\(field)': \(problem)"
        case .invalidPresence(let problem): problem
        case .outOfRange(let field, let problem): "field '\(field)': \(problem)"
        }
    }
}

extension HomeGraphError {
    /// Text a client sent as a sentence quotes it: control and bidi characters as `\u{…}`, at most 64 characters.
    static func quoted(_ text: String) -> String {
        var result = ""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            guard count < 64 else { return result + "…" }
            let isBidi = (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            result +=
                scalar.properties.generalCategory == .control || isBidi
                ? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" : String(scalar)
        }
        return result
    }
}

extension HomeStoreError {
    /// A sentence for a failure of the home store; it never holds a key or a sealed payload.
    public var sentence: String {
        switch self {
        case .stateFolder(let path, let code):
            "the state folder \(path) could not be used (\(String(cString: strerror(code))))"
        case .invalidDeviceKey(let path): "the device key \(path) is not 32 bytes"
        case .deviceKeyNotWritten: "a new device key could not be written"
        case .database(_, let message): "the home database failed: \(message)"
        case .newerSchema: "the home database was written by a newer Hearth"
        case .sealFailed(let table, let sequence):
            "row \(sequence) of the home database's \(table) table does not open under the device key"
        case .unencodable: "the change could not be written (a value that JSON cannot hold)"
        case .undecodable(let table, let sequence):
            "row \(sequence) of the home database's \(table) table is unreadable"
        case .missingOperation(let expected, let found):
            "the home database's log misses change \(expected) (the next is \(found))"
        case .replayFailed(let sequence, let graphError):
            "change \(sequence) of the home database could not be replayed: \(graphError.sentence)"
        case .notPrivate(let reason): "the state folder cannot be kept private: \(reason)"
        case .closed: "the home store is closed"
        case .syncFailed(let code):
            "the home database could not be synced to disk (\(String(cString: strerror(code))))"
        }
    }
}

extension HomeGraphError {
    /// A kind of object in words, for sentences: "actionSet" → "action set".
    public static func words(_ kind: String) -> String {
        var text = ""
        for character in kind {
            if character.isUppercase, !text.isEmpty { text += " " }
            text += character.lowercased()
        }
        return text
    }
}
