/// Comparisons of secrets whose time depends only on the lengths compared, never on where the bytes differ.
public enum ConstantTime {
    /// Whether `left` and `right` hold the same bytes; the time depends only on their lengths.
    public static func equal(_ left: some Collection<UInt8>, _ right: some Collection<UInt8>) -> Bool {
        SRPFormulas.equalityMask(Array(left), Array(right)) == 0xFF
    }

    /// Whether two texts are the same (as UTF-8); the time depends only on their lengths.
    public static func equal(_ left: String, _ right: String) -> Bool {
        equal(left.utf8, right.utf8)
    }
}
