import Foundation
import HAPTypes
import HomeGraph

extension Accessory {
    /// The tests' lamp as the hub adds it after pairing, with no HAP accessory behind it: a Lightbulb service
    /// (instance 10) with On (bool, 11) and Brightness (int 0–100 by 1, 12), both readable, writable and notifying.
    public static func testLamp(named name: String = "Desk Lamp", roomID: UUID) -> Accessory {
        var ids = SystemIDGenerator()
        return testLamp(named: name, roomID: roomID, ids: &ids, brightnessUnit: nil)
    }

    /// The lamp with its ids from `ids` (the accessory's, the service's, On's, Brightness's, in that order) and
    /// Brightness in `brightnessUnit`.
    public static func testLamp(
        named name: String,
        roomID: UUID,
        ids: inout some IDGenerator,
        brightnessUnit: HAPTypes.Unit? = .percentage
    ) -> Accessory {
        Accessory(
            id: ids.makeID(),
            name: name,
            roomID: roomID,
            category: .lightbulb,
            services: [
                Service(
                    id: ids.makeID(),
                    name: name,
                    type: HAPUUID(apple: 0x43),
                    instanceID: 10,
                    isPrimary: true,
                    characteristics: [
                        Characteristic(
                            id: ids.makeID(),
                            type: HAPUUID(apple: 0x25),
                            instanceID: 11,
                            format: .bool,
                            permissions: [.read, .write, .notify],
                            value: .bool(false)
                        ),
                        Characteristic(
                            id: ids.makeID(),
                            type: HAPUUID(apple: 0x08),
                            instanceID: 12,
                            format: .int,
                            permissions: [.read, .write, .notify],
                            metadata: CharacteristicMetadata(
                                unit: brightnessUnit,
                                minValue: 0,
                                maxValue: 100,
                                minStep: 1
                            ),
                            value: .int(0)
                        ),
                    ]
                )
            ]
        )
    }
}

extension Characteristic {
    /// A lamp's Current Temperature: float, −50–100 °C by 0.1, at 20 °C.
    public static func testTemperature(id: UUID, instanceID: UInt64, permissions: [Permission]) -> Characteristic {
        Characteristic(
            id: id,
            type: HAPUUID(apple: 0x11),
            instanceID: instanceID,
            format: .float,
            permissions: permissions,
            metadata: CharacteristicMetadata(unit: .celsius, minValue: -50, maxValue: 100, minStep: 0.1),
            value: .float(20)
        )
    }
}
