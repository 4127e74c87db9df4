import Foundation
import HTTP
import ThumbdCore
import ThumbdProtocol
import Yams

/// A configuration problem: it names the key, what was given, where, and what is allowed.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public let key: String
    public let message: String

    public var description: String { "configuration: \(key): \(message)" }
}

/// Builds the configuration from defaults, then the YAML file, then `THUMBD_*` environment
/// variables, then command-line flags: each layer overrides the one before.
public enum ConfigLoader {
    public static let defaultFile = "config/thumbd.yaml"

    public struct Result: Sendable {
        public var config: ThumbdConfig
        /// Things worth a log line that do not stop the start (unknown THUMBD_* variables).
        public var warnings: [String]
        /// The file read, if any.
        public var file: String?
    }

    /// `file` nil means the default file, used only if it exists; a file named explicitly
    /// must exist. `flags` are (key path, value, flag name) in the order given. The memory
    /// sizes are checked against `system` (the container's limit or the machine's memory).
    public static func load(file: String?, environment: [String: String],
                            flags: [(key: String, value: String, flag: String)] = [],
                            system: SystemMemory = .read()) throws(ConfigError) -> Result {
        var config = ThumbdConfig()
        var warnings: [String] = []
        var used: String?
        var presetPlaces: [String: String] = [:]
        let path = file ?? defaultFile
        if FileManager.default.fileExists(atPath: path) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigError(key: path, message: "cannot be read")
            }
            presetPlaces = try applyFile(text, named: path, to: &config)
            used = path
        } else if file != nil {
            throw ConfigError(key: path, message: "no such configuration file")
        }
        for key in ConfigKey.all {
            if let value = environment[key.environmentName] {
                try apply(key, value, from: key.environmentName, to: &config)
            }
        }
        let known = Set(ConfigKey.all.map(\.environmentName))
        for name in environment.keys.sorted() where name.hasPrefix("THUMBD_") && !known.contains(name) {
            warnings.append("ignoring unknown environment variable \(name)")
        }
        for (key, value, flag) in flags {
            guard let configKey = ConfigKey.byPath[key] else { throw ConfigError(key: key, message: "unknown key") }
            try apply(configKey, value, from: flag, to: &config)
        }
        if let bucket = config.library.bucket, config.library.s3.accessKey.isEmpty || config.library.s3.secretKey.isEmpty {
            throw ConfigError(key: "library.s3.access_key", message: "the S3 library \(bucket) needs its keys: THUMBD_S3_ACCESS_KEY and THUMBD_S3_SECRET_KEY (or library.s3.access_key and library.s3.secret_key)")
        }
        if let bucket = config.cache.shared.bucket {
            let s3 = config.sharedStoreSettings
            if s3.accessKey.isEmpty || s3.secretKey.isEmpty {
                throw ConfigError(key: "cache.shared.root", message: "the shared tier \(bucket) needs keys: THUMBD_S3_ACCESS_KEY and THUMBD_S3_SECRET_KEY (or cache.shared.s3.access_key and cache.shared.s3.secret_key)")
            }
        }
        if config.cdn.kind == .varnish && config.cdn.purgeURL.isEmpty {
            throw ConfigError(key: "cdn.purge_url", message: "a Varnish in front needs the address its purges go to (http://varnish:80 in the compose file)")
        }
        if [.fastly, .cloudflare].contains(config.cdn.kind) && (config.cdn.service.isEmpty || config.cdn.token.isEmpty) {
            throw ConfigError(key: "cdn.service", message: "\(config.cdn.kind.rawValue) purges need cdn.service (its "
                + (config.cdn.kind == .fastly ? "service ID" : "zone ID") + ") and THUMBD_CDN_TOKEN (or cdn.token)")
        }
        if config.cdn.kind != .none && config.admin.token.isEmpty {
            warnings.append("cdn.kind is \(config.cdn.kind.rawValue) but admin.token is empty: there is no POST /v1/purge, "
                + "and the CDN keeps answers until they expire")
        }
        if config.output.autoQualityMin > config.output.autoQualityMax {
            throw ConfigError(key: "output.auto_quality_min", message: "must be at most output.auto_quality_max "
                + "(\(config.output.autoQualityMax)), got \(config.output.autoQualityMin)")
        }
        // Presets are checked against the final limits, whatever order the layers set them in.
        for (name, query) in config.presets.sorted(by: { $0.key < $1.key }) {
            try checkPreset(name: name, query: query, place: presetPlaces[name] ?? "presets", config: config)
        }
        // Memory sizes that cannot fit together stop the start here, naming the keys.
        _ = try MemoryPlan.make(config: config, system: system)
        return Result(config: config, warnings: warnings, file: used)
    }

    static func apply(_ key: ConfigKey, _ value: String, from source: String, to config: inout ThumbdConfig) throws(ConfigError) {
        guard key.apply(&config, value) else {
            let given = key.secret ? "a value of \(value.count) characters" : "'\(value)'"
            throw ConfigError(key: key.path, message: "must be \(key.allowed), got \(given) (from \(source))")
        }
    }

    /// The YAML file: sections of keys, plus `presets` (name -> parameter string).
    /// Returns where each preset was defined, for messages.
    @discardableResult
    /// The keys of a YAML document applied to `config`; the presets it set, with where each
    /// was set (for messages). Public for the fuzzer.
    public static func applyFile(_ text: String, named file: String, to config: inout ThumbdConfig) throws(ConfigError) -> [String: String] {
        var presetPlaces: [String: String] = [:]
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigError(key: file, message: "is not valid YAML: \(error)")
        }
        guard let root else { return [:] }  // an empty file
        guard let sections = root.mapping else { throw ConfigError(key: file, message: "must be a mapping of sections") }
        func place(_ node: Node) -> String { node.mark.map { "\(file):\($0.line)" } ?? file }
        for (sectionNode, body) in sections {
            // An empty name would give an error naming no key (found by fuzzing).
            guard let section = sectionNode.string, !section.isEmpty else {
                throw ConfigError(key: file, message: "section names must be non-empty text (\(place(sectionNode)))")
            }
            if body.null != nil { continue }
            guard let entries = body.mapping else { throw ConfigError(key: section, message: "must be a mapping (\(place(body)))") }
            for (path, nameNode, value) in keys(of: entries, in: section) {
                let name = String(path.dropFirst(section.count + 1))
                if section == "presets" {
                    guard let query = value.scalar?.string else { throw ConfigError(key: path, message: "must be a parameter string such as w=300&h=300 (\(place(value)))") }
                    config.presets[name] = query
                    presetPlaces[name] = place(value)
                    continue
                }
                guard let key = ConfigKey.byPath[path] else {
                    throw ConfigError(key: path, message: "unknown key (\(place(nameNode)))")
                }
                if value.null != nil { continue }  // `key:` with no value keeps the default
                if let items = value.sequence {
                    // Lists: every item a plain scalar, joined for the key's parser.
                    let texts = items.compactMap { $0.scalar?.string }
                    guard texts.count == items.count else { throw ConfigError(key: path, message: "must be \(key.allowed) (\(place(value)))") }
                    try apply(key, texts.joined(separator: ","), from: place(value), to: &config)
                    continue
                }
                guard let scalar = value.scalar?.string else {
                    throw ConfigError(key: path, message: "must be \(key.allowed) (\(place(value)))")
                }
                try apply(key, scalar, from: place(value), to: &config)
            }
        }
        return presetPlaces
    }

    /// A section's entries as key paths: a nested mapping that is no key of its own gives its
    /// entries' paths (`library: { s3: { endpoint: ... } }` is `library.s3.endpoint`).
    private static func keys(of entries: Node.Mapping, in section: String) -> [(path: String, nameNode: Node, value: Node)] {
        func flattened(_ entries: Node.Mapping, _ prefix: String) -> [(path: String, nameNode: Node, value: Node)] {
            entries.flatMap { name, value in
                let path = prefix + "." + (name.string ?? "")
                if section != "presets", ConfigKey.byPath[path] == nil, let nested = value.mapping { return flattened(nested, path) }
                return [(path, name, value)]
            }
        }
        return flattened(entries, section)
    }

    /// A preset is checked like a request's parameters, so a bad one stops the start.
    static func checkPreset(name: String, query: String, place: String, config: ThumbdConfig) throws(ConfigError) {
        let path = "presets." + name
        guard !name.isEmpty else { throw ConfigError(key: path, message: "a preset needs a name (\(place))") }
        do {
            let parameters = try QueryParameters(parsing: Substring(query))
            if parameters.pairs.contains(where: { $0.name == "p" || $0.name == "s" }) {
                throw ConfigError(key: path, message: "a preset cannot contain p or s (\(place))")
            }
            _ = try TransformRequest(query: parameters, maxDimension: config.limits.maxDimension,
                                     defaultQuality: config.output.quality)
        } catch let error as ConfigError {
            throw error
        } catch let error as ParameterError {
            throw ConfigError(key: path, message: "\(error.detail) (\(place))")
        } catch {
            throw ConfigError(key: path, message: "is not a valid parameter string (\(place))")
        }
    }
}
