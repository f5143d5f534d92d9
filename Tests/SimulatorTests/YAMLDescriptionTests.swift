import Foundation
import Testing

@testable import Simulator

@Suite struct YAMLDescriptionTests {
    static let documentedExample = """
        # The example of docs/simulator.md, in YAML.
        ---
        bridge:
          name: Hearth Bridge
        accessories:
          - name: Desk Lamp
            preset: lightbulb-color
          - {name: Hall Light, preset: lightbulb-dimmable, count: 3}
          - id: front
            name: "Front Door"   # a comment after a value
            preset: door-lock
            behaviour: {lockDelaySeconds: 4}
          - name: Power Meter
            services:
            - type: outlet
              name: Socket
              primary: true
              custom:
                - uuid: E863F10D-079E-48FF-8F27-9C2605A29F52
                  format: float
                  perms: [pr, ev]
                  value: 0
                  minValue: 0
                  maxValue: 3680
                  description: 'Watts # not a comment'
          - name: Studio Lamp
            preset: lightbulb-dimmable
            services:
              - type: lightbulb
                characteristics:
                  brightness: {value: 50, minValue: 10}
                  colorTemperature:
                    value: 300
        """

    static let documentedJSON = """
        {
          "bridge": {"name": "Hearth Bridge"},
          "accessories": [
            {"name": "Desk Lamp", "preset": "lightbulb-color"},
            {"name": "Hall Light", "preset": "lightbulb-dimmable", "count": 3},
            {"id": "front", "name": "Front Door", "preset": "door-lock", "behaviour": {"lockDelaySeconds": 4}},
            {"name": "Power Meter", "services": [
              {"type": "outlet", "name": "Socket", "primary": true,
               "custom": [{"uuid": "E863F10D-079E-48FF-8F27-9C2605A29F52", "format": "float", "perms": ["pr", "ev"],
                           "value": 0, "minValue": 0, "maxValue": 3680, "description": "Watts # not a comment"}]}
            ]},
            {"name": "Studio Lamp", "preset": "lightbulb-dimmable", "services": [
              {"type": "lightbulb", "characteristics": {"brightness": {"value": 50, "minValue": 10},
                                                        "colorTemperature": {"value": 300}}}
            ]}
          ]
        }
        """

    @Test func theDocumentedExampleReadsTheSameAsItsJSON() throws {
        let yaml = try SimulatorDescription(yamlText: Self.documentedExample)
        let json = try SimulatorDescription(jsonData: Data(Self.documentedJSON.utf8))
        #expect(yaml == json)
        #expect(yaml.accessories.count == 5)
        #expect(yaml.accessories[2].id == "front")
    }

    @Test func theFileNameChoosesTheParser() throws {
        let fromYAML = try SimulatorDescription(fileData: Data(Self.documentedExample.utf8), path: "/tmp/home.YML")
        let fromJSON = try SimulatorDescription(fileData: Data(Self.documentedJSON.utf8), path: "/tmp/home.json")
        #expect(fromYAML == fromJSON)
    }

    @Test func scalarsTakeTheirYAMLTypes() throws {
        let value = try YAMLSubsetParser.parse(
            """
            a: 12
            b: -3.5
            c: true
            d: ~
            e: "tab\\tand \\u00e9"
            f: 'it''s'
            g: 1.0.0
            h: [1, two, "3", {x: y}]
            i: {}
            j: []
            k:
            """
        )
        let expected = YAMLValue.mapping([
            ("a", .int(12)), ("b", .double(-3.5)), ("c", .bool(true)), ("d", .null),
            ("e", .string("tab\tand é")), ("f", .string("it's")), ("g", .string("1.0.0")),
            ("h", .sequence([.int(1), .string("two"), .string("3"), .mapping([("x", .string("y"))])])),
            ("i", .mapping([])), ("j", .sequence([])), ("k", .null),
        ])
        #expect(value == expected)
    }

    @Test(arguments: [
        ("a: 1\na: 2", 2, "appears twice"),
        ("a:\n\tb: 1", 2, "tabs"),
        ("a: |\n  text", 1, "block scalars"),
        ("a: &x 1", 1, "anchors"),
        ("a: !!str 1", 1, "tags"),
        ("a: [1, 2", 1, "expected"),
        ("a: \"open", 1, "not closed"),
        ("a: 1\n---\nb: 2", 2, "one document"),
        ("a: 1\n   b: 2", 2, "indentation"),
        ("- a\nb: 1", 2, "indentation"),
    ])
    func malformedTextIsRefusedWithItsLine(text: String, line: Int, reason: String) {
        #expect {
            try SimulatorDescription(yamlText: text)
        } throws: { error in
            guard case DescriptionError.invalidYAML(let atLine, let why) = error else { return false }
            return atLine == line && why.contains(reason)
        }
    }

    @Test func aWellFormedYAMLOfTheWrongShapeIsTheUsualDescriptionError() {
        #expect(throws: DescriptionError.self) {
            try SimulatorDescription(
                yamlText: "bridge: {name: B}\naccessories:\n  - preset: no-such-preset\n    name: X"
            )
        }
        #expect(throws: DescriptionError.self) {
            try SimulatorDescription(yamlText: "accessories: 3")
        }
    }
}
