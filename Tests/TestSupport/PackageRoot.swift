import Foundation

/// The package's folder, for the tests that read its files (documents, scripts, fixtures).
package enum PackageRoot {
    package static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}
