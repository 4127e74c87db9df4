/// An ordered list of header fields. Names compare case-insensitively (ASCII), order and
/// repetition are kept because some fields (Content-Length, Host) must be checked for repeats.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public var count: Int { fields.count }

    /// The first value of `name`, or nil.
    public subscript(name: HTTPFieldName) -> String? {
        for field in fields where field.name.equalsIgnoringASCIICase(name.text) { return field.value }
        return nil
    }

    /// Every value of `name`, in order.
    public func values(_ name: HTTPFieldName) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name.text) }.map(\.value)
    }

    public func contains(_ name: HTTPFieldName) -> Bool { self[name] != nil }

    /// How many fields are called `name`.
    public func count(of name: HTTPFieldName) -> Int {
        var n = 0
        for field in fields where field.name.equalsIgnoringASCIICase(name.text) { n += 1 }
        return n
    }

    public mutating func add(_ name: HTTPFieldName, _ value: String) {
        fields.append((name: name.text, value: value))
    }

    /// Replaces every field called `name` by one with `value`.
    public mutating func set(_ name: HTTPFieldName, _ value: String) {
        remove(name)
        fields.append((name: name.text, value: value))
    }

    public mutating func remove(_ name: HTTPFieldName) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name.text) }
    }

    /// True when a comma-separated field (Connection, for instance) lists `token`.
    public func hasToken(_ token: String, in name: HTTPFieldName) -> Bool {
        for field in fields where field.name.equalsIgnoringASCIICase(name.text) {
            for item in field.value.split(separator: ",") where item.trimmingOWS().equalsIgnoringASCIICase(token) {
                return true
            }
        }
        return false
    }
}

extension StringProtocol {
    public func equalsIgnoringASCIICase<S: StringProtocol>(_ other: S) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        // Header names are compared on every lookup: straight over the bytes when both are
        // contiguous (native strings are), element by element otherwise.
        let contiguous = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                for i in 0..<x.count where x[i] != y[i] {
                    guard asciiLower(x[i]) == asciiLower(y[i]) else { return false }
                }
                return true
            }
        }
        if let contiguous, let equal = contiguous { return equal }
        for (x, y) in zip(a, b) where x != y {
            guard asciiLower(x) == asciiLower(y) else { return false }
        }
        return true
    }

    /// Trims spaces and horizontal tabs (HTTP's optional white space).
    public func trimmingOWS() -> Substring {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}

@inline(__always) func asciiLower(_ c: UInt8) -> UInt8 {
    c >= 0x41 && c <= 0x5A ? c | 0x20 : c
}
