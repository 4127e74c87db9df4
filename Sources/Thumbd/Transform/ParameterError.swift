import HTTP

/// A query parameter at fault: a 400 that names it.
public struct ParameterError: Error, Equatable, Sendable {
    public var parameter: String
    public var detail: String

    public init(parameter: String, detail: String) {
        self.parameter = parameter
        self.detail = detail
    }
}

extension ParameterError {
    static func unknown(_ name: String) -> ParameterError {
        ParameterError(parameter: name, detail: "unknown parameter '\(name)'")
    }

    static func repeated(_ name: String) -> ParameterError {
        ParameterError(parameter: name, detail: "parameter '\(name)' is repeated")
    }
}

extension QueryParameters {
    /// Refuses the first parameter whose name is not in `names` (any, when `names` is empty).
    func refuse(allBut names: Set<String>) throws(ParameterError) {
        if let other = pairs.first(where: { !names.contains($0.name) }) { throw .unknown(other.name) }
    }
}
