/// A query parameter at fault: the server answers a 400 that names it.
public struct ParameterError: Error, Equatable, Sendable {
    public var parameter: String
    public var detail: String

    public init(parameter: String, detail: String) {
        self.parameter = parameter
        self.detail = detail
    }

    public static func unknown(_ name: String) -> ParameterError {
        ParameterError(parameter: name, detail: "unknown parameter '\(name)'")
    }

    public static func repeated(_ name: String) -> ParameterError {
        ParameterError(parameter: name, detail: "parameter '\(name)' is repeated")
    }
}
