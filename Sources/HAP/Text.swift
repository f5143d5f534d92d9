extension StringProtocol {
    /// The text without white space (spaces, tabs, line breaks) at either end; needs no Foundation.
    public func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}

extension Unicode.Scalar {
    /// Whether writing the character could move a terminal's cursor, change its colours or reorder what follows it:
    /// a control character other than new line and tab (C0, DEL, C1), or a bidirectional embedding, override or
    /// isolate character (U+202A–U+202E, U+2066–U+2069).
    public var isTerminalControl: Bool {
        switch value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
