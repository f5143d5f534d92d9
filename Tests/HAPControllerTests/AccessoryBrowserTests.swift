import DNSSD
import HAP
import NIOPosix
import Testing

@testable import HAPController

@Suite struct AccessoryBrowserTests {
    private func service(sf: String = "1", configurationNumber: String = "1", port: UInt16 = 51826) -> ResolvedService {
        ResolvedService(
            name: "Test Bridge",
            type: "_hap._tcp",
            hostName: "Test-Bridge.local.",
            port: port,
            addresses: [IPv4Address(192, 168, 1, 20)],
            txt: ["id": "aa:bb:cc:dd:ee:ff", "md": "TB1", "ci": "2", "c#": configurationNumber, "sf": sf, "s#": "1"]
        )
    }

    @Test func readsAnAccessoryFromItsTXTRecord() throws {
        let accessory = try #require(DiscoveredAccessory(service()))
        #expect(accessory.deviceID == "AA:BB:CC:DD:EE:FF")
        #expect(accessory.model == "TB1")
        #expect(accessory.category == .bridge)
        #expect(accessory.configurationNumber == 1)
        #expect(accessory.isPaired == false)
        #expect(accessory.host == "192.168.1.20")
        #expect(accessory.port == 51826)
        #expect(try #require(DiscoveredAccessory(service(sf: "0"))).isPaired)
        var notHAP = service()
        notHAP.txt["id"] = nil
        #expect(DiscoveredAccessory(notHAP) == nil)
    }

    @Test func reportsFoundUpdatedAndRemovedByDeviceID() async throws {
        let browser = AccessoryBrowser(interfaces: [], group: MultiThreadedEventLoopGroup.singleton)
        let found = try #require(DiscoveredAccessory(service()))
        #expect(await browser.translate(.added(service())) == .found(found))
        #expect(await browser.translate(.updated(service())) == nil)
        let bumped = try #require(DiscoveredAccessory(service(sf: "0", configurationNumber: "2")))
        #expect(await browser.translate(.updated(service(sf: "0", configurationNumber: "2"))) == .updated(bumped))
        #expect(await browser.translate(.removed("Test Bridge")) == .removed(deviceID: "AA:BB:CC:DD:EE:FF"))
        #expect(await browser.translate(.removed("Unknown")) == nil)
        #expect(await browser.accessories.isEmpty)
    }
}
