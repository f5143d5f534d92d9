import HAP
import TestSupport
import Testing

@Suite struct HTTPFuzzTests {
    static let seeds: [[UInt8]] = [
        Array("GET /characteristics?id=1.9&ev=1 HTTP/1.1\r\nHost: 10.0.0.2\r\n\r\n".utf8),
        Array(
            "PUT /characteristics HTTP/1.1\r\nContent-Length: 2\r\nContent-Type: application/hap+json\r\n\r\n{}".utf8
        ),
        Array("HTTP/1.1 207 Multi-Status\r\nContent-Length: 4\r\n\r\nnull".utf8),
        Array("EVENT/1.0 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: 2\r\n\r\n{}".utf8),
    ]

    @Test("100,000 random and mutated buffers never crash either parser")
    func survivesRandomAndMutatedInput() {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        var completed = 0
        for round in 0..<100_000 {
            let input: [UInt8]
            if round.isMultiple(of: 4) {
                input = random.bytes(Int.random(in: 0...300, using: &random))
            } else {
                let base = Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &random)]
                input = mutate(base + base, using: &random)
            }
            var requests = HTTPRequestParser(maximumHeadLength: 256, maximumBodyLength: 64)
            var responses = HTTPResponseParser(maximumHeadLength: 256, maximumBodyLength: 64)
            var offset = 0
            while offset < input.count {
                let end = min(input.count, offset + Int.random(in: 1...64, using: &random))
                requests.append(input[offset..<end])
                responses.append(input[offset..<end])
                offset = end
                while let request = try? requests.nextRequest() {
                    #expect(request.body.count <= 64)
                    completed += 1
                }
                while (try? responses.nextResponse()) != nil { completed += 1 }
            }
        }
        #expect(completed > 0, "seed \(seed)")
    }
}
