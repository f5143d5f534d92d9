/// Drawing a QR code as text for a terminal.
extension QRCode {
    /// The symbol as lines of half blocks (▀ ▄ █ and space), two module rows to a line, with a light border.
    ///
    /// By default a block is a dark module, which suits dark text on a light background. On a terminal with a dark
    /// background pass `inverted: true`: light modules and the quiet zone are then drawn as blocks, so the code reads
    /// dark-on-light to a camera either way. The standard asks for a quiet zone of 4 modules; most phones read 2.
    /// Lines are separated by `\n`, with none after the last.
    public func terminalString(quietZone: Int = 2, inverted: Bool = false) -> String {
        let border = max(0, quietZone)
        let range = -border..<size + border
        // Whether the terminal draws ink for a module; nothing is drawn below the bottom of the quiet zone.
        func isInked(x: Int, y: Int) -> Bool {
            guard range.contains(y) else {
                return false
            }
            return self[x, y] != inverted
        }
        var lines: [String] = []
        for y in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = ""
            for x in range {
                switch (isInked(x: x, y: y), isInked(x: x, y: y + 1)) {
                case (false, false): line.append(" ")
                case (true, false): line.append("▀")
                case (false, true): line.append("▄")
                case (true, true): line.append("█")
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
