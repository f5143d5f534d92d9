import HAP
import HAPTypes
import NIOCore
import NIOPosix

/// Opening a session: the TCP connection, then pair-verify and the session cipher for a verified connection.
extension AccessoryConnection {
    /// Makes sure the session is open, connecting and verifying first if needed; the caller holds the turn.
    func establish() async throws(HAPControllerError) {
        let current: Int
        switch machine.establish() {
        case .ready: return
        case .fail(let error): throw error
        case .connect(let generation): current = generation
        }
        do throws(HAPControllerError) {
            try await openChannel(generation: current)
            if case .verified(let identity, let accessory) = security {
                try await verify(identity: identity, accessory: accessory)
            }
        } catch {
            let failure = machine.establishFailed(error)
            if let drop = failure.drop { perform(drop, failing: error) }
            if failure.reportsUnreachable { eventHandler?(.unreachable) }
            throw error
        }
        if machine.sessionVerified() { eventHandler?(.connected) }
    }

    /// Opens the TCP connection numbered `current`; its bytes and its end go to this actor.
    private func openChannel(generation current: Int) async throws(HAPControllerError) {
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Self.nanoseconds(timeouts.connect)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [weak self] channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let self else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionInbound(connection: self, generation: current)
                    )
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            logger.debug("Connect failed", metadata: ["host": "\(host)", "port": "\(port)", "error": "\(error)"])
            throw .unreachable(host: host, port: port)
        }
        if case .close(let error) = machine.channelOpened(channel, generation: current) {
            channel.close(promise: nil)
            throw error
        }
        parser = HTTPResponseParser(keepsHeaders: false)
        cipher = nil
        if !channel.isActive {
            // It closed before this actor ran again; its channelInactive found no channel to drop.
            dropChannel(failing: .connectionClosed)
            throw .connectionClosed
        }
    }

    /// Runs pair-verify on the new channel and installs the session cipher.
    private func verify(identity: ControllerIdentity, accessory: AccessoryPairing) async throws(HAPControllerError) {
        var pairVerify = PairVerifyController(identity: identity, accessory: accessory)
        var body = pairVerify.start()
        while true {
            let reply = try Self.decodeTLV8(try await exchange(tlv8Request("/pair-verify", body)))
            let step: PairVerifyController.Step
            do {
                step = try pairVerify.receive(reply)
            } catch {
                throw .verificationFailed(error)
            }
            switch step {
            case .send(let next):
                body = next
            case .established(let keys):
                // hap-protocol.md §4: M4 comes in clear; every later byte in both directions is sealed.
                cipher = SessionCipher(keys: keys, role: .controller)
                return
            }
        }
    }
}
