import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Guards one API connection: answers malformed or oversized HTTP with a status and closes, closes a connection
/// that sends no complete request head in time, and tells the connection's `ConnectionRecord` when it was active.
///
/// It sits right after NIO's HTTP decoder, so it sees the decoder's errors before anything else does. Hummingbird
/// neither answers them nor times out a connection before its first request head; this handler does both. It
/// leaves the pipeline when a request asks for a WebSocket upgrade (the frames that follow are not HTTP parts).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let record: ConnectionRecord
    private let headTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private let servesTLS: Bool
    private let logger: Logger
    private var headTimer: Scheduled<Void>?
    /// Armed while a request's head has come and its end has not, once a read leaves it unfinished.
    private var bodyTimer: Scheduled<Void>?
    private var awaitingEnd = false
    /// Requests whose answer has not ended: an error answer cannot be written while one is owed.
    private var unansweredRequests = 0
    private var closing = false

    /// Guards a connection; one with no complete request head `headTimeout` after it opened, or no whole body
    /// `bodyTimeout` after a head, is closed, and a WebSocket upgrade with the session cookie from another origin
    /// (`servesTLS` gives the scheme) gets 403.
    init(
        record: ConnectionRecord,
        headTimeout: TimeAmount,
        bodyTimeout: TimeAmount = .seconds(30),
        servesTLS: Bool = false,
        logger: Logger
    ) {
        self.record = record
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.servesTLS = servesTLS
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armHeadTimer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armHeadTimer(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        context.fireChannelInactive()
    }

    private func cancelTimers() {
        headTimer?.cancel()
        headTimer = nil
        bodyTimer?.cancel()
        bodyTimer = nil
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // A body sent a byte at a time never holds the connection (and its handler's task) past `bodyTimeout`.
        // Armed only when a read ends inside a request: the usual request, whose head and end come in one read,
        // costs no timer.
        if awaitingEnd, bodyTimer == nil, !closing {
            bodyTimer = timeout(
                context,
                in: bodyTimeout,
                \.bodyTimer,
                logging: "closing a connection whose request body did not arrive in time",
                answer: "the request's body did not arrive in time"
            )
        }
        context.fireChannelReadComplete()
    }

    private func armHeadTimer(_ context: ChannelHandlerContext) {
        guard headTimer == nil, !record.hasSentHead else { return }
        headTimer = timeout(
            context,
            in: headTimeout,
            \.headTimer,
            logging: "closing a connection that sent no complete request head in time",
            answer: "no complete request arrived in time"
        )
    }

    /// A timer that, `delay` from now, forgets itself (`timer`), logs `logging` and refuses the connection with 408.
    private func timeout(
        _ context: ChannelHandlerContext,
        in delay: TimeAmount,
        _ timer: ReferenceWritableKeyPath<ConnectionGuard, Scheduled<Void>?>,
        logging: Logger.Message,
        answer: String
    ) -> Scheduled<Void> {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        return context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler[keyPath: timer] = nil
            handler.logger.debug(logging, metadata: ["peer": "\(context.channel.remoteAddress?.description ?? "?")"])
            handler.refuse(context, status: .requestTimeout, message: answer)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        if case .end = unwrapInboundIn(data) {
            awaitingEnd = false
            bodyTimer?.cancel()
            bodyTimer = nil
        }
        if case .head(let head) = unwrapInboundIn(data) {
            headTimer?.cancel()
            headTimer = nil
            record.noteRequest()
            unansweredRequests += 1
            awaitingEnd = true
            if head.headers.contains(name: "upgrade"),
                head.headers[canonicalForm: "upgrade"].contains(where: { $0.lowercased() == "websocket" })
            {
                // Refused here, before NIO's upgrader: a refused upgrade would otherwise be answered a bare 400.
                if let refusal = SessionCookie.upgradeRefusal(
                    authorization: head.headers.first(name: "authorization"),
                    cookieHeaders: head.headers["cookie"],
                    origins: head.headers["origin"],
                    authority: head.headers.first(name: "host"),
                    servesTLS: servesTLS
                ) {
                    logger.debug(
                        "refusing a cross-site event WebSocket",
                        metadata: ["peer": "\(context.channel.remoteAddress?.description ?? "?")"]
                    )
                    unansweredRequests -= 1
                    refuse(context, status: .forbidden, message: refusal)
                    return
                }
                // The frames that follow an upgrade are not HTTP parts: leave before NIO swaps the handlers, and
                // leave a handler that gives a refused upgrade's bare 400 its JSON body (a 401 without a caller).
                let answer = UpgradeRefusalAnswer()
                try? context.pipeline.syncOperations.addHandler(answer, position: .after(self))
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            unansweredRequests = max(0, unansweredRequests - 1)
            record.noteActivity()
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        logger.debug(
            "refusing malformed HTTP",
            metadata: [
                "peer": "\(context.channel.remoteAddress?.description ?? "?")",
                "problem": "\(Self.problem(parserError))",
            ]
        )
        if parserError == .headerOverflow {
            refuse(
                context,
                status: .requestHeaderFieldsTooLarge,
                message: "the request line or headers are too large (at most \(Self.headLimitsDescription))"
            )
        } else {
            refuse(
                context,
                status: .badRequest,
                message: "the request is not valid HTTP/1.1: \(Self.problem(parserError))"
            )
        }
    }

    /// Answers `status` with a JSON error body and closes, or only closes when a response is already under way.
    private func refuse(_ context: ChannelHandlerContext, status: HTTPResponseStatus, message: String) {
        guard !closing else { return }
        closing = true
        cancelTimers()
        guard unansweredRequests == 0 else {
            context.close(promise: nil)
            return
        }
        let code =
            switch status {
            case .requestTimeout: "requestTimeout"
            case .requestHeaderFieldsTooLarge: "headersTooLarge"
            case .forbidden: "crossSiteRequest"
            default: "badRequest"
            }
        let body = Self.errorBody(code: code, message: message)
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json; charset=utf-8")
        headers.add(name: "content-length", value: String(body.readableBytes))
        headers.add(name: "connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
        // A write that cannot complete (a TLS handshake that never finished holds it) must not keep the connection.
        context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { context.close(promise: nil) }
    }

    /// The request head limits, as the 431 answer states them.
    static let headLimitsDescription =
        "\(ConnectionLimits.maximumHeaderFieldSize / 1024) KB a line, \(ConnectionLimits.maximumHeadSize / 1024) KB in all"

    /// `{"error": {"code": …, "message": …}}`, as every API error is written.
    static func errorBody(code: String, message: String) -> ByteBuffer {
        let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return ByteBuffer(string: #"{"error":{"code":"\#(code)","message":"\#(escaped)"}}"#)
    }

    /// What was wrong with the bytes, in words.
    static func problem(_ error: HTTPParserError) -> String {
        switch error {
        case .invalidVersion: "the HTTP version is not 1.0 or 1.1"
        case .invalidMethod: "the method is not an HTTP method"
        case .invalidURL: "the request target is not a valid path"
        case .invalidHeaderToken, .invalidConstant, .strictModeAssertion, .lfExpected, .invalidCharactersUsed:
            "the request line or a header line is malformed"
        case .invalidContentLength, .unexpectedContentLength: "the Content-Length header is malformed"
        case .invalidChunkSize: "the chunked body is malformed"
        case .headerOverflow: "the request line or headers are too large"
        case .invalidEOFState: "the connection ended inside a request"
        default: "the bytes are not an HTTP request"
        }
    }
}

/// The limits the API's connections live within.
public enum ConnectionLimits {
    /// The longest request line or header line, in bytes.
    public static let maximumHeaderFieldSize = 8 * 1024
    /// The largest request head (request line and headers), in bytes.
    public static let maximumHeadSize = 16 * 1024
    /// The most header lines in one request.
    public static let maximumHeaderCount = 100
}

/// Stands in for ``ConnectionGuard`` while a WebSocket upgrade is decided: Hummingbird answers a refused upgrade with
/// a bare `400` and no body, which this turns into the API's answer, `401 unauthorized` with the JSON error body
/// when the upgrade was refused for want of a caller (``markUnauthorized(on:)``), else `400` with one.
///
/// It leaves the pipeline when the event route accepts the upgrade (``settle(on:isUnauthorized:)``), or after the
/// first answer that passes.
final class UpgradeRefusalAnswer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Whether the upgrade was refused because the request named no valid caller.
    var isUnauthorized = false
    /// The JSON body written in place of the empty one, while a refusal is being rewritten.
    private var body: ByteBuffer?

    /// Tells `channel`'s handler how its upgrade was decided, before the answer is written: a refusal for want of
    /// a valid token or session is noted (answered 401), an accepted upgrade removes the handler (WebSocket frames
    /// must not pass it).
    static func settle(on channel: any Channel, isUnauthorized: Bool) async {
        try? await channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            let handler = try operations.handler(type: UpgradeRefusalAnswer.self)
            if isUnauthorized {
                handler.isUnauthorized = true
            } else {
                operations.removeHandler(handler, promise: nil)
            }
        }.get()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status == .badRequest:
            let error =
                isUnauthorized
                ? APIError.unauthorized
                : APIError.invalidRequest("the WebSocket upgrade was refused: only GET /v1/events takes one")
            let body = ConnectionGuard.errorBody(code: error.code, message: error.message)
            self.body = body
            var headers = HTTPHeaders()
            headers.add(name: "content-type", value: "application/json; charset=utf-8")
            headers.add(name: "content-length", value: String(body.readableBytes))
            headers.add(name: "connection", value: "close")
            let status = HTTPResponseStatus(statusCode: Int(error.status.code))
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
                promise: promise
            )
        case .head(let head):
            context.write(data, promise: promise)
            if head.status == .switchingProtocols {
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            }
        case .body:
            // A refusal has no body of its own; ours is written before its end.
            if body == nil { context.write(data, promise: promise) } else { promise?.succeed() }
        case .end:
            if let body {
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                self.body = nil
            }
            context.write(data, promise: promise)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
