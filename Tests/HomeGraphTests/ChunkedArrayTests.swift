import Foundation
import HomeGraph
import Testing

/// A home's triggers are a `ChunkedArray`: it behaves as an array (value semantics, order, equality, JSON), while a
/// change to one element of shared storage copies one chunk.
@Suite struct ChunkedArrayTests {
    @Test func behavesAsAnArray() throws {
        var array: [Int] = []
        var chunked = ChunkedArray<Int>()
        for number in 0..<1000 {
            array.append(number)
            chunked.append(number)
        }
        #expect(Array(chunked) == array)
        let snapshot = chunked
        chunked[500] = -1
        array[500] = -1
        #expect(Array(chunked) == array)
        #expect(snapshot[500] == 500, "a change to a copy changed the original")
        chunked.remove(at: 3)
        array.remove(at: 3)
        chunked.insert(7, at: 200)
        array.insert(7, at: 200)
        chunked.removeAll { $0 % 3 == 0 }
        array.removeAll { $0 % 3 == 0 }
        #expect(Array(chunked) == array)
        #expect(chunked.count == array.count)
        #expect(chunked == ChunkedArray(array))
        #expect(chunked != snapshot)
        let json = try JSONEncoder().encode(chunked)
        #expect(json == (try JSONEncoder().encode(array)))
        #expect(try JSONDecoder().decode(ChunkedArray<Int>.self, from: json) == chunked)
        #expect(chunked.firstIndex(of: 7) == array.firstIndex(of: 7))
        #expect(chunked.array == array)
        #expect(ChunkedArray([1, 2]).array == [1, 2])
        #expect(ChunkedArray<Int>().array == [])
    }

    /// An element's field changes in place, and only in the copy that changed it.
    @Test func changesAFieldOfAnElement() {
        struct Lamp: Equatable {
            var name: String
            var levels: [Int]
        }
        var lamps = ChunkedArray((0..<40).map { Lamp(name: "Lamp \($0)", levels: [$0]) })
        let snapshot = lamps
        lamps[33].levels[0] = 99
        lamps[33].name += "!"
        #expect(lamps[33] == Lamp(name: "Lamp 33!", levels: [99]))
        #expect(snapshot[33] == Lamp(name: "Lamp 33", levels: [33]))
        #expect(Array(lamps[0..<33]) == Array(snapshot[0..<33]))
        #expect(Array(lamps[34...]) == Array(snapshot[34...]))
    }
}
