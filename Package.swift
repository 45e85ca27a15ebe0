// swift-tools-version:6.0
// mdocverify: batch and offline verification of ISO/IEC 18013-5 mobile documents.
//
// Layers, bottom to top (docs/architecture.md). A target may depend only on targets listed
// before it. MdocImaging sits below MdocVerification: it reports what it finds in images (a QR
// code, an upload's fit) and the image checks of MdocVerification judge it; it imports no check
// vocabulary. Each C library sits behind exactly one system-library (or shim) target, and each
// of those is imported by exactly one Swift target:
//   COpenSSL     -> MdocCrypto
//   CImageCodecs -> MdocImaging   (libjpeg + libpng, with the setjmp shim libjpeg needs)
//   CZBar        -> MdocImaging
//   CArchive     -> MdocIngest
//   CQREncode    -> MdocSamples   (QR rendering for the sample generator)
//   CZlib        -> MdocTrustLists (status lists: zlib, RFC 1950)
//   CLibPQ       -> MdocPostgres  (PostgreSQL's client library)
//   CSDBus       -> MdocDBus      (sd-bus from libsystemd: BlueZ over D-Bus, with a shim for variadic calls)
//   CFuzzerDriver -> mdocverify-fuzz (libFuzzer's driver; linked only by bin/fuzz)
import PackageDescription

/// The executables allocate through jemalloc (Debian `libjemalloc-dev`, installed by bin/setup):
/// a batch run makes and frees millions of small objects on several threads (BENCHMARKS.md,
/// "Allocator"). Libraries and test bundles keep the system allocator.
let jemalloc: [LinkerSetting] = [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]

/// Locks on pthread mutexes, which ThreadSanitizer sees (docs/reliability.md, "Sanitizers").
let locks: Target.Dependency = .product(name: "NIOConcurrencyHelpers", package: "swift-nio")

