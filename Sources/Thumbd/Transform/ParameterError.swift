/// A query parameter at fault: a 400 that names it.
public struct ParameterError: Error, Equatable, Sendable {
    public var parameter: String
    public var detail: String

    public init(parameter: String, detail: String) {
        self.parameter = parameter
        self.detail = detail
    }
}
