extension StringProtocol {
    /// The text without leading and trailing spaces, tabs, CR and LF: the one trimmer of
    /// trace lines, tunables, configuration lines and sysfs values.
    public func trimmingWhitespace() -> SubSequence {
        var start = startIndex, end = endIndex
        while start < end, self[start].isTrimmedWhitespace { start = index(after: start) }
        while end > start, case let before = index(before: end), self[before].isTrimmedWhitespace { end = before }
        return self[start..<end]
    }
}

extension Character {
    /// Space, tab, CR, LF and CR LF (one Character in Swift).
    fileprivate var isTrimmedWhitespace: Bool { self == " " || self == "\t" || self == "\r" || self == "\n" || self == "\r\n" }
}
