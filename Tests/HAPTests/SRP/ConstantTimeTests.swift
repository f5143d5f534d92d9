import HAP
import Testing

@Suite struct ConstantTimeTests {
    @Test func equalOnlyForTheSameBytesOfTheSameLength() {
        #expect(ConstantTime.equal("a secret", "a secret"))
        #expect(!ConstantTime.equal("a secret", "a secreT"))
        #expect(!ConstantTime.equal("A secret", "a secret"))
        #expect(!ConstantTime.equal("a secret", "a secret "))
        #expect(!ConstantTime.equal("", "x"))
        #expect(ConstantTime.equal("", ""))
        #expect(ConstantTime.equal([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equal([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
    }
}
