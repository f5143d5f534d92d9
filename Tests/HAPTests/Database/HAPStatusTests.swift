import Foundation
import Testing

@testable import HAP
@testable import HAPTypes

@Suite struct HAPStatusTests {
    @Test("Every status has the code in hap-protocol.md §7.3")
    func everyStatusHasItsCode() {
        let expected: [HAPStatus: Int] = [
            .success: 0, .insufficientPrivileges: -70401, .serviceCommunicationFailure: -70402,
            .resourceBusy: -70403, .readOnlyCharacteristic: -70404, .writeOnlyCharacteristic: -70405,
            .notificationNotSupported: -70406, .outOfResources: -70407, .operationTimedOut: -70408,
            .resourceDoesNotExist: -70409, .invalidValueInRequest: -70410, .insufficientAuthorization: -70411,
            .notAllowedInCurrentState: -70412,
        ]
        #expect(HAPStatus.allCases.count == expected.count)
        for (status, code) in expected {
            #expect(status.rawValue == code)
        }
    }

    @Test func acceptsPositiveCodesFromOddDevices() {
        #expect(HAPStatus(code: 70402) == .serviceCommunicationFailure)
        #expect(HAPStatus(code: -70410) == .invalidValueInRequest)
        #expect(HAPStatus(code: 0) == .success)
        #expect(HAPStatus(code: -70413) == nil)
        #expect(HAPStatus(code: 12) == nil)
    }

    @Test func encodesAsTheBareNumber() throws {
        let data = try HAPJSON.encode(["status": HAPStatus.resourceDoesNotExist])
        #expect(String(decoding: data, as: UTF8.self) == #"{"status":-70409}"#)
        #expect(HAPStatus.success.isSuccess)
        #expect(!HAPStatus.resourceBusy.isSuccess)
    }
}
