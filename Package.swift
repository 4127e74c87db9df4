// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "thumbd",
    // Linux first. For apps, ThumbdKit needs iOS 15 / macOS 12 (async URLSession delegates);
    // the server's targets use Synchronization, which needs macOS 15 to build on a Mac.
    platforms: [.iOS(.v15), .tvOS(.v15), .visionOS(.v1), .macOS(.v15)],
    products: [
        .executable(name: "thumbd", targets: ["thumbd"]),
        // The client half, for apps: Foundation only (no libvips, no server targets).
        .library(name: "ThumbdKit", targets: ["ThumbdKit"]),
        // Transports that model slow or shared links, for apps' tests and simulators.
        .library(name: "ThumbdKitTesting", targets: ["ThumbdKitTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // Linux calls Glibc's Swift overlay does not import: epoll, eventfd, accept4, openat2.
        .target(name: "CSystem"),
        // Owned file descriptors, file versions and a fast directory walker, shared by the
        // HTTP core, the disk cache and the library.
        .target(name: "FileSystem"),
        // Locked<Value>: the package's one lock, a pthread mutex owning the value it guards
        // (every platform the package declares, ThumbdKit's iOS 15 included; TSan sees it).
        .target(name: "Locking"),
        // The text and byte forms both sides of the wire share: percent coding, HTTP dates,
        // decimals, CRC-32C. Pure Swift, no Foundation.
        .target(name: "WireCoding"),
        // thumbd's URL protocol, shared by the server and ThumbdKit: parameter names and ranges,
        // the normal form and its query, signing. Pure Swift and swift-crypto (CryptoKit on
        // Apple platforms), so the client still needs no system package.
        .target(name: "ThumbdProtocol", dependencies: [
            "WireCoding",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Time for everything that waits or expires: monotonic and wall clocks, injectable.
        .target(name: "Clocks", dependencies: ["Locking"]),
        // HTTP/1.1 messages and their semantics (headers, parsing, representations with
        // conditional and range requests, problems). Pure; knows nothing of images or sockets.
        .target(name: "HTTP", dependencies: ["FileSystem", "WireCoding"]),
        // The HTTP/1.1 server: event loops, connections, their state machine. Knows nothing of images.
        .target(name: "HTTPServer", dependencies: ["HTTP", "Clocks", "CSystem", "FileSystem", "Locking", "WireCoding"]),
        // Stand-ins for functions the libraries under thumbd look up process-wide (`pg_`):
        // liborc's program compile and free put under one lock (orcguard.c), libjpeg's large
        // buffers kept between decodes (jpegscratch.c), and the printf handlers libquadmath
        // (under OpenCV) registers refused (printfhooks.c). They must be in the dynamic symbol
        // table to come before the libraries' own, for every executable that links them (the
        // server, the test runners): the package's one linker block.
        .target(name: "CProcessGuards",
                linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=orc_program_compile",
                                               "-Xlinker", "--export-dynamic-symbol=orc_program_free",
                                               "-Xlinker", "--export-dynamic-symbol=jpeg_get_large",
                                               "-Xlinker", "--export-dynamic-symbol=jpeg_free_large",
                                               "-Xlinker", "--export-dynamic-symbol=register_printf_specifier",
                                               "-Xlinker", "--export-dynamic-symbol=register_printf_modifier",
                                               "-Xlinker", "--export-dynamic-symbol=register_printf_type"])]),
        // libvips, found with pkg-config; its variadic calls wrapped in C (`tv_`).
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .target(name: "CVipsShim", dependencies: ["CVips", "CProcessGuards"]),
        // OpenCV's face detectors behind a C interface (`fd_`; C++ inside): the YuNet CNN through
        // its DNN module, and the Haar cascades. Debian ships no pkg-config file for the modules
        // alone (`opencv4.pc` comes with every module, VTK and MPI), so the header folder is named
        // here and the four libraries linked by name.
        .target(name: "CFaceShim",
                cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
                linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_imgproc"),
                                 .linkedLibrary("opencv_core")]),
        // FFmpeg's libraries (Debian's libavformat-dev, libavcodec-dev, libswscale-dev) behind a C
        // interface (`vd_`): a video's facts and one frame of it, read through a reader of ours (memory,
        // a file, ranged GETs). With `Video`, its Swift face.
        .target(name: "CVideoShim",
                linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"),
                                 .linkedLibrary("avutil")]),
        .target(name: "Video", dependencies: ["CVideoShim"]),
        // The libvips wrapper and the transform pipeline (faces cropped to and pixelated where
        // it is told they are).
        .target(name: "Imaging", dependencies: ["CVipsShim", "CProcessGuards", "ThumbdProtocol", "WireCoding"]),
        // Faces found with OpenCV (`CFaceShim`) in a small upright copy libvips makes.
        .target(name: "Faces", dependencies: ["CFaceShim", "Imaging", "ThumbdProtocol", "WireCoding",
                                             .product(name: "Crypto", package: "swift-crypto")]),
        // SVG and PDF read and drawn in renderer processes of their own (seccomp, rlimits, a
        // deadline), never in the server's: the pool, the wire messages, and the child's loop.
        .target(name: "VectorPages", dependencies: ["Imaging", "CSystem", "Clocks", "Locking", "WireCoding"]),
        // libcurl, for fetching from origins and every S3 request; its variadic setopt wrapped in C.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CurlShim", dependencies: ["CCurl"]),
        // Memory and disk cache tiers.
        .target(name: "Cache", dependencies: ["Clocks", "FileSystem", "Locking", "WireCoding"]),
        // The domain: the thumbnail service and its stages, the library backends (folder,
        // bucket) and the originals stores, the S3 client, the purge, the concurrency pieces.
        // Never the HTTP server: backends resolve, routes answer.
        .target(name: "ThumbdCore", dependencies: [
            "Cache",
            "Clocks",
            "CSystem",
            "CurlShim",
            "FileSystem",
            "HTTP",
            "Faces",
            "Imaging",
            "Locking",
            "ThumbHash",
            "ThumbdProtocol",
            "VectorPages",
            "Video",
            "WireCoding",
            .product(name: "DequeModule", package: "swift-collections"),
            .product(name: "Logging", package: "swift-log"),
            // SHA-256 of the CDN tags (`SurrogateKeys`).
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // The application: routes, presentation, problems, configuration, logs, the
        // composition root.
        .target(name: "Thumbd", dependencies: [
            "Cache",
            "Clocks",
            "CSystem",
            "HTTP",
            "HTTPServer",
            "Faces",
            "Imaging",
            "Locking",
            "ThumbdCore",
            "ThumbdProtocol",
            "VectorPages",
            "Video",
            "WireCoding",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Yams", package: "Yams"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], exclude: ["Assets"], plugins: ["EmbedAssets"]),
        // What the app serves as it is (docs/openapi.yaml, Assets/gallery.html), embedded as
        // Swift constants at build time.
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["embed-asset"]),
        .executableTarget(name: "embed-asset"),
        // Thin command-line entry point.
        .executableTarget(name: "thumbd", dependencies: [
            "Thumbd",
            "Locking",
            "ThumbdProtocol",
            "VectorPages",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Fuzz targets in one binary: libFuzzer drives it under `make fuzz`; built normally it
        // replays the kept corpus (Tests/Fuzz/corpus) in `make test`.
        .executableTarget(name: "thumbd-fuzz", dependencies: ["HTTP", "Cache", "Clocks", "Imaging", "Thumbd", "ThumbdCore", "ThumbdProtocol",
                                                             "VectorPages", "Video"]),
        // ThumbHash placeholders, encoded by the server and decoded by it and by the client. Pure Swift.
        .target(name: "ThumbHash"),
        // The Swift client: URLs, listing, loader, caches, resume, cell bindings. Foundation only.
        .target(name: "ThumbdKit", dependencies: [
            "Locking", "ThumbHash", "ThumbdProtocol", "WireCoding", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // ThumbdKit's test transports: a throttled one (latency, bandwidth, jitter per transfer)
        // and a shared link (one bottleneck for all transfers, as a phone's radio).
        .target(name: "ThumbdKitTesting", dependencies: ["ThumbdKit", "Locking"]),
        // Simulates a scrolling grid against a thumbd to measure what a user would feel.
        .executableTarget(name: "thumbd-quality", dependencies: ["Imaging", "ThumbdProtocol"]),
        .executableTarget(name: "thumbd-scroll", dependencies: ["ThumbdKit", "ThumbdKitTesting", "Locking", "ThumbdProtocol"]),
        // A raw-socket HTTP client the integration tests share.
        .target(name: "TestSupport", dependencies: ["ThumbdProtocol"], path: "Tests/TestSupport"),
        .testTarget(name: "HTTPTests", dependencies: [
            "HTTP",
            "FileSystem",
            "WireCoding",
            "TestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "HTTPServerTests", dependencies: [
            "HTTP",
            "HTTPServer",
            "Clocks",
            "FileSystem",
            "WireCoding",
            "TestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "CacheTests", dependencies: [
            "Cache",
            "Clocks",
            "WireCoding",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        // Images only tests make (CMYK, 16 bits per sample), for the suites that read them.
        .target(name: "ImagingTestSupport", dependencies: ["Imaging", "CVipsShim"], path: "Tests/ImagingTestSupport"),
        .testTarget(name: "ImagingTests", dependencies: [
            "CProcessGuards",
            "Imaging",
            "ImagingTestSupport",
            "Locking",
            "ThumbdProtocol",
            "TestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "FileSystemTests", dependencies: ["FileSystem"]),
        .testTarget(name: "ClocksTests", dependencies: ["Clocks"]),
        .testTarget(name: "FacesTests", dependencies: ["Faces", "Imaging", "ThumbdProtocol", "TestSupport"]),
        .testTarget(name: "VideoTests", dependencies: ["Video", "TestSupport"]),
        .testTarget(name: "VectorPagesTests", dependencies: [
            "VectorPages", "Imaging", "Clocks", "TestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "WireCodingTests", dependencies: [
            "WireCoding",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "ThumbdProtocolTests", dependencies: [
            "ThumbdProtocol",
            "TestSupport",
            "WireCoding",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "ThumbHashTests", dependencies: ["ThumbHash", "TestSupport"]),
        .testTarget(name: "ThumbdKitTests", dependencies: [
            "ThumbdKit", "ThumbdKitTesting", "Locking", "Thumbd", "ThumbdCore", "HTTP", "HTTPServer", "Clocks", "Imaging", "TestSupport",
            "ThumbdProtocol", "WireCoding",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "ThumbdTests", dependencies: [
            "ImagingTestSupport",
            "Thumbd", "ThumbdCore", "HTTP", "HTTPServer", "Clocks", "Imaging", "Locking", "TestSupport", "ThumbdProtocol", "WireCoding",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
    ]
)
