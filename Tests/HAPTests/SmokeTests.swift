import Testing

@testable import HAP

@Test func packageBuilds() {
    #expect(String(describing: HAPCore.self) == "HAPCore")
}
