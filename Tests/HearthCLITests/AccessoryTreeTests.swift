import HAP
import HAPTypes
import Testing
import hearth

@Suite struct AccessoryTreeTests {
    static let database = AccessoryDatabase(accessories: [
        HAPAccessory(
            accessoryID: 1,
            services: [
                HAPService(
                    instanceID: 1,
                    type: HAPUUID(apple: 0x3E),
                    characteristics: [
                        HAPCharacteristic(
                            instanceID: 2,
                            type: HAPUUID(apple: 0x23),
                            permissions: [.read],
                            format: .string,
                            value: .string("Front Door")
                        ),
                        HAPCharacteristic(
                            instanceID: 3,
                            type: HAPUUID(apple: 0x14),
                            permissions: [.write],
                            format: .bool
                        ),
                    ]
                ),
                HAPService(
                    instanceID: 8,
                    type: HAPUUID(apple: 0x45),
                    isPrimary: true,
                    characteristics: [
                        HAPCharacteristic(
                            instanceID: 9,
                            type: HAPUUID(apple: 0x1D),
                            permissions: [.read, .notify],
                            format: .uint8,
                            value: .uint(1)
                        ),
                        HAPCharacteristic(
                            instanceID: 10,
                            type: HAPUUID(apple: 0x11),
                            permissions: [.read, .notify],
                            format: .float,
                            value: .float(21.5),
                            unit: .celsius
                        ),
                    ]
                ),
            ]
        )
    ])

    @Test func drawsAccessoriesServicesAndCharacteristicsWithCatalogNames() throws {
        let text = AccessoryTree(catalog: try TypeCatalog.shared()).render(Self.database)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "Front Door (aid 1)")
        #expect(lines[1] == "├── Accessory Information (iid 1)")
        #expect(lines[2].hasPrefix("│   ├── Name [1.2]"))
        #expect(lines[2].contains("\"Front Door\"") && lines[2].hasSuffix("pr"))
        #expect(lines[3].hasPrefix("│   └── Identify [1.3]") && lines[3].contains("-") && lines[3].hasSuffix("pw"))
        #expect(lines[4] == "└── Lock Mechanism (iid 8) primary")
        #expect(lines[5].hasPrefix("    ├── Lock Current State [1.9]") && lines[5].contains("1 (secured)"))
        #expect(lines[6].contains("21.5 °C") && lines[6].hasSuffix("pr,ev"))
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })
        #expect(text.hasSuffix("\n"))
    }

    @Test func fallsBackToUUIDsWithoutACatalog() {
        let tree = AccessoryTree(catalog: nil)
        #expect(tree.serviceName(HAPUUID(apple: 0x45)) == HAPUUID(apple: 0x45).wireForm)
        #expect(tree.render(Self.database).contains("(iid 8) primary"))
    }
}
