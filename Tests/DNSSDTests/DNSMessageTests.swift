import TestSupport
import Testing

@testable import DNSSD

@Suite struct DNSMessageTests {
    /// A response written by hand: PTR `_hap._tcp.local` → `A._hap._tcp.local` compressed against the question.
    static let handWrittenResponse: [UInt8] =
        [
            0x00, 0x00, 0x84, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
            // question: _hap._tcp.local PTR, QU
            0x04, 0x5F, 0x68, 0x61, 0x70, 0x04, 0x5F, 0x74, 0x63, 0x70, 0x05, 0x6C, 0x6F, 0x63, 0x61, 0x6C, 0x00,
            0x00, 0x0C, 0x80, 0x01,
            // answer: pointer to offset 12, PTR, IN, TTL 4500, rdata "A" + pointer to 12
            0xC0, 0x0C, 0x00, 0x0C, 0x00, 0x01, 0x00, 0x00, 0x11, 0x94, 0x00, 0x04, 0x01, 0x41, 0xC0, 0x0C,
        ]

    @Test func readsCompressedNamesAndTheQUBit() throws {
        let message = try DNSMessage(bytes: Self.handWrittenResponse)
        #expect(message.isResponse)
        #expect(
            message.questions == [
                DNSQuestion(name: DNSName("_hap._tcp.local"), type: .ptr, isUnicastResponseWanted: true)
            ]
        )
        #expect(message.answers.count == 1)
        #expect(message.answers[0].name == DNSName("_HAP._tcp.local"))
        #expect(message.answers[0].ttl == 4500)
        #expect(message.answers[0].isCacheFlush == false)
        #expect(message.answers[0].data == .ptr(DNSName("a._hap._tcp.local")))
    }

    @Test func writesCompressedNames() throws {
        let message = try DNSMessage(bytes: Self.handWrittenResponse)
        #expect(try message.encoded() == Self.handWrittenResponse)
    }

    @Test func keepsTheCacheFlushBit() throws {
        let record = DNSResourceRecord(
            name: DNSName("host.local"),
            ttl: 120,
            isCacheFlush: true,
            data: .a(IPv4Address(198, 18, 90, 1))
        )
        let bytes = try DNSMessage(flags: 0x8400, answers: [record]).encoded()
        // name (12) + type (2), then the class word with the top bit set.
        #expect(bytes[12 + 12 + 2] == 0x80)
        #expect(try DNSMessage(bytes: bytes).answers == [record])
    }

    @Test func writesNSECTypeBitmaps() throws {
        let record = DNSResourceRecord(
            name: DNSName("h.local"),
            ttl: 120,
            data: .nsec(next: DNSName("h.local"), types: [.a, .srv])
        )
        let bytes = try DNSMessage(answers: [record]).encoded()
        // RFC 6762 §6.1 example shape: window 0, 5 bytes, A (bit 1) and SRV (bit 33).
        #expect(Array(bytes.suffix(7)) == [0x00, 0x05, 0x40, 0x00, 0x00, 0x00, 0x40])
        #expect(try DNSMessage(bytes: bytes).answers == [record])
    }

    @Test func rejectsAPointerLoop() {
        // A question whose name is a pointer to itself.
        let bytes: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 0x0C, 0, 1, 0, 1]
        #expect(throws: DNSMessageError.invalidPointer(offset: 12)) { try DNSMessage(bytes: bytes) }
    }

    @Test func rejectsAForwardPointer() {
        let bytes: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 0x10, 0, 1, 0x01, 0x41, 0x00, 0, 1, 0, 1]
        #expect(throws: DNSMessageError.invalidPointer(offset: 12)) { try DNSMessage(bytes: bytes) }
    }

    @Test func rejectsReservedLabelTypes() {
        let bytes: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x41, 0, 1, 0, 1]
        #expect(throws: DNSMessageError.invalidLabel(offset: 12)) { try DNSMessage(bytes: bytes) }
    }

    @Test func rejectsTruncation() {
        #expect(throws: DNSMessageError.truncated(offset: 0, needed: 2)) { try DNSMessage(bytes: []) }
        var bytes = Self.handWrittenResponse
        bytes.removeLast()
        #expect(throws: DNSMessageError.self) { try DNSMessage(bytes: bytes) }
    }

    @Test func rejectsAnARecordOfTheWrongLength() {
        let bytes: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x00, 0, 1, 0, 1, 0, 0, 0, 120, 0, 3, 1, 2, 3]
        #expect(throws: DNSMessageError.invalidRecordData(type: .a, offset: 23)) { try DNSMessage(bytes: bytes) }
    }

    @Test func rejectsNamesLongerThan255Bytes() {
        var bytes: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        for _ in 0..<5 { bytes += [63] + [UInt8](repeating: 0x61, count: 63) }
        bytes += [0, 0, 1, 0, 1]
        #expect(throws: DNSMessageError.nameTooLong(offset: 12 + 3 * 64)) { try DNSMessage(bytes: bytes) }
    }

    @Test func refusesToWriteOverlongLabelsAndStrings() {
        let longLabel = String(repeating: "x", count: 64)
        #expect(throws: DNSMessageError.self) {
            try DNSMessage(questions: [DNSQuestion(name: DNSName(labels: [longLabel]), type: .a)]).encoded()
        }
        let record = DNSResourceRecord(
            name: DNSName("a.local"),
            ttl: 1,
            data: .txt([[UInt8](repeating: 1, count: 256)])
        )
        #expect(throws: DNSMessageError.stringTooLong(length: 256)) { try DNSMessage(answers: [record]).encoded() }
    }

    @Test func roundTripsRandomMessages() throws {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        for _ in 0..<2000 {
            let message = MessageGenerator.message(using: &random)
            let bytes = try message.encoded()
            let decoded = try DNSMessage(bytes: bytes)
            #expect(decoded == message, "seed \(seed)")
            if decoded != message { return }
        }
    }

    @Test func survivesRandomAndMutatedPackets() throws {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        var seeds: [[UInt8]] = [Self.handWrittenResponse]
        for _ in 0..<32 {
            seeds.append(try MessageGenerator.message(using: &random).encoded())
        }
        var decodedCount = 0
        for round in 0..<100_000 {
            let packet: [UInt8]
            if round % 4 == 0 {
                packet = random.bytes(Int.random(in: 0..<96, using: &random))
            } else {
                packet = mutate(seeds[Int.random(in: 0..<seeds.count, using: &random)], using: &random)
            }
            if (try? DNSMessage(bytes: packet)) != nil { decodedCount += 1 }
        }
        // Reaching here is the test: no trap on any input (seed printed so a failure can be replayed).
        #expect(decodedCount >= 0, "seed \(seed)")
    }
}

