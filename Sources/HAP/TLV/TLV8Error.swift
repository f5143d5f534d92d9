/// Why a TLV8 message could not be read; each case names the item and the byte offset at fault.
public enum TLV8Error: Error, Equatable, Sendable {
    /// Fewer than two bytes were left for an item's type and length.
    case truncatedHeader(offset: Int)
    /// An item's length runs past the end of the message.
    case truncatedValue(tag: TLV8.Tag, offset: Int, declaredLength: Int)
    /// A same-tag item followed a fragment shorter than 255 bytes, so it cannot be a continuation.
    case continuationAfterShortFragment(tag: TLV8.Tag, offset: Int)
    /// A continuation fragment had length 0.
    case emptyContinuation(tag: TLV8.Tag, offset: Int)
    /// A tag appeared twice within one record.
    case duplicateItem(tag: TLV8.Tag, offset: Int)
    /// A required item was absent.
    case missingItem(tag: TLV8.Tag)
    /// An item had the wrong length for its meaning.
    case invalidLength(tag: TLV8.Tag, expected: Int, actual: Int)
}

extension TLV8Error: CustomStringConvertible {
    /// A sentence for people, without any value bytes.
    public var description: String {
        switch self {
        case .truncatedHeader(let offset):
            "TLV8 item header cut short at byte \(offset)"
        case .truncatedValue(let tag, let offset, let declaredLength):
            "TLV8 item \(tag) at byte \(offset) declares \(declaredLength) bytes past the end of the message"
        case .continuationAfterShortFragment(let tag, let offset):
            "TLV8 item \(tag) at byte \(offset) continues a fragment shorter than 255 bytes"
        case .emptyContinuation(let tag, let offset):
            "TLV8 item \(tag) at byte \(offset) is an empty continuation fragment"
        case .duplicateItem(let tag, let offset):
            "TLV8 item \(tag) at byte \(offset) appears twice in one record"
        case .missingItem(let tag):
            "TLV8 message lacks the required item \(tag)"
        case .invalidLength(let tag, let expected, let actual):
            "TLV8 item \(tag) has \(actual) bytes where \(expected) are expected"
        }
    }
}
