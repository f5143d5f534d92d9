import Testing

@testable import HAP
@testable import HAPTypes

@Suite struct DatabaseQueryTests {
    @Test func parsesIDsAndFlags() throws {
        let query = try CharacteristicReadQuery(query: "id=1.10,1.11&meta=1&perms=1&type=1&ev=1")
        #expect(
            query.ids == [
                CharacteristicID(accessoryID: 1, instanceID: 10), CharacteristicID(accessoryID: 1, instanceID: 11),
            ]
        )
        #expect(query.includesMetadata && query.includesPermissions && query.includesType && query.includesEventState)
        #expect(query.queryString == "id=1.10,1.11&meta=1&perms=1&type=1&ev=1")
    }

    @Test func writesTheQueryAsBytesThatReadBackAsTheSameQuery() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<500 {
            let ids = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                CharacteristicID(
                    accessoryID: round % 7 == 0 ? UInt64.max : UInt64.random(in: 0...200, using: &generator),
                    instanceID: UInt64.random(in: 0...100_000, using: &generator)
                )
            }
            let query = CharacteristicReadQuery(
                ids: ids,
                includesMetadata: Bool.random(using: &generator),
                includesPermissions: Bool.random(using: &generator),
                includesType: Bool.random(using: &generator),
                includesEventState: Bool.random(using: &generator)
            )
            var bytes: [UInt8] = [0x2F]
            query.appendQuery(to: &bytes)
            let written = String(decoding: bytes.dropFirst(), as: UTF8.self)
            #expect(written.hasPrefix("id=" + ids.map { "\($0.accessoryID).\($0.instanceID)" }.joined(separator: ",")))
            #expect(written == query.queryString)
            #expect(try CharacteristicReadQuery(query: written) == query)
        }
    }

    @Test func leavesFlagsOffUnlessSetToOne() throws {
        let query = try CharacteristicReadQuery(query: "meta=0&id=2.3")
        #expect(query == CharacteristicReadQuery(ids: [CharacteristicID(accessoryID: 2, instanceID: 3)]))
        #expect(try CharacteristicReadQuery(query: "id=1.2%2C1.3").ids.count == 2)
        #expect(try CharacteristicReadQuery(query: "id=1.2&hap=1").ids.count == 1)
    }

    @Test("Accepts an empty id list, which ADK answers with 204")
    func acceptsAnEmptyIDList() throws {
        #expect(try CharacteristicReadQuery(query: "id=").ids.isEmpty)
    }

    @Test func rejectsBadInput() {
        #expect(throws: CharacteristicQueryError.missingID) { try CharacteristicReadQuery(query: "") }
        #expect(throws: CharacteristicQueryError.missingID) { try CharacteristicReadQuery(query: "meta=1") }
        for bad in ["1", "1.", ".1", "a.1", "1.b", "1.2.3", "-1.2", "+1.2", "1.99999999999999999999", " 1.2"] {
            #expect(throws: CharacteristicQueryError.invalidID(bad)) { try CharacteristicReadQuery(query: "id=\(bad)") }
        }
        #expect(throws: CharacteristicQueryError.invalidID("")) { try CharacteristicReadQuery(query: "id=1.2,") }
        #expect(throws: CharacteristicQueryError.invalidFlag(name: "meta", value: "2")) {
            try CharacteristicReadQuery(query: "id=1.2&meta=2")
        }
        #expect(throws: CharacteristicQueryError.invalidFlag(name: "ev", value: "true")) {
            try CharacteristicReadQuery(query: "id=1.2&ev=true")
        }
        #expect(throws: CharacteristicQueryError.invalidFlag(name: "perms", value: "")) {
            try CharacteristicReadQuery(query: "id=1.2&perms=")
        }
        #expect(throws: CharacteristicQueryError.duplicateParameter("id")) {
            try CharacteristicReadQuery(query: "id=1.2&id=1.3")
        }
        #expect(throws: CharacteristicQueryError.malformedParameter("meta")) {
            try CharacteristicReadQuery(query: "id=1.2&meta")
        }
    }
}