/// Random valid messages for the round-trip property.
enum MessageGenerator {
    static func label(using random: inout SplitMix64) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_ ()é")
        let count = Int.random(in: 1...12, using: &random)
        return String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
    }

    static func name(using random: inout SplitMix64) -> DNSName {
        // Reuse a few suffixes so compression is exercised.
        let suffixes = [["local"], ["_hap", "_tcp", "local"], ["_services", "_dns-sd", "_udp", "local"], []]
        let suffix = suffixes[Int.random(in: 0..<suffixes.count, using: &random)]
        let prefix = (0..<Int.random(in: 0...3, using: &random)).map { _ in label(using: &random) }
        let labels = prefix + suffix
        return DNSName(labels: labels.isEmpty ? ["local"] : labels)
    }

    static func data(using random: inout SplitMix64) -> DNSRecordData {
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            return .a(
                IPv4Address(
                    UInt8.random(in: 0...255, using: &random),
                    18,
                    90,
                    UInt8.random(in: 0...255, using: &random)
                )
            )
        case 1:
            return .aaaa(random.bytes(16))
        case 2:
            return .ptr(name(using: &random))
        case 3:
            return .srv(
                priority: UInt16.random(in: 0...UInt16.max, using: &random),
                weight: UInt16.random(in: 0...UInt16.max, using: &random),
                port: UInt16.random(in: 0...UInt16.max, using: &random),
                target: name(using: &random)
            )
        case 4:
            return .txt(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    random.bytes(Int.random(in: 0...40, using: &random))
                }
            )
        case 5:
            let types = Set(
                (0..<Int.random(in: 1...5, using: &random)).map { _ in
                    UInt16.random(in: 1...300, using: &random)
                }
            )
            return .nsec(next: name(using: &random), types: types.sorted().map { DNSRecordType(rawValue: $0) })
        default:
            return .other(
                type: DNSRecordType(rawValue: 99),
                bytes: random.bytes(Int.random(in: 0...20, using: &random))
            )
        }
    }

    static func record(using random: inout SplitMix64) -> DNSResourceRecord {
        DNSResourceRecord(
            name: name(using: &random),
            ttl: UInt32.random(in: 0...UInt32.max, using: &random),
            recordClass: 1,
            isCacheFlush: Bool.random(using: &random),
            data: data(using: &random)
        )
    }

    static func message(using random: inout SplitMix64) -> DNSMessage {
        func records(_ random: inout SplitMix64) -> [DNSResourceRecord] {
            (0..<Int.random(in: 0...4, using: &random)).map { _ in record(using: &random) }
        }
        return DNSMessage(
            id: UInt16.random(in: 0...UInt16.max, using: &random),
            flags: UInt16.random(in: 0...UInt16.max, using: &random),
            questions: (0..<Int.random(in: 0...3, using: &random)).map { _ in
                DNSQuestion(
                    name: name(using: &random),
                    type: [.a, .ptr, .srv, .txt, .any][Int.random(in: 0..<5, using: &random)],
                    isUnicastResponseWanted: Bool.random(using: &random)
                )
            },
            answers: records(&random),
            authorities: records(&random),
            additionals: records(&random)
        )
    }
}
