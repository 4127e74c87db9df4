import Foundation

/// The `Link` field (RFC 8288), as far as paging needs it.
enum LinkHeader {
    /// The target of the first link whose `rel` includes `relation`.
    static func target(of field: String, relation: String) -> String? {
        for link in field.split(separator: ",") {
            let parts = link.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let reference = parts.first, reference.hasPrefix("<"), reference.hasSuffix(">") else { continue }
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "rel" else { continue }
                let relations = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased().split(separator: " ")
                if relations.contains(Substring(relation)) { return String(reference.dropFirst().dropLast()) }
            }
        }
        return nil
    }
}
