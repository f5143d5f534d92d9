import Foundation
import HomeGraph
import Testing

/// `UUID.canonicalString` writes exactly what Foundation's `uuidString` writes, for every byte value in every place.
struct UUIDTextTests {
    @Test func writesWhatUUIDStringWrites() {
        var ids = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))]
        // Each byte value once in each of the 16 places (rotated), then random ones.
        for value in 0...255 {
            var bytes = [UInt8](repeating: 0, count: 16)
            for place in 0..<16 { bytes[place] = UInt8((value + place * 17) % 256) }
            ids.append(
                UUID(
                    uuid: (
                        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
                        bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                    )
                )
            )
        }
        for _ in 0..<1000 { ids.append(UUID()) }
        for id in ids {
            #expect(id.canonicalString == id.uuidString)
            #expect(UUID(uuidString: id.canonicalString) == id)
        }
    }
}
