import Foundation
import Testing

@testable import HAP
@testable import HAPTypes

@Suite struct DatabaseDecodingTests {
    /// The example body of hap-protocol.md §7.4.
    static let specExample = """
        {"accessories":[
          {"aid":1,"services":[
             {"iid":1,"type":"3E","primary":false,"hidden":false,"linked":[],
              "characteristics":[
                {"iid":2,"type":"14","perms":["pw"],"format":"bool","description":"Identify"},
                {"iid":3,"type":"20","perms":["pr"],"format":"string","value":"Acme","maxLen":64},
                {"iid":10,"type":"8","perms":["pr","pw","ev"],"format":"int","value":50,"ev":false,
                 "unit":"percentage","minValue":0,"maxValue":100,"minStep":1}
              ]}]}]}
        """

    /// A body shaped like HAP-python's: spaces, no primary/hidden/linked, empty strings, lower-case and full
    /// UUIDs, a float value sent as a whole number, a bool sent as 1, and a null ProgrammableSwitchEvent.
    static let pythonStyle = """
        {"accessories": [{"aid": 1, "services": [
            {"iid": 1, "type": "3E", "characteristics": [
                {"iid": 2, "type": "14", "perms": ["pw"], "format": "bool", "description": "Identify"},
                {"iid": 3, "type": "20", "perms": ["pr"], "format": "string", "value": "", "description": ""},
                {"iid": 4, "type": "21", "perms": ["pr"], "format": "string", "value": "Bridge", "unit": ""},
                {"iid": 5, "type": "23", "perms": ["pr"], "format": "string", "value": "Bridge 1A2B"},
                {"iid": 6, "type": "30", "perms": ["pr"], "format": "string", "value": "default"},
                {"iid": 7, "type": "52", "perms": ["pr"], "format": "string", "value": "2.0.0"}]},
            {"iid": 8, "type": "000000a2-0000-1000-8000-0026bb765291", "characteristics": [
                {"iid": 9, "type": "37", "perms": ["pr", "ev"], "format": "string", "value": "01.01.00"}]}]},
          {"aid": 2, "services": [
            {"iid": 10, "type": "8a", "primary": true, "characteristics": [
                {"iid": 11, "type": "11", "perms": ["pr", "ev"], "format": "float", "value": 21,
                 "unit": "celsius", "minValue": -273.1, "maxValue": 1000, "minStep": 0.1, "description": ""}]},
            {"iid": 12, "type": "89", "linked": [10], "characteristics": [
                {"iid": 13, "type": "73", "perms": ["pr", "ev"], "format": "uint8", "value": null,
                 "valid-values": [0, 1, 2], "valid-values-range": [0, 2]},
                {"iid": 14, "type": "25", "perms": ["pr", "pw", "ev"], "format": "bool", "value": 1},
                {"iid": 15, "type": "E863F10D-079E-48FF-8F27-9C2605A29F52", "perms": ["pr"],
                 "format": "data", "value": "AQID"}]}]}]}
        """

    @Test("Decodes the §7.4 example")
    func decodesTheSpecExample() throws {
        let database = try HAPJSON.decode(AccessoryDatabase.self, from: Data(Self.specExample.utf8))
        let accessory = try #require(database.accessories.first)
        #expect(accessory.accessoryID == 1)
        let service = try #require(accessory.services.first)
        #expect(service.type == HAPUUID(apple: 0x3E))
        #expect(!service.isPrimary && !service.isHidden && service.linkedServices.isEmpty)
        #expect(service.characteristics.map(\.instanceID) == [2, 3, 10])
        let brightness = try #require(database.characteristic(at: CharacteristicID(accessoryID: 1, instanceID: 10)))
        #expect(brightness.permissions == [.read, .write, .notify])
        #expect(brightness.format == .int)
        #expect(brightness.value == .int(50))
        #expect(brightness.isNotifying == false)
        #expect(brightness.unit == .percentage)
        #expect(brightness.minValue == 0 && brightness.maxValue == 100 && brightness.minStep == 1)
        let identify = try #require(accessory.characteristic(withInstanceID: 2))
        #expect(identify.value == nil && identify.description == "Identify")
        #expect(accessory.characteristic(withInstanceID: 3)?.maxLength == 64)
    }

    @Test("Encodes the §7.4 example back to compact JSON with the same content")
    func reencodesTheSpecExampleCompactly() throws {
        let database = try HAPJSON.decode(AccessoryDatabase.self, from: Data(Self.specExample.utf8))
        let text = String(decoding: try HAPJSON.encode(database), as: UTF8.self)
        #expect(!text.contains(" ") && !text.contains("\n"))
        #expect(text.contains(#""type":"3E""#))
        #expect(!text.contains(#""iid":2,"type":"14","perms":["pw"],"format":"bool","value""#))
        let again = try HAPJSON.decode(AccessoryDatabase.self, from: Data(text.utf8))
        #expect(again == database)
        let expected = try JSONSerialization.jsonObject(with: Data(Self.specExample.utf8)) as? NSDictionary
        let actual = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
        #expect(expected == actual)
    }

