import Testing

@testable import SetupQR

/// ISO/IEC 18004:2015 §7.5.2: Reed–Solomon error correction over GF(256).
struct QRCodeReedSolomonTests {
    @Test func generatesTheFieldFromTheReducingPolynomial() {
        #expect(QRReedSolomon.exponents[0] == 1)
        #expect(QRReedSolomon.exponents[8] == 0x1D)  // α⁸ = α⁴ + α³ + α² + 1
        #expect(QRReedSolomon.exponents[255] == 1)
        #expect(Set(QRReedSolomon.exponents[0..<255]).count == 255)
    }

    @Test func multipliesByTheInverseToOne() {
        for value in 1...255 {
            let inverse = QRReedSolomon.exponents[255 - QRReedSolomon.logarithms[value]]
            #expect(QRReedSolomon.multiply(UInt8(value), inverse) == 1)
        }
        #expect(QRReedSolomon.multiply(0, 0x53) == 0)
    }

    @Test("The degree-7 generator has the exponents of Annex A")
    func buildsTheGeneratorOfAnnexA() {
        // x⁷ + α⁸⁷x⁶ + α²²⁹x⁵ + α¹⁴⁶x⁴ + α¹⁴⁹x³ + α²³⁸x² + α¹⁰²x + α²¹
        let exponents = QRReedSolomon.generator(degree: 7).map { QRReedSolomon.logarithms[Int($0)] }
        #expect(exponents == [87, 229, 146, 149, 238, 102, 21])
    }

    @Test("HELLO WORLD at 1-M gets the error correction of the published example")
    func matchesThePublishedHelloWorldExample() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        let correction = QRReedSolomon.errorCorrection(for: data, count: 10)
        #expect(correction == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }
}
