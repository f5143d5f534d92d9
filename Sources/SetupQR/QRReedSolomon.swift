/// Reed–Solomon error correction over GF(256), as QR codes use it (ISO/IEC 18004:2015 §7.5.2).
///
/// The field is GF(2⁸) reduced by x⁸ + x⁴ + x³ + x² + 1 (0x11D), with α = 2. The generator polynomial of degree n is
/// (x − α⁰)(x − α¹)…(x − αⁿ⁻¹).
enum QRReedSolomon {
    /// The field's reducing polynomial, with the x⁸ term.
    static let reducingPolynomial = 0x11D

    /// αⁱ for i in 0..<255, then repeated once more so a sum of two logarithms needs no reduction.
    static let exponents: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for index in 0..<255 {
            table[index] = UInt8(value)
            table[index + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 {
                value ^= reducingPolynomial
            }
        }
        return table
    }()

    /// The logarithm to base α of each non-zero element; entry 0 is unused.
    static let logarithms: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for index in 0..<255 {
            table[Int(exponents[index])] = index
        }
        return table
    }()

    /// The product of two field elements.
    static func multiply(_ left: UInt8, _ right: UInt8) -> UInt8 {
        if left == 0 || right == 0 {
            return 0
        }
        return exponents[logarithms[Int(left)] + logarithms[Int(right)]]
    }

    /// The generator polynomial of the given degree, highest power first, without its leading 1.
    static func generator(degree: Int) -> [UInt8] {
        precondition(degree >= 1 && degree <= 254, "QR codes use between 7 and 30 error correction codewords")
        // Start from the polynomial 1 and multiply by (x − αⁱ) for each i; minus is plus in GF(2⁸).
        var coefficients: [UInt8] = [1]
        for power in 0..<degree {
            let root = exponents[power]
            var product = [UInt8](repeating: 0, count: coefficients.count + 1)
            for (index, coefficient) in coefficients.enumerated() {
                product[index] ^= coefficient
                product[index + 1] ^= multiply(coefficient, root)
            }
            coefficients = product
        }
        return Array(coefficients.dropFirst())
    }

    /// The error correction codewords for a block of data: the remainder of data·xⁿ divided by the generator.
    static func errorCorrection(for data: [UInt8], count: Int) -> [UInt8] {
        let generator = generator(degree: count)
        var remainder = [UInt8](repeating: 0, count: count)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in 0..<count {
                remainder[index] ^= multiply(generator[index], factor)
            }
        }
        return remainder
    }
}
