/// Namespace for the big-number arithmetic used by SRP.
public enum HAPArithmetic {}