let package = Package(
    name: "mdocverify",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "mdocverify", targets: ["mdocverify"]),
        .executable(name: "mdocverify-bench", targets: ["mdocverify-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // MARK: C libraries
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CZBar", pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(
            name: "CArchive", pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(
            name: "CQREncode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CSDBus", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        // Declares libFuzzer's driver; bin/fuzz links the library (docs/reliability.md).
        .systemLibrary(name: "CFuzzerDriver"),
        .target(
            name: "CImageCodecs",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16")]),

        // MARK: Core
        .target(name: "MdocTime"),
        .target(name: "MdocFiles"),
        .target(name: "MdocChecks"),
        .target(name: "MdocCBOR"),
        .target(name: "MdocCrypto", dependencies: ["COpenSSL", "MdocTime", locks]),
        .target(name: "MdocCOSE", dependencies: ["MdocCBOR", "MdocCrypto"]),
        .target(name: "MdocModel", dependencies: ["MdocCBOR", "MdocCOSE", "MdocCrypto", "MdocTime"]),
        .target(
            name: "MdocTrustLists",
            dependencies: ["MdocFiles", "CZlib", "MdocCBOR", "MdocCOSE", "MdocCrypto", "MdocModel", "MdocTime", locks]),
        .target(name: "MdocTrust", dependencies: ["MdocCrypto", "MdocTime", locks]),
        .target(name: "MdocImaging", dependencies: ["CImageCodecs", "CZBar", "MdocCrypto"]),
        .target(
            name: "MdocVerification",
            dependencies: [
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust", "MdocTrustLists", "MdocImaging",
                "MdocTime", locks,
            ]),

        .target(name: "MdocSeal", dependencies: ["MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocTime", locks]),

        // MARK: Edges
        .target(name: "MdocIngest", dependencies: ["CArchive", "MdocCrypto"]),
        .target(name: "MdocPostgres", dependencies: ["CLibPQ", "MdocStore", locks]),
        .target(
            name: "MdocStore",
            dependencies: ["MdocFiles",
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocTime", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"), locks,
            ]),
        .target(name: "MdocProof", dependencies: ["MdocFiles", "MdocChecks", "MdocCBOR", "MdocCOSE", "MdocCrypto", "MdocTime", locks]),
        .target(
            name: "MdocKiosk",
            dependencies: [
                "MdocChecks", "MdocCrypto", "MdocSeal", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .target(name: "MdocReports", dependencies: ["MdocChecks", "MdocStore", "MdocTime"]),
        .target(name: "MdocDBus", dependencies: ["CSDBus", locks]),
        .target(name: "MdocBLE", dependencies: ["MdocChecks", "MdocCrypto", "MdocDBus", locks]),
        .target(
            name: "MdocPipeline",
            dependencies: ["MdocFiles",
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust", "MdocTrustLists",
                "MdocVerification", "MdocImaging", "MdocIngest", "MdocStore", "MdocProof", "MdocTime", locks,
            ]),
        .target(
            name: "MdocCapture",
            dependencies: [
                "MdocBLE", "MdocCBOR", "MdocChecks", "MdocCrypto", "MdocDBus", "MdocIngest", "MdocModel", "MdocPipeline", "MdocVerification",
                "MdocTime", locks,
            ]),
        .target(
            name: "MdocIntake",
            dependencies: ["MdocFiles",
                "MdocChecks", "MdocCrypto", "MdocIngest", "MdocPipeline", "MdocReports", "MdocSeal", "MdocStore", "MdocTrust",
                .product(name: "GRDB", package: "GRDB.swift"), locks,
            ]),
        .target(
            name: "MdocSync",
            dependencies: ["MdocFiles",
                "MdocIntake", "MdocKiosk", "MdocSeal", "MdocCrypto", "MdocIngest", "MdocPipeline", "MdocTime", "MdocTrust",
                "MdocTrustLists", "MdocVerification",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .target(
            name: "MdocSamples",
            dependencies: ["MdocFiles",
                "CQREncode", "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocImaging", "MdocIngest",
                "MdocTime", "MdocTrustLists",
            ]),

        // MARK: Executables
        .executableTarget(
            name: "mdocverify",
            dependencies: ["MdocFiles",
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocModel", "MdocTrust", "MdocVerification",
                "MdocImaging", "MdocIngest", "MdocStore", "MdocProof", "MdocReports", "MdocPipeline",
                "MdocSamples", "MdocTime", "MdocTrustLists", "MdocBLE", "MdocCapture", "MdocDBus",
                "MdocSeal", "MdocKiosk", "MdocIntake", "MdocSync", "MdocPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"), locks,
            ],
            linkerSettings: jemalloc, plugins: ["BuildCommit"]),
        // Names the commit the binary is built from, for --version (scripts/build-commit.sh).
        .plugin(name: "BuildCommit", capability: .buildTool()),
        // The tests' stand-in for BlueZ (a private bus, no Bluetooth): not a product.
        .executableTarget(
            name: "bluez-standin",
            dependencies: ["MdocCBOR", "MdocCOSE", "MdocCrypto", "MdocDBus", "MdocModel", "MdocSamples", locks]),
        // The fuzz targets: a replay tool in a normal build, a libFuzzer binary built by bin/fuzz.
        .executableTarget(
            name: "mdocverify-fuzz",
            dependencies: [
                "CFuzzerDriver", "MdocBLE", "MdocCBOR", "MdocChecks", "MdocCOSE", "MdocCrypto", "MdocImaging", "MdocIngest",
                "MdocModel", "MdocSamples", "MdocSeal", "MdocTime", "MdocTrust", "MdocTrustLists", "MdocVerification",
            ]),
        .executableTarget(
            name: "mdocverify-bench",
            dependencies: ["MdocFiles",
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust",
                "MdocVerification", "MdocImaging", "MdocIngest", "MdocPipeline", "MdocSamples", "MdocStore",
                "MdocTime", "MdocBLE", "MdocCapture", "MdocSeal", "MdocKiosk", "MdocTrustLists", "MdocPostgres", locks,
            ],
            linkerSettings: jemalloc),

        // MARK: Tests
        .target(
            name: "MdocTestSupport",
            dependencies: [
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust", "MdocVerification",
                "MdocSamples", "MdocTime", locks,
            ],
            path: "Tests/MdocTestSupport",
            resources: [.copy("Vectors")]),
        .target(name: "MdocPostgresTestSupport", dependencies: ["MdocPostgres", locks], path: "Tests/MdocPostgresTestSupport"),
        .target(
            name: "MdocHTTPTestSupport", dependencies: [.product(name: "Hummingbird", package: "hummingbird"), locks],
            path: "Tests/MdocHTTPTestSupport"),
        .testTarget(name: "MdocTimeTests", dependencies: ["MdocTime"]),
        .testTarget(name: "MdocFilesTests", dependencies: ["MdocFiles"]),
        .testTarget(name: "MdocChecksTests", dependencies: ["MdocChecks"]),
        .testTarget(
            name: "MdocSamplesTests",
            dependencies: ["MdocSamples", "MdocCBOR", "MdocCrypto", "MdocImaging", "MdocIngest", "MdocTestSupport", "MdocTime", "MdocTrustLists"]),
        .testTarget(name: "MdocCBORTests", dependencies: ["MdocCBOR", "MdocTestSupport"]),
        .testTarget(
            name: "MdocTrustListsTests",
            dependencies: [
                "MdocTrustLists", "MdocCBOR", "MdocCOSE", "MdocCrypto", "MdocModel", "MdocSamples", "MdocTestSupport",
            ]),
        .testTarget(
            name: "MdocCryptoTests", dependencies: ["COpenSSL", "MdocCrypto", "MdocTestSupport"],
            resources: [.copy("Vectors")]),
        .testTarget(name: "MdocCOSETests", dependencies: ["MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocTestSupport"]),
        .testTarget(
            name: "MdocModelTests",
            dependencies: ["MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTestSupport", "MdocTime"]),
        .testTarget(name: "MdocTrustTests", dependencies: ["MdocCrypto", "MdocTrust", "MdocSamples", "MdocTestSupport"]),
        .testTarget(
            name: "MdocVerificationTests",
            dependencies: [
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust", "MdocTrustLists", "MdocImaging",
                "MdocVerification", "MdocSamples", "MdocTestSupport", "MdocTime",
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "MdocImagingTests", dependencies: ["MdocImaging", "MdocVerification", "MdocSamples", "MdocTestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "MdocIngestTests", dependencies: ["MdocIngest", "MdocSamples", "MdocTestSupport"]),
        .testTarget(
            name: "MdocStoreTests",
            dependencies: [
                "MdocStore", "MdocChecks", "MdocCrypto", "MdocTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "MdocPipelineTests",
            dependencies: [
                "MdocPipeline", "MdocProof", "MdocStore", "MdocReports", "MdocSamples", "MdocTestSupport", "MdocTime",
            ]),
        .testTarget(
            name: "MdocProofTests",
            dependencies: ["MdocProof", "MdocCBOR", "MdocChecks", "MdocCrypto", "MdocTestSupport", "MdocTime"]),
        .testTarget(name: "MdocBLETests", dependencies: ["MdocBLE", "MdocChecks", "MdocTestSupport"]),
        .testTarget(
            name: "MdocCaptureTests",
            dependencies: [
                "MdocBLE", "MdocCapture", "MdocCBOR", "MdocChecks", "MdocCOSE", "MdocCrypto", "MdocDBus", "MdocIngest", "MdocKiosk", "MdocModel",
                "MdocPipeline", "MdocSamples", "MdocSeal", "MdocStore", "MdocTestSupport", "MdocVerification", locks,
            ]),
        .testTarget(name: "MdocSealTests", dependencies: ["MdocSeal", "MdocCBOR", "MdocCOSE", "MdocCrypto", "MdocChecks", "MdocTestSupport"]),
        .testTarget(
            name: "MdocKioskTests",
            dependencies: ["MdocKiosk", "MdocSeal", "MdocCrypto", "MdocChecks", "MdocIngest", "MdocPipeline", "MdocTrust", "MdocTestSupport"]),
        .testTarget(
            name: "MdocSyncTests",
            dependencies: [
                "MdocSync", "MdocIntake", "MdocKiosk", "MdocReports", "MdocSeal", "MdocCOSE", "MdocCrypto", "MdocChecks", "MdocTrust",
                "MdocTestSupport", "MdocSamples", "MdocStore", "MdocTrustLists", "MdocHTTPTestSupport", "MdocPipeline",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), locks,
            ]),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "MdocTestSupport", "MdocSamples", "MdocStore", "MdocChecks", "MdocCrypto", "MdocSeal", "MdocKiosk", "MdocIntake",
                "MdocProof", "MdocTrustLists", "MdocPostgres", "MdocPostgresTestSupport", "MdocHTTPTestSupport", locks,
            ]),
        .testTarget(
            name: "MdocReportsTests",
            dependencies: ["MdocReports", "MdocPipeline", "MdocSamples", "MdocStore", "MdocTestSupport"]),
        .testTarget(
            name: "MdocPostgresTests",
            dependencies: ["MdocPostgres", "MdocPostgresTestSupport", "MdocStore", "MdocReports", "MdocChecks", "MdocPipeline", locks]),
        .testTarget(name: "DeploymentTests", dependencies: ["MdocPostgresTestSupport"]),
    ]
)
