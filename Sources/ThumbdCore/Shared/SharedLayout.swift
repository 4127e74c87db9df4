import Cache

/// Where each kind of object of the shared tier lives under its prefix, spelled here and
/// nowhere else:
///
///     v1/<hash of a source's key prefix>/<hash of a key>   a variant (`SharedTier`)
///     purges/<record>                                      a purge's record (`SharedPurges`)
///     acks/<record>/<replica>                              a replica applied that record
///     replicas/<replica>                                   a replica's heartbeat
package struct SharedLayout: Sendable, Equatable {
    /// A folder under the prefix: listed whole, its objects one name deep.
    package struct Folder: Sendable, Equatable {
        /// Under the prefix, ending with `/`.
        package let path: String
    }

    /// Every object of the tier is under it: empty, or ending with `/`.
    package let prefix: String

    package init(prefix: String) {
        self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    /// Every variant of every source.
    package static let variants = Folder(path: "v1/")
    package static let purges = Folder(path: "purges/")
    package static let replicas = Folder(path: "replicas/")

    /// The confirmations of one purge record.
    package static func acks(of record: String) -> Folder { Folder(path: "acks/" + record + "/") }

    /// The variants of one source (every key starting with `sourcePrefix`): a purge lists it.
    package static func variants(ofSourcePrefix sourcePrefix: String) -> Folder {
        Folder(path: variants.path + StableHash.hex128(sourcePrefix) + "/")
    }

    /// The bucket's key of `name` in `folder`.
    package func key(_ name: String, in folder: Folder) -> String {
        prefix + folder.path + name
    }

    /// The bucket's key of `folder` itself, as a listing's prefix.
    package func key(of folder: Folder) -> String {
        prefix + folder.path
    }

    /// The name of a listed object in `folder`; nil for a key elsewhere, or one deeper down.
    package func name(of key: String, in folder: Folder) -> String? {
        let start = self.key(of: folder)
        guard key.hasPrefix(start) else { return nil }
        let name = key.dropFirst(start.count)
        return name.isEmpty || name.contains("/") ? nil : String(name)
    }
}
