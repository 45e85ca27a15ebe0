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
import PackageDescription

/// The executables allocate through jemalloc (Debian `libjemalloc-dev`, installed by bin/setup):
/// a batch run makes and frees millions of small objects from several threads, where glibc's
/// allocator spent ~10 % of the CPU (arena locks, fastbin consolidation). Measured in
/// BENCHMARKS.md ("Allocator"). Libraries and test bundles keep the system allocator; the CLI
/// tests run the real binary, so they run on jemalloc.
let jemalloc: [LinkerSetting] = [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]

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
        .target(
            name: "CImageCodecs",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16")]),

        // MARK: Core
        .target(name: "MdocChecks"),
        .target(name: "MdocCBOR"),
        .target(name: "MdocCrypto", dependencies: ["COpenSSL"]),
        .target(name: "MdocCOSE", dependencies: ["MdocCBOR", "MdocCrypto"]),
        .target(name: "MdocModel", dependencies: ["MdocChecks", "MdocCBOR", "MdocCOSE", "MdocCrypto"]),
        .target(name: "MdocTrust", dependencies: ["MdocCrypto"]),
        .target(name: "MdocImaging", dependencies: ["CImageCodecs", "CZBar", "MdocCrypto"]),
        .target(
            name: "MdocVerification",
            dependencies: ["MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust", "MdocImaging"]),

        // MARK: Edges
        .target(name: "MdocIngest", dependencies: ["CArchive", "MdocCrypto"]),
        .target(
            name: "MdocStore",
            dependencies: [
                "MdocChecks", "MdocCrypto", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        .target(name: "MdocProof", dependencies: ["MdocChecks", "MdocCBOR", "MdocCOSE", "MdocCrypto"]),
        .target(name: "MdocReports", dependencies: ["MdocChecks", "MdocStore"]),
        .target(
            name: "MdocPipeline",
            dependencies: [
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust",
                "MdocVerification", "MdocImaging", "MdocIngest", "MdocStore", "MdocProof",
            ]),
        .target(
            name: "MdocSamples",
            dependencies: [
                "CQREncode", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocImaging", "MdocIngest",
            ]),

        // MARK: Executables
        .executableTarget(
            name: "mdocverify",
            dependencies: [
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocModel", "MdocTrust", "MdocVerification",
                "MdocImaging", "MdocIngest", "MdocStore", "MdocProof", "MdocReports", "MdocPipeline",
                "MdocSamples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: jemalloc),
        .executableTarget(
            name: "mdocverify-bench",
            dependencies: [
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust",
                "MdocVerification", "MdocImaging", "MdocIngest", "MdocPipeline", "MdocSamples", "MdocStore",
            ],
            linkerSettings: jemalloc),

        // MARK: Tests
        .target(
            name: "MdocTestSupport",
            dependencies: [
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust", "MdocVerification",
                "MdocSamples",
            ],
            path: "Tests/MdocTestSupport",
            resources: [.copy("Vectors")]),
        .testTarget(name: "MdocCBORTests", dependencies: ["MdocCBOR", "MdocTestSupport"]),
        .testTarget(name: "MdocCryptoTests", dependencies: ["COpenSSL", "MdocCrypto", "MdocTestSupport"]),
        .testTarget(name: "MdocCOSETests", dependencies: ["MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocTestSupport"]),
        .testTarget(
            name: "MdocModelTests", dependencies: ["MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTestSupport"]),
        .testTarget(name: "MdocTrustTests", dependencies: ["MdocCrypto", "MdocTrust", "MdocSamples", "MdocTestSupport"]),
        .testTarget(
            name: "MdocVerificationTests",
            dependencies: [
                "MdocChecks", "MdocCBOR", "MdocCrypto", "MdocCOSE", "MdocModel", "MdocTrust", "MdocImaging",
                "MdocVerification", "MdocSamples", "MdocTestSupport",
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "MdocImagingTests", dependencies: ["MdocImaging", "MdocVerification", "MdocTestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "MdocIngestTests", dependencies: ["MdocIngest", "MdocTestSupport"]),
        .testTarget(name: "MdocStoreTests", dependencies: ["MdocStore", "MdocChecks", "MdocTestSupport"]),
        .testTarget(
            name: "MdocPipelineTests",
            dependencies: ["MdocPipeline", "MdocProof", "MdocStore", "MdocReports", "MdocSamples", "MdocTestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["MdocTestSupport", "MdocSamples", "MdocStore"]),
        .testTarget(
            name: "MdocReportsTests",
            dependencies: ["MdocReports", "MdocPipeline", "MdocSamples", "MdocStore", "MdocTestSupport"]),
    ]
)
