import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `hearthd --demo` run as a program: first start, the files it writes, the demo bridge paired, a write through the
/// API reaching it, a clean stop, a second start that reconnects.
@Suite(.serialized) struct HearthdTests {
    struct Client: Decodable {
        var url: String
        var token: String
    }

    func get(_ url: String, token: String) async throws -> (Int, [String: Any]) {
        try await send("GET", url, token: token)
    }

    func send(_ method: String, _ url: String, token: String, body: String? = nil) async throws -> (Int, [String: Any])
    {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// Starts hearthd and reads its output up to the line that says where it serves.
    func start(state: String) throws -> (ChildProcess, [String]) {
        let child = try ChildProcess(
            BuiltProducts.path("hearthd"),
            // The demo also serves the secure listener on loopback (docs/remote-access.md): on a free port here.
            ["--demo", "--state", state, "--port", "0", "--remote-port", "0", "--no-user-config"],
            timeout: 120
        )
        var lines: [String] = []
        while true {
            let line = try child.readLine()
            lines.append(line)
            if line.hasPrefix("Stop with") { break }
        }
        return (child, lines)
    }

    @Test func theDemoHubStartsServesTheDemoHomeAndStopsCleanly() async throws {
        let state = NSTemporaryDirectory() + "hearthd-demo-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (child, lines) = try start(state: state)
        let output = lines.joined(separator: "\n")
        #expect(output.contains("with the demo home"))
        let client = try JSONDecoder().decode(
            Client.self,
            from: Data(contentsOf: URL(fileURLWithPath: state + "/client.json"))
        )
        #expect(client.url.hasPrefix("http://127.0.0.1:"))
        #expect(!output.contains(client.token), "the token is never printed")
        let token = try String(contentsOfFile: state + "/owner.token", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token == client.token)
        #expect(output.contains("hub key fingerprint"))
        for file in ["owner.token", "client.json", "credentials.json", "hub.key", "owner.setup-code"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: state + "/" + file)
            #expect(attributes[.posixPermissions] as? Int == 0o600, "\(file)")
        }
        let credentials = try String(contentsOfFile: state + "/credentials.json", encoding: .utf8)
        #expect(!credentials.contains(token), "only the token's hash is stored")

        var (status, body) = try await get(client.url + "/v1/homes", token: client.token)
        #expect(status == 200)
        let homes = body["homes"] as? [[String: Any]] ?? []
        #expect(homes.map { $0["name"] as? String } == ["Demo Home"])
        let homeID = try #require(homes.first?["id"] as? String)
        (status, body) = try await get(client.url + "/v1/homes/\(homeID)", token: client.token)
        let home = body["home"] as? [String: Any] ?? [:]
        #expect((home["rooms"] as? [Any])?.count == 5)
        #expect((home["zones"] as? [Any])?.count == 2)
        let actionSets = home["actionSets"] as? [[String: Any]] ?? []
        #expect(actionSets.count == 4, "the built-in scenes")
        let filled = actionSets.filter { ["Good Morning", "Good Night"].contains($0["name"] as? String) }
        #expect(filled.count == 2 && filled.allSatisfy { ($0["actions"] as? [Any])?.count == 3 }, "\(actionSets)")

        // The demo bridge, paired: its accessories in the demo rooms.
        let accessories = try await demoAccessories(client.url, homeID: homeID, token: token)
        #expect(accessories.count == 11)
        let names = Set(accessories.compactMap { $0["name"] as? String })
        for name in ["Demo Bridge", "Living Room Lamp", "Bedroom Lamp", "Thermostat", "Door Lock", "Garage Door"] {
            #expect(names.contains(name), "\(names)")
        }
        let rooms = (home["rooms"] as? [[String: Any]] ?? []).reduce(into: [String: String]()) {
            $0[$1["id"] as? String ?? ""] = $1["name"] as? String
        }
        let garage = accessories.first { $0["name"] as? String == "Garage Door" }
        #expect(rooms[garage?["roomID"] as? String ?? ""] == "Garage")

        // A write through the API reaches the bridge: a read through the accessory gives it back.
        let lampOn = try #require(onCharacteristic(of: "Living Room Lamp", in: accessories))
        let characteristic = client.url + "/v1/homes/\(homeID)/characteristics/\(lampOn)"
        (status, body) = try await send("PUT", characteristic, token: token, body: #"{"value": true}"#)
        #expect(status == 200, "\(body)")
        (status, body) = try await get(characteristic + "?refresh=true", token: token)
        #expect(status == 200 && (body["characteristic"] as? [String: Any])?["value"] as? Bool == true, "\(body)")
        let bridgePort = try String(contentsOfFile: state + "/demo-bridge/port", encoding: .utf8)

        #expect(child.terminate() == 0, "SIGTERM stops hearthd cleanly")

        // A second start keeps the home and the owner's token, and makes no second demo home.
        let (again, _) = try start(state: state)
        let second = try JSONDecoder().decode(
            Client.self,
            from: Data(contentsOf: URL(fileURLWithPath: state + "/client.json"))
        )
        #expect(second.token == token)
        (status, body) = try await get(second.url + "/v1/homes", token: token)
        #expect(status == 200 && (body["homes"] as? [Any])?.count == 1)
        // The bridge is back on its port and the hub reconnects by itself: no second pairing, reads work.
        #expect(try String(contentsOfFile: state + "/demo-bridge/port", encoding: .utf8) == bridgePort)
        #expect(try await demoAccessories(second.url, homeID: homeID, token: token).count == 11)
        // The simulated bridge starts with fresh values: write again once the hub has reconnected, read it back.
        let again2 = second.url + "/v1/homes/\(homeID)/characteristics/\(lampOn)"
        var reconnected = false
        for _ in 0..<100 where !reconnected {
            (status, body) = try await send("PUT", again2, token: token, body: #"{"value": true}"#)
            reconnected = status == 200
            if !reconnected { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(reconnected, "\(body)")
        (status, body) = try await get(again2 + "?refresh=true", token: token)
        #expect(status == 200 && (body["characteristic"] as? [String: Any])?["value"] as? Bool == true, "\(body)")
        #expect(again.terminate() == 0)
    }

    @Test func aPortInUseIsNamedWithItsAddressInOneSentence() throws {
        // A listening socket of this test holds a loopback port.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                Glibc.bind(socket, generic, length) == 0 && listen(socket, 1) == 0
                    && getsockname(socket, generic, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let state = NSTemporaryDirectory() + "hearthd-port-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let child = try ChildProcess(
            BuiltProducts.path("hearthd"),
            ["--state", state, "--port", "\(port)", "--no-user-config", "--log-level", "critical"],
            timeout: 120
        )
        #expect(child.waitForExit() == 1)
        let errors = child.standardErrorText()
        #expect(
            errors
                == "hearthd: could not listen on 127.0.0.1:\(port) (address already in use); stop the program that "
                + "uses it, or give another port with --port.\n",
            "\(errors)"
        )
    }

    /// A certificate file that cannot be read (the web app's, or the one a relay is trusted with) stops hearthd
    /// with one sentence naming the file, before anything listens.
    @Test(arguments: [
        (
            [
                "--tls-address", "127.0.0.1", "--tls-certificate", "/nonexistent/cert.pem", "--tls-key",
                "/nonexistent/key.pem",
            ],
            "hearthd: the TLS listener has no certificate: could not read the TLS certificate or key"
        ),
        (
            ["--relay", "wss://relay.invalid", "--relay-ca", "/nonexistent/ca.pem"],
            "hearthd: --relay-ca /nonexistent/ca.pem cannot be read."
        ),
        (
            ["--relay", "wss://relay.invalid", "--relay-ca", "/proc/version"],
            "hearthd: --relay-ca /proc/version: it holds no certificate in PEM form"
        ),
    ])
    func anUnreadableCertificateIsOneSentence(arguments: [String], start: String) throws {
        let state = NSTemporaryDirectory() + "hearthd-cert-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let child = try ChildProcess(
            BuiltProducts.path("hearthd"),
            ["--state", state, "--port", "0", "--no-user-config", "--log-level", "critical"] + arguments,
            timeout: 120
        )
        #expect(child.waitForExit() != 0)
        let errors = child.standardErrorText()
        #expect(errors.hasPrefix(start), "\(errors)")
        #expect(errors.split(separator: "\n").count == 1 && !errors.contains("Failure("), "\(errors)")
    }

    @Test func aRelayAtAnIPAddressOverTLSIsRefusedWithASentence() throws {
        let state = NSTemporaryDirectory() + "hearthd-relay-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let child = try ChildProcess(
            BuiltProducts.path("hearthd"),
            ["--state", state, "--port", "0", "--no-user-config", "--relay", "wss://127.0.0.1:9"],
            timeout: 120
        )
        #expect(child.waitForExit() != 0)
        let errors = child.standardErrorText()
        #expect(errors.contains("--relay wss://127.0.0.1:9: TLS to a relay needs the host name"), "\(errors)")
        #expect(!FileManager.default.fileExists(atPath: state), "nothing was started")
    }

    func demoAccessories(_ url: String, homeID: String, token: String) async throws -> [[String: Any]] {
        let (_, body) = try await get(url + "/v1/homes/\(homeID)/accessories", token: token)
        return body["accessories"] as? [[String: Any]] ?? []
    }

    /// The id of the On characteristic (type 25) of the accessory `name`.
    func onCharacteristic(of name: String, in accessories: [[String: Any]]) -> String? {
        let accessory = accessories.first { $0["name"] as? String == name }
        for service in accessory?["services"] as? [[String: Any]] ?? [] {
            for characteristic in service["characteristics"] as? [[String: Any]] ?? [] {
                let type = characteristic["type"] as? String ?? ""
                if type == "25" || type.hasPrefix("00000025-") { return characteristic["id"] as? String }
            }
        }
        return nil
    }
}
