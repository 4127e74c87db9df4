import Foundation

/// JSON response bodies from `Encodable` values: keys sorted (Foundation's encoder otherwise
/// orders them by hash, which changes from one process to the next, and ETags are made from
/// some bodies), slashes not escaped (URLs stay as written).
public enum JSONBody {
    public static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding values made of strings and numbers cannot fail.
        guard let data = try? encoder.encode(value) else { preconditionFailure("JSONBody: \(type(of: value)) did not encode") }
        return String(decoding: data, as: UTF8.self)
    }

    /// A JSON string literal (quotes included), for embedding a value in a script.
    public static func quoted(_ text: String) -> String { encode(text) }
}
