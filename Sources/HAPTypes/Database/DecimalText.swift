/// Decimal numbers written straight into bytes, for query strings here and HTTP heads in `HAP`.
package enum DecimalText {
    /// Appends `value` in decimal, as `String(value)` writes it.
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var remaining = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(remaining / divisor))
            remaining %= divisor
            divisor /= 10
        }
    }
}
