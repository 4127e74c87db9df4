import Faces
import Foundation
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

@Suite struct ConfigTests {
    func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-\(UUID().uuidString).yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func error(file text: String? = nil, env: [String: String] = [:], flags: [(key: String, value: String, flag: String)] = []) throws -> ConfigError? {
        let path = try text.map(file)
        do {
            _ = try ConfigLoader.load(file: path, environment: env, flags: flags)
            return nil
        } catch {
            return error
        }
    }

    @Test func noFileGivesTheDefaults() throws {
        // An empty file behaves as no file: nothing but defaults.
        let empty = try ConfigLoader.load(file: file(""), environment: [:])
        #expect(empty.config == ThumbdConfig())
        // Without --config the default path is used only when it exists.
        let result = try ConfigLoader.load(file: nil, environment: [:])
        if FileManager.default.fileExists(atPath: ConfigLoader.defaultFile) {
            #expect(result.file == ConfigLoader.defaultFile)
        } else {
            #expect(result.file == nil && result.config == ThumbdConfig())
        }
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() throws {
        let path = try file("server:\n  port: 1111\ncache:\n  memory_bytes: 1MiB\n")
        let env = ["THUMBD_SERVER_PORT": "2222"]
        let flag = [(key: "server.port", value: "3333", flag: "--port")]
        #expect(try ConfigLoader.load(file: path, environment: env, flags: flag).config.server.port == 3333)
        #expect(try ConfigLoader.load(file: path, environment: env).config.server.port == 2222)
        let fileOnly = try ConfigLoader.load(file: path, environment: [:])
        #expect(fileOnly.config.server.port == 1111)
        #expect(fileOnly.config.cache.memoryBytes == 1 << 20)
        #expect(fileOnly.config.cache.diskBytes == ThumbdConfig().cache.diskBytes)
    }

    @Test func sizesAndDurationsTakeUnits() throws {
        let path = try file("""
        cache:
          memory_bytes: 256MiB
          disk_bytes: 2GB
        limits:
          max_source_bytes: 1048576
        server:
          header_timeout: 500ms
          idle_timeout: 2m
          drain_seconds: 3
        """)
        let c = try ConfigLoader.load(file: path, environment: [:]).config
        #expect(c.cache.memoryBytes == 256 << 20 && c.cache.diskBytes == 2_000_000_000 && c.limits.maxSourceBytes == 1 << 20)
        #expect(c.server.headerTimeout == 0.5 && c.server.idleTimeout == 120 && c.server.drainSeconds == 3)
        #expect(ConfigValue.size("1.5KiB") == 1536 && ConfigValue.size("0") == 0 && ConfigValue.size("12XB") == nil)
        #expect(ConfigValue.duration("1h") == 3600 && ConfigValue.duration("7d") == 604_800 && ConfigValue.duration("-1s") == nil && ConfigValue.duration("s") == nil)
    }

    @Test(arguments: [
        ("server:\n  port: 70000\n", "server.port", "70000"),
        ("server:\n  port: eighty\n", "server.port", "eighty"),
        ("cache:\n  memory_bytes: lots\n", "cache.memory_bytes", "lots"),
        ("server:\n  header_timeout: forever\n", "server.header_timeout", "forever"),
        ("library:\n  demo: maybe\n", "library.demo", "maybe"),
        ("limits:\n  workers: 0\n", "limits.workers", "0"),
        ("output:\n  quality: 101\n", "output.quality", "101"),
        ("output:\n  avif_effort: 10\n", "output.avif_effort", "10"),
        ("output:\n  auto_quality_target: 0.2\n", "output.auto_quality_target", "0.2"),
        ("output:\n  auto_quality_encodes: 1\n", "output.auto_quality_encodes", "1"),
        ("logging:\n  level: loud\n", "logging.level", "loud"),
        ("server:\n  trusted_proxies: [10.0.0.0/8, balancer]\n", "server.trusted_proxies", "10.0.0.0/8,balancer"),
        ("server:\n  response_timeout: 0\n", "server.response_timeout", "0"),
    ])
    func badValuesNameTheKeyTheValueAndWhatIsAllowed(_ text: String, _ key: String, _ value: String) throws {
        let e = try #require(try error(file: text))
        #expect(e.key == key)
        #expect(e.message.contains("'\(value)'") && e.message.contains("must be"), "\(e)")
        #expect(e.message.contains(".yaml:"), "names the file and line: \(e)")
    }

    @Test func autoQualitysFloorCannotPassItsCeiling() throws {
        let e = try #require(try error(file: "output:\n  auto_quality_min: 90\n  auto_quality_max: 80\n"))
        #expect(e.key == "output.auto_quality_min" && e.message.contains("at most output.auto_quality_max"), "\(e)")
        let c = try ConfigLoader.load(file: nil, environment: ["THUMBD_OUTPUT_AUTO_QUALITY": "true",
                                                              "THUMBD_OUTPUT_AUTO_QUALITY_TARGET": "0.003"]).config
        #expect(c.output.autoQuality && c.output.autoQualityTarget == 0.003)
    }

    @Test func unknownKeysAndBadShapesAreReported() throws {
        let unknown = try #require(try error(file: "server:\n  port: 1\n  prot: 2\n"))
        #expect(unknown.key == "server.prot" && unknown.message.contains("unknown key") && unknown.message.contains(":3"))
        #expect(try error(file: "serverr:\n  port: 1\n")?.key == "serverr.port")
        #expect(try error(file: "server: 5\n")?.key == "server")
        #expect(try error(file: "- a\n- b\n")?.message.contains("mapping") == true)
        #expect(try error(file: "server: [unclosed\n")?.message.contains("YAML") == true)
        #expect(try error(file: "server:\n  port: [1, 2]\n")?.key == "server.port")
    }

    @Test func environmentErrorsAndUnknownVariables() throws {
        let e = try #require(try error(env: ["THUMBD_LIMITS_QUEUE": "-1"]))
        #expect(e.key == "limits.queue" && e.message.contains("THUMBD_LIMITS_QUEUE"))
        let result = try ConfigLoader.load(file: nil, environment: ["THUMBD_SERVER_PROT": "1", "HOME": "/root"])
        #expect(result.warnings == ["ignoring unknown environment variable THUMBD_SERVER_PROT"])
    }

    @Test func presetsAreCheckedAtStart() throws {
        let ok = try ConfigLoader.load(file: file("presets:\n  thumb: w=100&h=100&fit=cover\n"), environment: [:])
        #expect(ok.config.presets == ["thumb": "w=100&h=100&fit=cover"])
        #expect(try error(file: "presets:\n  bad: w=zero\n")?.key == "presets.bad")
        #expect(try error(file: "presets:\n  loop: p=bad\n")?.key == "presets.loop")
        // Checked against the final limits, whatever the order in the file.
        #expect(try error(file: "presets:\n  big: w=5000\nlimits:\n  max_dimension: 8000\n") == nil)
    }

    @Test func anExplicitFileMustExistButTheDefaultNeedNot() throws {
        do {
            _ = try ConfigLoader.load(file: "/nonexistent/thumbd.yaml", environment: [:])
            Issue.record("a missing explicit file must stop the start")
        } catch {
            #expect(error.message.contains("no such"))
        }
    }

    @Test func theShippedFileListsEveryKeyAndSetsTheDefaults() throws {
        let path = PackageRoot.url.appendingPathComponent("config/thumbd.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for key in ConfigKey.all {
            // `library.s3.endpoint` is `endpoint:` under `s3:` under `library:`.
            let components = key.path.split(separator: ".")
            let indent = String(repeating: "  ", count: components.count - 1), name = components.last!
            #expect(text.contains("\n\(indent)\(name):") || text.contains("\n\(indent)# \(name):"), "config/thumbd.yaml lacks \(key.path)")
        }
        var loaded = try ConfigLoader.load(file: path, environment: [:]).config
        #expect(!loaded.presets.isEmpty)
        loaded.presets = [:]
        #expect(loaded == ThumbdConfig())
    }
}

/// The face detector the `faces` keys name, made at start: a missing or wrong model stops the
/// start naming the key and what to do; `haar` and `none` need no model.
@Suite struct FaceDetectorConfigTests {
    @Test func aMissingModelStopsTheStartNamingTheKey() throws {
        var faces = ThumbdConfig.Faces()
        faces.model = "/nonexistent/face_detection_yunet_2023mar.onnx"
        do {
            _ = try faces.makeDetector()
            Issue.record("a missing model was accepted")
        } catch {
            #expect(error.key == "faces.model")
            #expect(error.message.contains("is missing") && error.message.contains("scripts/face-model.sh"), "\(error)")
        }
        faces.detector = .haar
        #expect(try faces.makeDetector()?.keyTag == "haar")
        faces.detector = .none
        #expect(try faces.makeDetector() == nil)
        faces.detector = .cnn
        faces.model = FacePhotos.modelFile
        faces.minScore = 0.7
        #expect(try faces.makeDetector()?.model == .cnn(file: FacePhotos.modelFile, minScore: 0.7))
        // An empty cascades folder turned faces off before there was a detector to choose.
        faces.cascades = ""
        #expect(try faces.makeDetector() == nil)
    }
}
