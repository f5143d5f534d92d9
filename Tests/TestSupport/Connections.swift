import ByteStreams
import NIOCore

extension ByteConnection {
    /// Whether the connection closes within `timeout` (what arrives before is dropped); closes it either way.
    package func closes(within timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in self.received {}
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            close()
            group.cancelAll()
            return first
        }
    }
}

/// `count` connections to `127.0.0.1:port`, each having sent `greeting`: a server's connections in every state,
/// from accepted and unread to being served, for tests that stop the server in the middle.
package func openConnections(to port: Int, count: Int, greeting: String) async throws -> [ByteConnection] {
    var connections: [ByteConnection] = []
    for _ in 0..<count {
        let connection = try await ByteConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5))
        try await connection.write(Array(greeting.utf8))
        connections.append(connection)
    }
    return connections
}

/// Whether a new connection to `127.0.0.1:port` is refused.
package func connectionIsRefused(port: Int) async -> Bool {
    guard let connection = try? await ByteConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(2))
    else { return true }
    connection.close()
    return false
}
