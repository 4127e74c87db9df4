/// Padding in pixels on each side, as `pad` spells it: `t,r,b,l`, or one value for all four.
public struct EdgeInsets: Sendable, Hashable, CustomStringConvertible {
    public var top: Int
    public var right: Int
    public var bottom: Int
    public var left: Int

    public init(top: Int, right: Int, bottom: Int, left: Int) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
    }

    public init(all: Int) { self.init(top: all, right: all, bottom: all, left: all) }

    public var isZero: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }

    /// Every side times a ratio, as the server rounds `w * dpr`.
    public func scaled(by ratio: Double) -> EdgeInsets {
        func s(_ n: Int) -> Int { Int((Double(n) * ratio).rounded()) }
        return EdgeInsets(top: s(top), right: s(right), bottom: s(bottom), left: s(left))
    }

    /// One value when all four sides agree: one spelling per padding.
    public var description: String {
        top == right && right == bottom && bottom == left ? String(top) : "\(top),\(right),\(bottom),\(left)"
    }
}
