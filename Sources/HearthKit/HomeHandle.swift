import Commands
import Foundation
import HearthAPI

extension HearthClient {
    /// `POST /v1/homes/{homeID}/commands`: reads `text` against the home (`room` is the speaker's room) and,
    /// unless `dryRun`, carries it out with the caller's rights; answers what it meant and how it went.
    public func perform(
        _ text: String,
        inHome homeID: UUID,
        room: String? = nil,
        dryRun: Bool = false
    ) async throws(HearthError) -> CommandResult {
        try await request(
            Endpoints.performCommand,
            homeID,
            body: CommandBody(text: text, room: room, dryRun: dryRun ? true : nil)
        )
    }

    /// A handle on the home `homeID` for calls about it, such as `home.perform("turn on the lights")`.
    public func handle(forHome homeID: UUID) -> HomeHandle {
        HomeHandle(client: self, homeID: homeID)
    }
}

extension HomeManager {
    /// A handle on the home `homeID` through this manager's client: `home.perform("good night")`.
    public nonisolated func handle(forHome homeID: UUID) -> HomeHandle {
        HomeHandle(client: client, homeID: homeID)
    }
}

/// One home of the hub, for app code that speaks to it: `try await home.perform("turn on the kitchen lights")`.
public struct HomeHandle: Sendable {
    /// The client the calls go through.
    public let client: HearthClient
    /// The home's id.
    public let homeID: UUID

    /// Makes a handle on the home `homeID` through `client`.
    public init(client: HearthClient, homeID: UUID) {
        self.client = client
        self.homeID = homeID
    }

    /// Reads `text` against the home (`room` is the speaker's room) and, unless `dryRun`, carries it out with the
    /// caller's rights: `POST /v1/homes/{homeID}/commands` (docs/commands.md).
    public func perform(
        _ text: String,
        room: String? = nil,
        dryRun: Bool = false
    ) async throws(HearthError)
        -> CommandResult
    {
        try await client.perform(text, inHome: homeID, room: room, dryRun: dryRun)
    }
}

// The types of what `home.perform("…")` answers, by their Commands names, for apps that import HearthKit alone.
// (Commands is not re-exported whole: its `CommandConfiguration` would clash with ArgumentParser's.)

/// What a sentence meant against a home and how it went (docs/commands.md).
public typealias CommandResult = Commands.CommandResult
/// What a sentence turned out to be: `control`, `query`, `scene`, `configure` or a refusal.
public typealias CommandOutcome = Commands.CommandOutcome
/// One write a control sentence asks for.
public typealias CommandAction = Commands.CommandAction
/// How one write went when the hub carried it out.
public typealias CommandActionResult = Commands.CommandActionResult
/// One thing an ambiguous name could mean.
public typealias CommandCandidate = Commands.CommandCandidate
/// Which words of a sentence matched what.
public typealias CommandMatch = Commands.CommandMatch
/// A question and its answer.
public typealias CommandQuery = Commands.CommandQuery
/// A scene a sentence runs.
public typealias CommandScene = Commands.CommandScene
/// One service a sentence is about.
public typealias CommandTarget = Commands.CommandTarget
/// What kind of question a query is.
public typealias QueryKind = Commands.QueryKind
/// A configuration change a sentence asks for.
public typealias CommandChange = Commands.CommandConfiguration
