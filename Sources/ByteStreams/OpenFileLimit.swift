#if canImport(Glibc)
    import Glibc
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`).
package enum OpenFileLimit {
    /// The soft and hard limits now.
    package static func current() -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (1024, 1024) }
        return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one (at most 1,048,576); returns the limits before and after.
    @discardableResult
    package static func raiseSoftLimitToHard() -> (before: Int, after: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (1024, 1024) }
        let before = clamp(limit.rlim_cur)
        let target = min(limit.rlim_max, rlim_t(1 << 20))
        guard limit.rlim_cur < target else { return (before, before) }
        limit.rlim_cur = target
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (before, before) }
        return (before, clamp(target))
    }

    private static func clamp(_ value: rlim_t) -> Int {
        value > rlim_t(Int32.max) ? Int(Int32.max) : Int(value)
    }
}
