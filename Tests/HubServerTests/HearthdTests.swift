import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `hearthd --demo` run as a program: first start, the files it writes, the API, a clean stop, a second start.
@Suite(.serialized) struct HearthdTests {
    struct Client: Decodable {
        var url: String
        var token: String
    }

    func get(_ url: String, token: String) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// Starts hearthd and reads its output up to the line that says where it serves.
    func start(state: String) throws -> (ChildProcess, [String]) {
        let child = try ChildProcess(
            BuiltProducts.path("hearthd"),
            ["--demo", "--state", state, "--port", "0", "--no-user-config"],
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
        for file in ["owner.token", "client.json", "credentials.json"] {
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
        #expect((home["actionSets"] as? [Any])?.count == 2)

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
        #expect(again.terminate() == 0)
    }
}
