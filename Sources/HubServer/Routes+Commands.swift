import Foundation
import HearthAPI
import Hub

extension Routes {
    /// Plain language: a sentence read against the home and carried out with the caller's rights.
    func addCommandRoutes() {
        add(Endpoints.performCommand) { call, body in
            let homeID = try call.homeID
            do throws(HubError) {
                return try await call.server.hub.perform(
                    command: body.text,
                    home: homeID,
                    room: body.room,
                    dryRun: body.dryRun ?? false,
                    as: call.caller
                )
            } catch {
                throw APIError(error)
            }
        }
    }
}
