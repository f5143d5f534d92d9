/// HAProxy in front of `hearth-relay` instances, as docs/relay.md describes it.
public enum HAProxyConfiguration {
    /// The configuration of docs/relay.md on loopback: a frontend on port `frontend` and one backend server per port
    /// of `relays`, chosen by the `route` query parameter with consistent hashing, health-checked every 200 ms.
    public static func relays(frontend: Int, relays: [Int]) -> String {
        """
        defaults
            mode http
            timeout connect 2s
            timeout client 30s
            timeout server 30s
            timeout tunnel 1h
            timeout client-fin 1s
            timeout server-fin 1s

        frontend relay
            bind 127.0.0.1:\(frontend)
            default_backend relays

        backend relays
            balance url_param route
            hash-type consistent
            option httpchk
            http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host relay
            http-check expect status 200
            default-server check inter 200ms fall 1 rise 2
        \(relays.enumerated().map { "    server relay\($0.offset + 1) 127.0.0.1:\($0.element)" }.joined(separator: "\n"))

        """
    }
}
