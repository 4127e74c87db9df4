import HTTP
import ThumbdCore
import ThumbdProtocol

/// Every configuration key: its path, what it accepts, and where it goes in `ThumbdConfig`.
/// The file, `THUMBD_*` variables and flags all go through this one table, and so does the
/// reference table of docs/configuration.md (`ReferenceDocsTests` renders it from here).
struct ConfigKey: Sendable {
    let path: String
    /// What is allowed, for error messages and the reference.
    let allowed: String
    /// The key's value in a configuration, spelled as the file takes it (`2GiB`, `10s`,
    /// `auto`), so the reference shows each default as one would write it; applying the text
    /// gives the value back (a test checks it for every default). A secret shows only
    /// whether it is set.
    let show: @Sendable (ThumbdConfig) -> String
    let apply: @Sendable (inout ThumbdConfig, String) -> Bool
    /// A variable of its own instead of the one the path makes.
    var variable: String? = nil
    /// A secret: messages never repeat its value.
    var secret = false
    /// The reference's words for a default worked out on each machine (the number of cores),
    /// where `show` would print this machine's value.
    var machineDefault: String? = nil

    /// `THUMBD_` + the path in upper case with `_`: `cache.memory_bytes` -> `THUMBD_CACHE_MEMORY_BYTES`.
    var environmentName: String { variable ?? "THUMBD_" + path.uppercased().replacingDots() }

    /// The default as the reference states it.
    var defaultText: String { machineDefault ?? show(ThumbdConfig()) }

    /// This key, with the reference's words for a default that depends on the machine.
    func documentingDefault(_ words: String) -> ConfigKey {
        var key = self
        key.machineDefault = words
        return key
    }

