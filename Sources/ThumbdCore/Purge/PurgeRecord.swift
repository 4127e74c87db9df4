import Foundation
import WireCoding

/// A purge as one replica tells the others through the shared store (`SharedPurges`): its
/// object's body, JSON (`{"target":{"path":"trips/a.jpg"}}`).
package struct PurgeRecord: Sendable, Equatable, Codable {
    package var target: PurgeTarget

    package init(target: PurgeTarget) {
        self.target = target
    }

    package var bytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map(Array.init) ?? []
    }

    /// A record's body; also the form builds before 2026-11-29 wrote (`path=<percent-encoded>`
    /// or `url=<percent-encoded>`), kept as long as the store keeps records. Nil for anything
    /// else: no replica publishes it.
    package init?(bytes: [UInt8]) {
        if let record = try? JSONDecoder().decode(Self.self, from: Data(bytes)) {
            self = record
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let equals = text.firstIndex(of: "="), let decoded = PercentCoding.decode(text[text.index(after: equals)...]),
              let value = String(validating: decoded, as: UTF8.self) else { return nil }
        switch text[..<equals] {
        case "path":
            guard let path = try? LibraryPath(decoded: value) else { return nil }
            target = .library(path)
        case "url": target = .remote(value)
        default: return nil
        }
    }
}
