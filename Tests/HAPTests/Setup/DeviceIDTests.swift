import Foundation
import TestSupport
import Testing

@testable import HAP
@testable import HAPTypes

/// hap-protocol.md §8: the accessory's `id`.
struct DeviceIDTests {
    @Test func parsesAndPrintsUpperCaseWithColons() throws {
        let id = try DeviceID("e1:91:1A:70:85:aa")
        #expect(id.bytes == [0xE1, 0x91, 0x1A, 0x70, 0x85, 0xAA])
        #expect(id.description == "E1:91:1A:70:85:AA")
        #expect(try DeviceID(bytes: id.bytes) == id)
    }

    @Test func rejectsMalformedText() {
        let malformed = [
            "", "E1:91:1A:70:85", "E1:91:1A:70:85:AA:", "E1-91-1A-70-85-AA", "E1911A7085AA", "G1:91:1A:70:85:AA",
            "E1:91:1A:70:85:A", " E1:91:1A:70:85:A", "E1:91:1A:70:85:AAA", "E1::91:1A:70:85A", "+1:91:1A:70:85:AA",
        ]
        for text in malformed {
            #expect(throws: DeviceIDError.invalidFormat, "\(text)") { try DeviceID(text) }
        }
        #expect(throws: DeviceIDError.invalidByteCount(5)) { try DeviceID(bytes: [1, 2, 3, 4, 5]) }
    }

    @Test func roundTripsRandomIDsThroughTextAndJSON() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        for _ in 0..<500 {
            let id = DeviceID.random(using: &generator)
            #expect(try DeviceID(id.description) == id, "seed \(seed)")
            #expect(try DeviceID(id.description.lowercased()) == id, "seed \(seed)")
            let json = try JSONEncoder().encode(id)
            #expect(try JSONDecoder().decode(DeviceID.self, from: json) == id, "seed \(seed)")
        }
        #expect(DeviceID.random().bytes.count == 6)
    }
}

/// hap-protocol.md §12.1: the 4-character setup ID.
struct SetupIDTests {
    @Test func parsesFourUpperCaseAlphanumerics() throws {
        #expect(try SetupID("7OSX").rawValue == "7OSX")
        #expect(try SetupID("0000").description == "0000")
    }

    @Test func rejectsOtherText() {
        for text in ["", "7OS", "7OSXY", "7osx", "7OS-", "7OS ", "ÄOSX"] {
            #expect(throws: SetupIDError.invalidFormat, "\(text)") { try SetupID(text) }
        }
    }

    @Test func drawsValidIDsButNeverTheAbsentMarker() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let id = SetupID.random(using: &generator)
            #expect(id.rawValue != "0000", "seed \(seed)")
            #expect(try SetupID(id.rawValue) == id, "seed \(seed)")
        }
        #expect(try SetupID(SetupID.random().rawValue).rawValue.count == 4)
    }
}
