/// One transform parameter, all of it in one row: its name, what it means for the reference,
/// how a value is read into the options (a 400 naming it when it cannot be), and how it is
/// spelled in the normal form and in the preset form. `ThumbnailOptions.parameters` is the
/// table, in the normal form's order; adding a parameter is adding a row (and its field, its
/// key text, its stage of the pipeline).
public struct URLParameter: Sendable {
    public let name: String
    /// Its row of the parameter reference (docs/thumbnails.md, rendered from the table by
    /// `ReferenceDocsTests`), so the page cannot describe a parameter the code lacks.
    public let summary: Summary
    /// Reads `text` into the options; `maxDimension` bounds the sizes.
    let read: @Sendable (_ options: inout ThumbnailOptions, _ text: String, _ maxDimension: Int) throws(ParameterError) -> Void
    /// Its value in the normal form, nil when it is not given or the normal form drops it.
    let normal: @Sendable (NormalForm) -> String?
    /// Its value as given, nil when it is not (the preset form, where nothing is folded).
    let given: @Sendable (ThumbnailOptions) -> String?

    /// What the reference says of a parameter, in Markdown: the values it takes, what holds
    /// without it, and what it does. No `|`: each is one cell of a table.
    public struct Summary: Sendable {
        public let values: String
        public let defaultValue: String
        public let effect: String

        public init(values: String, defaultValue: String, effect: String) {
            self.values = values
            self.defaultValue = defaultValue
            self.effect = effect
        }
    }

    /// What the normal form of one set of options is worked out from, once for every row.
    struct NormalForm {
        let options: ThumbnailOptions
        /// The options normalized as the server will (`TransformOptions.normalize()`).
        let normal: TransformOptions
        /// A Client Hint decides a size (`w=auto`, `dpr=auto`): nothing is folded into pixels.
        let hinted: Bool
        /// `dpr`, clamped; 1 when not given.
        let ratio: Double
        /// `w` and `h` in pixels (in points when hinted).
        let width: Int?
        let height: Int?
        /// The output format `fm` names; nil for none or `auto`.
        let output: OutputFormat?
    }
}

/// Reading one parameter's text, with the error that names it.
enum ParameterText {
    static func integer(_ name: String, _ text: String, in range: ClosedRange<Int>) throws(ParameterError) -> Int {
        guard let n = ThumbnailOptions.integer(Substring(text)), range.contains(n) else {
            throw ParameterError(parameter: name, detail: "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return n
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ text: String, _ type: T.Type) throws(ParameterError) -> T
        where T.RawValue == String {
        guard let value = T(rawValue: text) else {
            throw ParameterError(parameter: name, detail: "\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
        }
        return value
    }

    static func flag(_ name: String, _ text: String) throws(ParameterError) -> Bool {
        guard text == "0" || text == "1" else { throw ParameterError(parameter: name, detail: "\(name) must be 0 or 1, got '\(text)'") }
        return text == "1"
    }

    static func decimal(_ name: String, _ text: String, in range: ClosedRange<Double>, zero: Bool = false) throws(ParameterError) -> Double {
        guard let value = ThumbnailOptions.decimal(text), range.contains(value) || (zero && value == 0) else {
            throw ParameterError(parameter: name, detail: "\(name) must be \(zero ? "0 or " : "")a number in "
                + "\(ThumbnailOptions.decimalText(range.lowerBound))...\(ThumbnailOptions.decimalText(range.upperBound)), got '\(text)'")
        }
        return value
    }

    static func integers(_ name: String, _ text: String, count: Set<Int>, in range: ClosedRange<Int>, spelling: String) throws(ParameterError) -> [Int] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { ThumbnailOptions.integer($0) }
        guard count.contains(parts.count), numbers.count == parts.count, numbers.allSatisfy(range.contains) else {
            throw ParameterError(parameter: name, detail: "\(name) must be \(spelling), each in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return numbers
    }
}