    static func int(_ path: String, _ range: ClosedRange<Int>, _ keyPath: WritableKeyPath<ThumbdConfig, Int> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: "an integer in \(range.lowerBound)...\(range.upperBound)",
                  show: { String($0[keyPath: keyPath]) }) { config, text in
            guard let n = ConfigValue.integer(text), range.contains(n) else { return false }
            config[keyPath: keyPath] = n
            return true
        }
    }

    static func size(_ path: String, _ range: ClosedRange<Int>, _ keyPath: WritableKeyPath<ThumbdConfig, Int> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: "a size such as 256MiB, 2GiB or a number of bytes, up to \(range.upperBound) bytes",
                  show: { sizeText($0[keyPath: keyPath]) }) { config, text in
            guard let n = ConfigValue.size(text), range.contains(n) else { return false }
            config[keyPath: keyPath] = n
            return true
        }
    }

    /// A size, or `auto` (nil) for one worked out at start.
    static func autoSize(_ path: String, _ range: ClosedRange<Int>, _ keyPath: WritableKeyPath<ThumbdConfig, Int?> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: "auto, or a size such as 256MiB, 2GiB or a number of bytes, up to \(range.upperBound) bytes",
                  show: { config in config[keyPath: keyPath].map { sizeText($0) } ?? "auto" }) { config, text in
            if text.trimmedValue().lowercased() == "auto" {
                config[keyPath: keyPath] = nil
                return true
            }
            guard let n = ConfigValue.size(text), range.contains(n) else { return false }
            config[keyPath: keyPath] = n
            return true
        }
    }

    static func duration(_ path: String, _ range: ClosedRange<Double>, _ keyPath: WritableKeyPath<ThumbdConfig, Double> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: "a duration such as 10s, 500ms or 2m, from \(format(range.lowerBound)) to \(format(range.upperBound))",
                  show: { durationText($0[keyPath: keyPath]) }) { config, text in
            guard let d = ConfigValue.duration(text), range.contains(d) else { return false }
            config[keyPath: keyPath] = d
            return true
        }
    }

    static func bool(_ path: String, _ keyPath: WritableKeyPath<ThumbdConfig, Bool> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: "true or false", show: { String($0[keyPath: keyPath]) }) { config, text in
            guard let b = ConfigValue.bool(text) else { return false }
            config[keyPath: keyPath] = b
            return true
        }
    }

    static func string(_ path: String, _ what: String, _ keyPath: WritableKeyPath<ThumbdConfig, String> & Sendable,
                       valid: @escaping @Sendable (String) -> Bool = { !$0.isEmpty }) -> ConfigKey {
        ConfigKey(path: path, allowed: what, show: { $0[keyPath: keyPath] }) { config, text in
            guard valid(text) else { return false }
            config[keyPath: keyPath] = text
            return true
        }
    }

    /// True or false, or nil for `auto`.
    static func optionalBool(_ path: String, _ keyPath: WritableKeyPath<ThumbdConfig, Bool?> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: "true, false or auto",
                  show: { config in config[keyPath: keyPath].map { String($0) } ?? "auto" }) { config, text in
            if text.trimmedValue().lowercased() == "auto" {
                config[keyPath: keyPath] = nil
                return true
            }
            guard let b = ConfigValue.bool(text) else { return false }
            config[keyPath: keyPath] = b
            return true
        }
    }

    /// A credential, read from `variable` rather than from the path's variable.
    static func secret(_ path: String, variable: String, _ keyPath: WritableKeyPath<ThumbdConfig, String> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: "one line of visible characters",
                  show: { config in config[keyPath: keyPath].isEmpty ? "" : "(hidden)" }, apply: { config, text in
            guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return false }
            config[keyPath: keyPath] = text
            return true
        }, variable: variable, secret: true)
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }

    /// Bytes in the largest binary unit that divides them: `2GiB`, `64MiB`, `1536`.
    private static func sizeText(_ bytes: Int) -> String {
        for (suffix, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes > 0 && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(suffix)"
        }
        return String(bytes)
    }

    /// Seconds as the file writes them: `1h`, `75s`, `500ms`.
    private static func durationText(_ seconds: Double) -> String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
        if seconds == seconds.rounded() { return "\(Int(seconds))s" }
        let milliseconds = seconds * 1000
        if milliseconds == milliseconds.rounded() { return "\(Int(milliseconds))ms" }
        return "\(seconds)s"
    }

    /// `0.25`, and `1` rather than `1.0`.
    private static func decimalText(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// A comma-separated list (a YAML sequence in the file arrives joined with commas).
    static func list(_ path: String, _ what: String, _ keyPath: WritableKeyPath<ThumbdConfig, [String]> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: what, show: { $0[keyPath: keyPath].joined(separator: ",") }) { config, text in
            let items = text.split(separator: ",").map { $0.trimmedValue() }.filter { !$0.isEmpty }
            guard items.allSatisfy({ item in !item.contains(" ") && !item.contains("/") }) else { return false }
            config[keyPath: keyPath] = items
            return true
        }
    }

    /// A comma-separated list of IP addresses or CIDR ranges.
    static func addressList(_ path: String, _ keyPath: WritableKeyPath<ThumbdConfig, [String]> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: "a list of IP addresses or CIDR ranges such as 10.0.0.0/8",
                  show: { $0[keyPath: keyPath].joined(separator: ",") }) { config, text in
            let items = text.split(separator: ",").map { $0.trimmedValue() }.filter { !$0.isEmpty }
            guard items.allSatisfy({ IPPrefix($0) != nil }) else { return false }
            config[keyPath: keyPath] = items
            return true
        }
    }

    static func decimal(_ path: String, _ range: ClosedRange<Double>, _ keyPath: WritableKeyPath<ThumbdConfig, Double> & Sendable) -> ConfigKey {
        ConfigKey(path: path, allowed: "a number in \(range.lowerBound)...\(range.upperBound)",
                  show: { decimalText($0[keyPath: keyPath]) }) { config, text in
            guard let d = ConfigValue.decimal(text), range.contains(d) else { return false }
            config[keyPath: keyPath] = d
            return true
        }
    }

    static func choice<T: RawRepresentable & CaseIterable & Sendable>(_ path: String, _ keyPath: WritableKeyPath<ThumbdConfig, T> & Sendable)
        -> ConfigKey where T.RawValue == String {
        ConfigKey(path: path, allowed: "one of " + T.allCases.map(\.rawValue).joined(separator: ", "),
                  show: { $0[keyPath: keyPath].rawValue }) { config, text in
            guard let value = T(rawValue: text) else { return false }
            config[keyPath: keyPath] = value
            return true
        }
    }

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    static let all: [ConfigKey] = [
        string("server.host", "a host name or IP address", \.server.host),
        int("server.port", 0...65535, \.server.port),
        int("server.event_loops", 1...256, \.server.eventLoops).documentingDefault("the number of cores"),
        int("server.max_connections", 1...1_000_000, \.server.maxConnections),
        duration("server.header_timeout", 0.1...3600, \.server.headerTimeout),
        duration("server.idle_timeout", 0.1...86400, \.server.idleTimeout),
        duration("server.response_timeout", 0.1...86400, \.server.responseTimeout),
        duration("server.drain_seconds", 0...3600, \.server.drainSeconds),
        addressList("server.trusted_proxies", \.server.trustedProxies),
        string("library.root", "a folder path, or s3://BUCKET/PREFIX", \.library.root,
               valid: { !$0.isEmpty && (!$0.hasPrefix(S3Location.scheme) || S3Location(parsing: $0) != nil) }),
        bool("library.demo", \.library.demo),
        string("library.demo_media", "a folder holding people/group.jpg and video/clip.mp4, or empty for neither", \.library.demoMedia,
               valid: { _ in true }),
        string("library.s3.endpoint", "empty (AWS S3) or an http(s) URL such as http://127.0.0.1:7480", \.library.s3.endpoint,
               valid: { $0.isEmpty || S3Endpoint(parsing: $0, pathStyle: true) != nil }),
        string("library.s3.region", "a region such as us-east-1 (auto for Cloudflare R2)", \.library.s3.region,
               valid: { !$0.isEmpty && $0.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D } }),
        optionalBool("library.s3.path_style", \.library.s3.pathStyle),
        duration("library.s3.ttl", 0...(365 * 86400), \.library.s3.ttl),
        secret("library.s3.access_key", variable: "THUMBD_S3_ACCESS_KEY", \.library.s3.accessKey),
        secret("library.s3.secret_key", variable: "THUMBD_S3_SECRET_KEY", \.library.s3.secretKey),
        string("cache.dir", "a folder path", \.cache.dir),
        autoSize("cache.memory_bytes", 0...(1 << 42), \.cache.memoryBytes),
        autoSize("cache.originals_memory_bytes", 0...(1 << 42), \.cache.originalsMemoryBytes),
        size("cache.disk_bytes", 0...(1 << 50), \.cache.diskBytes),
        string("cache.shared.root", "empty (no shared tier) or s3://BUCKET/PREFIX", \.cache.shared.root,
               valid: { $0.isEmpty || S3Location(parsing: $0) != nil }),
        duration("cache.shared.timeout", 0.05...60, \.cache.shared.timeout),
        duration("cache.shared.purge_interval", 0.1...3600, \.cache.shared.purgeInterval),
        string("cache.shared.s3.endpoint", "empty (library.s3.endpoint) or an http(s) URL", \.cache.shared.s3.endpoint,
               valid: { $0.isEmpty || S3Endpoint(parsing: $0, pathStyle: true) != nil }),
        string("cache.shared.s3.region", "empty (library.s3.region) or a region such as us-east-1", \.cache.shared.s3.region,
               valid: { $0.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D } }),
        optionalBool("cache.shared.s3.path_style", \.cache.shared.s3.pathStyle),
        secret("cache.shared.s3.access_key", variable: "THUMBD_CACHE_SHARED_S3_ACCESS_KEY", \.cache.shared.s3.accessKey),
        secret("cache.shared.s3.secret_key", variable: "THUMBD_CACHE_SHARED_S3_SECRET_KEY", \.cache.shared.s3.secretKey),
        int("limits.max_dimension", 1...100_000, \.limits.maxDimension),
        int("limits.max_source_pixels", 1...1_000_000_000, \.limits.maxSourcePixels),
        size("limits.max_source_bytes", 1...(1 << 34), \.limits.maxSourceBytes),
        int("limits.workers", 1...1024, \.limits.workers).documentingDefault("the number of cores"),
        int("limits.queue", 0...1_000_000, \.limits.queue),
        int("limits.max_frames", 1...100_000, \.limits.maxFrames),
        duration("limits.video_max_duration", 1...(30 * 86_400), \.limits.videoMaxDuration),
        duration("limits.video_decode_seconds", 0.1...600, \.limits.videoDecodeSeconds),
        duration("limits.vector_seconds", 0.1...600, \.limits.vectorSeconds),
        int("limits.vector_renderers", 0...64, \.limits.vectorRenderers),
        autoSize("limits.transform_memory_bytes", 0...(1 << 42), \.limits.transformMemoryBytes),
        autoSize("limits.memory_bytes", (64 << 20)...(1 << 46), \.limits.memoryBytes),
        int("output.quality", 1...100, \.output.quality),
        bool("output.auto_quality", \.output.autoQuality),
        decimal("output.auto_quality_target", AutoQuality.targetRange, \.output.autoQualityTarget),
        int("output.auto_quality_min", 1...100, \.output.autoQualityMin),
        int("output.auto_quality_max", 1...100, \.output.autoQualityMax),
        int("output.auto_quality_encodes", AutoQuality.encodesRange, \.output.autoQualityEncodes),
        int("output.avif_effort", OutputFormat.avifEfforts, \.output.avifEffort),
        string("output.cache_control", "a Cache-Control value", \.output.cacheControl,
               valid: { !$0.isEmpty && $0.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F } }),
        duration("output.s_maxage", 0...31_536_000, \.output.sMaxAge),
        duration("output.stale_while_revalidate", 0...31_536_000, \.output.staleWhileRevalidate),
        duration("output.stale_if_error", 0...31_536_000, \.output.staleIfError),
        bool("output.progressive", \.output.progressive),
        bool("output.shared_decode", \.output.sharedDecode),
        bool("output.client_hints", \.output.clientHints),
        string("logging.level", logLevels.joined(separator: ", "), \.logging.level, valid: { logLevels.contains($0) }),
        bool("logging.access", \.logging.access),
        list("origins.allow", "a list of host names, *.domain patterns or *", \.origins.allow),
        bool("origins.allow_private", \.origins.allowPrivate),
        int("origins.max_redirects", 0...20, \.origins.maxRedirects),
        duration("origins.connect_timeout", 0.1...120, \.origins.connectTimeout),
        duration("origins.timeout", 0.1...600, \.origins.timeout),
        size("origins.min_rate", 0...(1 << 30), \.origins.minRate),
        duration("origins.stream_timeout", 1...(7 * 86400), \.origins.streamTimeout),
        duration("origins.ttl", 0...(365 * 86400), \.origins.ttl),
        string("security.key", "a secret of at least 16 characters, or empty for unsigned requests", \.security.key,
               valid: { $0.isEmpty || $0.count >= 16 }),
        string("watermark.default", "a library image path, or empty for none", \.watermark.image, valid: { _ in true }),
        choice("watermark.position", \.watermark.position),
        decimal("watermark.scale", ThumbnailOptions.watermarkScaleRange, \.watermark.scale),
        decimal("watermark.opacity", 0...1, \.watermark.opacity),
        int("watermark.padding", ThumbnailOptions.paddingRange, \.watermark.padding),
        bool("watermark.optional", \.watermark.optional),
        bool("picsum.enabled", \.picsum.enabled),
        choice("faces.detector", \.faces.detector),
        string("faces.model", "the path of YuNet's ONNX file (face_detection_yunet_2023mar.onnx)", \.faces.model),
        decimal("faces.min_score", 0.1...0.99, \.faces.minScore),
        string("faces.cascades", "a folder of OpenCV's Haar cascades, or empty for no face detection (either detector)", \.faces.cascades,
               valid: { _ in true }),
        choice("cdn.kind", \.cdn.kind),
        string("cdn.purge_url", "an http or https URL, or empty for the CDN's own API", \.cdn.purgeURL,
               valid: { $0.isEmpty || $0.hasPrefix("http://") || $0.hasPrefix("https://") }),
        string("cdn.service", "Fastly's service ID or Cloudflare's zone ID (letters, digits, - and _)", \.cdn.service,
               valid: { $0.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" } }),
        secret("cdn.token", variable: "THUMBD_CDN_TOKEN", \.cdn.token),
        int("cdn.purge_attempts", 1...5, \.cdn.purgeAttempts),
        duration("cdn.purge_timeout", 0.1...30, \.cdn.purgeTimeout),
        string("admin.token", "a token of at least 16 characters, or empty for no admin endpoints", \.admin.token,
               valid: { $0.isEmpty || ($0.count >= 16 && $0.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }) }),
    ]

    static let byPath: [String: ConfigKey] = Dictionary(uniqueKeysWithValues: all.map { ($0.path, $0) })
}

extension String {
    fileprivate func replacingDots() -> String { String(map { $0 == "." ? "_" : $0 }) }
}
