import Foundation
import Testing

@testable import HAP
@testable import HAPTypes

@Suite struct DatabaseRequestBodyTests {
    @Test("Decodes the §7.6 write body")
    func decodesTheSpecWriteBody() throws {
        let body = """
            {"characteristics":[
               {"aid":1,"iid":10,"value":75},
               {"aid":1,"iid":11,"ev":true},
               {"aid":1,"iid":12,"value":1,"r":true,"authData":"AQI=","remote":true}],
             "pid":11122333}
            """
        let request = try HAPJSON.decode(CharacteristicWriteRequest.self, from: Data(body.utf8))
        #expect(request.preparedWriteID == 11_122_333)
        #expect(request.characteristics.count == 3)
        #expect(request.characteristics[0].value == .int(75))
        #expect(request.characteristics[1].events == true && request.characteristics[1].value == nil)
        let last = request.characteristics[2]
        #expect(last.requestsResponse == true && last.isRemote == true && last.authorizationData == [1, 2])
        #expect(last.id == CharacteristicID(accessoryID: 1, instanceID: 12))
    }

    @Test func encodesReadAnswersCompactlyWithNullForProgrammableSwitchEvent() throws {
        let response = CharacteristicReadResponse(characteristics: [
            .init(accessoryID: 1, instanceID: 10, value: .int(50)),
            .init(accessoryID: 1, instanceID: 13, includesNullValue: true),
            .init(accessoryID: 2, instanceID: 5, status: .resourceDoesNotExist),
        ])
        let text = String(decoding: try HAPJSON.encode(response), as: UTF8.self)
        #expect(
            text == #"{"characteristics":[{"aid":1,"iid":10,"value":50},{"aid":1,"iid":13,"value":null},"#
                + #"{"aid":2,"iid":5,"status":-70409}]}"#
        )
        #expect(try HAPJSON.decode(CharacteristicReadResponse.self, from: Data(text.utf8)) == response)
    }

    @Test func readsPositiveStatusCodesAndRejectsUnknownOnes() throws {
        let odd = #"{"characteristics":[{"aid":1,"iid":2,"status":70402}]}"#
        let response = try HAPJSON.decode(CharacteristicReadResponse.self, from: Data(odd.utf8))
        #expect(response.characteristics.first?.status == .serviceCommunicationFailure)
        let unknown = #"{"characteristics":[{"aid":1,"iid":2,"status":-1}]}"#
        #expect(throws: DecodingError.self) {
            try HAPJSON.decode(CharacteristicReadResponse.self, from: Data(unknown.utf8))
        }
    }

    @Test func readsAnEmptyUnitAsNoUnitInReadAnswers() throws {
        let body = #"{"characteristics":[{"aid":1,"iid":2,"value":3,"unit":"","format":"uint8"}]}"#
        let item = try #require(
            try HAPJSON.decode(CharacteristicReadResponse.self, from: Data(body.utf8)).characteristics.first
        )
        #expect(item.unit == nil && item.value == .uint(3))
    }

    @Test func encodesAPrepareBody() throws {
        let text = String(
            decoding: try HAPJSON.encode(PrepareWriteRequest(timeToLiveMilliseconds: 2500, preparedWriteID: 7)),
            as: UTF8.self
        )
        #expect(text == #"{"pid":7,"ttl":2500}"#)
    }

    @Test func addsOnlyTheDetailsAQueryAsksFor() throws {
        let lock = HAPCharacteristic(
            instanceID: 12,
            type: HAPUUID(apple: 0x1E),
            permissions: [.read, .write, .notify],
            format: .uint8,
            value: .uint(1),
            unit: nil,
            minValue: 0,
            maxValue: 1,
            minStep: 1,
            validValues: [0, 1]
        )
        var bare = CharacteristicReadResponse.Item(accessoryID: 1, instanceID: 12, value: .uint(1))
        bare.addDetails(of: lock, askedFor: try CharacteristicReadQuery(query: "id=1.12"))
        #expect(bare == CharacteristicReadResponse.Item(accessoryID: 1, instanceID: 12, value: .uint(1)))
        var full = bare
        full.addDetails(of: lock, askedFor: try CharacteristicReadQuery(query: "id=1.12&meta=1&perms=1&type=1&ev=1"))
        let text = String(decoding: try HAPJSON.encode(full), as: UTF8.self)
        #expect(
            text == #"{"aid":1,"ev":false,"format":"uint8","iid":12,"maxValue":1,"minStep":1,"minValue":0,"#
                + #""perms":["pr","pw","ev"],"type":"1E","valid-values":[0,1],"value":1}"#
        )
    }
}
