import HTTPTypes
import Hub
import Hummingbird

/// Holds back the answer to a request that may have changed the home until its change is synced to disk.
///
/// The hub writes a change (safe from a kill) and sends its events at once; the sync that makes it survive a
/// power cut runs on the home store's thread, shared by every request waiting for one. A failed request changed
/// nothing and is answered at once, and so is a read.
struct DurableAnswerMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The hub whose changes are synced.
    let hub: Hub

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let response = try await next(request, context)
        guard request.method != .get, request.method != .head, (200..<300).contains(response.status.code) else {
            return response
        }
        try await hub.durable()
        return response
    }
}
