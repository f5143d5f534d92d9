import HAP
import Logging
import NIOCore
import NIOPosix

/// Talks to an unpaired accessory over plain HTTP: pair-setup and identify.
public struct AccessoryPairingClient: Sendable {
    /// Connect and request timeouts; iOS gives each pair-setup request about 10 s (hap-protocol.md §3.5).
    public var timeouts: ConnectionTimeouts
    private let group: any EventLoopGroup
    private let logger: Logger

    /// Makes a client.
    public init(
        timeouts: ConnectionTimeouts = ConnectionTimeouts(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "hearth.controller.pairing")
    ) {
        self.timeouts = timeouts
        self.group = eventLoopGroup
        self.logger = logger
    }

    /// Pairs with the accessory at `host`:`port` as `identity`, and returns its device ID and long-term key.
    ///
    /// hap-protocol.md §3.2: peers disagree on SRP padding, so a pair-setup with the right code can fail with
    /// Authentication at M4 when A, B, S or K has a leading zero byte. Only then is it retried once, on a new
    /// connection with fresh SRP keys; otherwise the code is wrong and ``HAPControllerError/wrongSetupCode`` is
    /// thrown at once, since every attempt counts toward the accessory's limit of 100.
    public func pairSetup(
        host: String,
        port: Int,
        setupCode: SetupCode,
        identity: ControllerIdentity
    ) async throws(HAPControllerError) -> AccessoryPairing {
        try await pairSetupAttempts(host: host, port: port, setupCode: setupCode, identity: identity).pairing
    }

    /// ``pairSetup(host:port:setupCode:identity:)``, also saying how many pair-setups it ran (1 or 2).
    func pairSetupAttempts(
        host: String,
        port: Int,
        setupCode: SetupCode,
        identity: ControllerIdentity
    ) async throws(HAPControllerError) -> (pairing: AccessoryPairing, attempts: Int) {
        var retryAdvised = false
        do {
            let pairing = try await pairSetupOnce(
                host: host,
                port: port,
                setupCode: setupCode,
                identity: identity,
                retryAdvised: &retryAdvised
            )
            return (pairing, 1)
        } catch .wrongSetupCode where retryAdvised {
            logger.debug(
                "Pair-setup M4 said Authentication in an exchange where SRP padding matters; retrying once"
            )
            let pairing = try await pairSetupOnce(
                host: host,
                port: port,
                setupCode: setupCode,
                identity: identity,
                retryAdvised: &retryAdvised
            )
            return (pairing, 2)
        }
    }

    /// Asks an unpaired accessory to identify itself (`POST /identify`, hap-protocol.md §7.1).
    ///
    /// A paired accessory refuses (400 with -70401): use ``PairedAccessory/identify(accessoryID:)`` then.
    public func identifyUnpaired(host: String, port: Int) async throws(HAPControllerError) {
        let connection = makeConnection(host: host, port: port)
        let request = HTTPRequest(method: .post, target: "/identify", headers: ["Host": connection.hostHeader])
        let response: HTTPResponse
        do {
            response = try await connection.send(request)
        } catch {
            await connection.shutDown()
            throw error
        }
        await connection.shutDown()
        switch response.status.code {
        case 200, 204:
            return
        case 400 where AccessoryConnection.hapStatus(in: response.body) == .insufficientPrivileges:
            throw .alreadyPaired
        default:
            throw PairedAccessory.statusError(response)
        }
    }

    private func pairSetupOnce(
        host: String,
        port: Int,
        setupCode: SetupCode,
        identity: ControllerIdentity,
        retryAdvised: inout Bool
    ) async throws(HAPControllerError) -> AccessoryPairing {
        let connection = makeConnection(host: host, port: port)
        do throws(HAPControllerError) {
            var machine = PairSetupController(setupCode: setupCode.formatted, identity: identity)
            var body = machine.start()
            while true {
                let reply = try await connection.postTLV8("/pair-setup", body)
                let step: PairSetupController.Step
                do {
                    step = try machine.receive(reply)
                } catch {
                    retryAdvised = machine.shouldRetry(after: error)
                    throw HAPControllerError.pairSetup(error)
                }
                switch step {
                case .send(let next):
                    body = next
                case .paired(let pairing):
                    await connection.shutDown()
                    return pairing
                case .transient:
                    // We never ask for a transient pair-setup, so an M4 that ends it is a protocol error.
                    throw HAPControllerError.pairSetup(.unexpectedState(expected: 6, received: 4))
                }
            }
        } catch {
            await connection.shutDown()
            throw error
        }
    }

    private func makeConnection(host: String, port: Int) -> AccessoryConnection {
        AccessoryConnection(host: host, port: port, security: .plain, timeouts: timeouts, group: group, logger: logger)
    }
}
