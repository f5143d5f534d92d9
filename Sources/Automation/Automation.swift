/// The automation layer's version of its decision records.
public enum AutomationVersion {
    /// Bumped when the meaning of a decision record changes.
    public static let decisions = 1
}
