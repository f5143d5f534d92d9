import Foundation
import HAPTypes
import HomeGraph

/// Who speaks and where: what a sentence is read against besides the home.
public struct CommandContext: Sendable, Equatable {
    /// The name of the room the asking device is in ("in here", "turn off the light"), if known.
    public var room: String?
    /// The speaker's role in the home: shared users control but never configure.
    public var role: UserRole

    /// Makes a context; an owner with no room unless told otherwise.
    public init(room: String? = nil, role: UserRole = .owner) {
        self.room = room
        self.role = role
    }
}

/// Plain language against one home: the name index, built once per version of the home's structure, and the
/// interpreter that reads a sentence into a ``CommandResult``. Pure: no I/O, no clock.
public struct CommandEngine: Sendable {
    /// The home the index was built from (its values are read from the home given to ``interpret(_:context:home:)``).
    public let home: Home

    /// Builds the name index of `home` with the catalog's types and the language's words.
    public init(home: Home, catalog: TypeCatalog) {
        self.home = home
    }

    /// What `text` means in the home, with current values read from `home` (the indexed home when `nil`).
    public func interpret(
        _ text: String,
        context: CommandContext = CommandContext(),
        home: Home? = nil
    )
        -> CommandResult
    {
        CommandResult(text: text, outcome: .notUnderstood, message: "Sorry, I didn't understand that.")
    }
}