    @Test func decodesAHAPPythonStyleBody() throws {
        let database = try HAPJSON.decode(AccessoryDatabase.self, from: Data(Self.pythonStyle.utf8))
        #expect(database.accessories.map(\.accessoryID) == [1, 2])
        let bridge = try #require(database.accessory(withID: 1))
        #expect(bridge.services[1].type == HAPUUID(apple: 0xA2))
        #expect(bridge.characteristic(withInstanceID: 3)?.value == .string(""))
        #expect(bridge.characteristic(withInstanceID: 3)?.description == "")
        #expect(bridge.characteristic(withInstanceID: 4)?.unit == nil)
        let sensor = try #require(database.accessory(withID: 2))
        #expect(sensor.services[0].isPrimary)
        #expect(sensor.services[1].linkedServices == [10])
        let temperature = try #require(sensor.characteristic(withInstanceID: 11))
        #expect(temperature.value == .float(21))
        #expect(temperature.minValue == -273.1)
        let button = try #require(sensor.characteristic(withInstanceID: 13))
        #expect(button.value == nil)
        #expect(button.validValues == [0, 1, 2])
        #expect(button.validValuesRange == 0...2)
        #expect(sensor.characteristic(withInstanceID: 14)?.value == .bool(true))
        let custom = try #require(sensor.characteristic(withInstanceID: 15))
        #expect(custom.type.wireForm == "E863F10D-079E-48FF-8F27-9C2605A29F52")
        #expect(custom.value == .data([1, 2, 3]))
    }

    @Test func rejectsAValueThatDoesNotFitItsFormat() {
        let bodies = [
            #"{"iid":1,"type":"25","perms":["pr"],"format":"bool","value":2}"#,
            #"{"iid":1,"type":"25","perms":["pr"],"format":"bool","value":"true"}"#,
            #"{"iid":1,"type":"8","perms":["pr"],"format":"uint8","value":256}"#,
            #"{"iid":1,"type":"8","perms":["pr"],"format":"int","value":2147483648}"#,
            #"{"iid":1,"type":"8","perms":["pr"],"format":"int","value":1.5}"#,
            #"{"iid":1,"type":"23","perms":["pr"],"format":"string","value":5}"#,
            #"{"iid":1,"type":"19","perms":["pr"],"format":"tlv8","value":"not base64!"}"#,
            #"{"iid":1,"type":"8","perms":["pr"],"format":"int","valid-values-range":[5,1]}"#,
            #"{"iid":1,"type":"8","perms":["xx"],"format":"int"}"#,
            #"{"iid":1,"type":"8","perms":["pr"],"format":"int","unit":"fortnights"}"#,
        ]
        for body in bodies {
            #expect(throws: DecodingError.self, "\(body)") {
                try HAPJSON.decode(HAPCharacteristic.self, from: Data(body.utf8))
            }
        }
    }

    @Test func decodesValuesAgainstEachFormat() throws {
        func decode(_ json: String, as format: Format) throws -> HAPValue {
            let decoder = JSONDecoder()
            let key = try #require(FormatBox.formatKey)
            decoder.userInfo[key] = format
            return try decoder.decode(FormatBox.self, from: Data(#"{"value":\#(json)}"#.utf8)).value
        }
        #expect(try decode("true", as: .bool) == .bool(true))
        #expect(try decode("0", as: .bool) == .bool(false))
        #expect(try decode("1", as: .bool) == .bool(true))
        #expect(try decode("255", as: .uint8) == .uint(255))
        #expect(try decode("18446744073709551615", as: .uint64) == .uint(UInt64.max))
        #expect(try decode("-5", as: .int) == .int(-5))
        #expect(try decode("22.5", as: .float) == .float(22.5))
        #expect(try decode("22", as: .float) == .float(22))
        #expect(try decode("\"AAEC\"", as: .data) == .data([0, 1, 2]))
        #expect(try decode("\"hi\"", as: .string) == .string("hi"))
    }
}

/// A JSON object with one `value`, decoded against the format in the decoder's user info.
private struct FormatBox: Decodable {
    static let formatKey = CodingUserInfoKey(rawValue: "format")
    var value: HAPValue

    init(from decoder: any Decoder) throws {
        let key = try #require(Self.formatKey)
        let format = try #require(decoder.userInfo[key] as? Format)
        let container = try decoder.container(keyedBy: Key.self)
        value = try HAPValue(from: container.superDecoder(forKey: .value), format: format)
    }

    private enum Key: String, CodingKey { case value }
}
