import Foundation
import MdocPostgresTestSupport
import XCTest

/// deploy/: the Kubernetes manifests pass the offline check, the check catches a broken one,
/// and the image carries the shared library of every C library bin/setup installs.
final class DeploymentTests: XCTestCase {
    static let root = Command.packageRoot
    static let python = root.appendingPathComponent(".build/pyvenv/bin/python").path
    static let checker = root.appendingPathComponent("deploy/check-manifests.py").path
    static let manifests = root.appendingPathComponent("deploy/kubernetes")

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw ThrowawayPostgres.SetupFailure("\(Self.python) is missing: bin/setup installs kubernetes-validate there")
        }
    }

    func testTheManifestsPassTheOfflineCheck() throws {
        let output = try Command.run([Self.python, Self.checker, Self.manifests.path])
        XCTAssertTrue(output.contains("4 objects"), output)
        XCTAssertTrue(output.contains("references resolved"), output)
    }

    /// Each breakage, alone in a copy of the manifests, fails the check and is named.
    func testABrokenManifestFailsTheCheck() throws {
        let breakages: [(file: String, from: String, to: String, named: String)] = [
            ("worker-deployment.yaml", "replicas: 3", "replicas: three", "replicas"),
            ("report-job.yaml", "backoffLimit: 2", "backofLimit: 2", "backofLimit"),
            ("worker-deployment.yaml", "key: worker-jobs", "key: worker-job", "worker-job"),
            ("report-job.yaml", "secretName: mdocverify-secrets", "secretName: mdocverify-secret", "mdocverify-secret"),
            ("configmap.yaml", "apiVersion: v1", "apiVersion: v0", "configmap.yaml"),
        ]
        for breakage in breakages {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mdocverify-manifests-" + UUID().uuidString)
            try FileManager.default.copyItem(at: Self.manifests, to: folder)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent(breakage.file)
            let text = try String(contentsOf: file, encoding: .utf8)
            XCTAssertTrue(text.contains(breakage.from), "\(breakage.file) no longer holds \(breakage.from)")
            try text.replacingOccurrences(of: breakage.from, with: breakage.to).write(to: file, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try Command.run([Self.python, Self.checker, folder.path]), breakage.to) { error in
                let failure = error as? Command.Failure
                XCTAssertEqual(failure?.status, 1, "\(error)")
                XCTAssertTrue(failure?.stdout.contains(breakage.named) ?? false, "\(String(describing: failure?.stdout))")
            }
        }
    }

    /// Every -dev package of bin/setup is in the image's build stage, and the shared library
    /// it pins (from dpkg's Depends, through a -dev package that only depends on another) is in
    /// the runtime stage.
    func testTheImageHasTheSharedLibraryOfEveryCLibrary() throws {
        let setup = try String(contentsOf: Self.root.appendingPathComponent("bin/setup"), encoding: .utf8)
        let dockerfile = try String(contentsOf: Self.root.appendingPathComponent("deploy/Dockerfile"), encoding: .utf8)
        let stages = dockerfile.components(separatedBy: "\nFROM ").dropFirst().map(Self.aptPackages)
        XCTAssertEqual(stages.count, 2, "a build stage and a runtime stage")
        let build = stages.first ?? [], runtime = stages.last ?? []
        let developmentPackages = Self.setupPackages(setup).filter { $0.hasPrefix("lib") && $0.hasSuffix("-dev") }
        XCTAssertTrue(developmentPackages.contains("libpq-dev"))
        for package in developmentPackages {
            XCTAssertTrue(build.contains(package), "the build stage lacks \(package)")
            let libraries = try Self.sharedLibraries(of: package)
            XCTAssertFalse(libraries.isEmpty, "no shared library found for \(package)")
            for library in libraries { XCTAssertTrue(runtime.contains(library), "the runtime stage lacks \(library) (\(package))") }
        }
        XCTAssertFalse(runtime.contains { $0.hasSuffix("-dev") }, "no -dev package in the runtime stage")
    }

    /// The names in bin/setup's `packages=(…)` and `packages+=(…)`.
    static func setupPackages(_ setup: String) -> [String] {
        setup.components(separatedBy: "packages").dropFirst().flatMap { part -> [String] in
            guard part.hasPrefix("=(") || part.hasPrefix("+=("), let open = part.firstIndex(of: "("),
                let end = part.firstIndex(of: ")")
            else { return [] }
            return part[part.index(after: open)..<end].split(whereSeparator: \.isWhitespace).map(String.init)
        }
    }

    /// The packages a Dockerfile stage's `apt-get install` names.
    static func aptPackages(_ stage: String) -> Set<String> {
        guard let install = stage.range(of: "apt-get install") else { return [] }
        let command = stage[install.upperBound...].components(separatedBy: "&&").first ?? ""
        return Set(command.split(whereSeparator: { $0.isWhitespace || $0 == "\\" }).map(String.init).filter { !$0.hasPrefix("-") })
    }

    /// The `lib…` packages `package` depends on at exactly its own version, looked for through
    /// its -dev dependencies when it pins none itself (libjpeg-dev → libjpeg62-turbo-dev).
    static func sharedLibraries(of package: String, depth: Int = 0) throws -> Set<String> {
        let depends = try Command.run(["dpkg-query", "-W", "-f=${Depends}", package])
        let entries = depends.split(separator: ",").map { $0.split(separator: "|")[0].trimmingCharacters(in: .whitespaces) }
        let name = { (entry: String) in String(entry.split(separator: " ").first ?? "") }
        let pinned = Set(entries.filter { $0.contains("(= ") }.map(name).filter { $0.hasPrefix("lib") && !$0.hasSuffix("-dev") })
        guard pinned.isEmpty, depth < 2 else { return pinned }
        var found = Set<String>()
        for dependency in entries.map(name) where dependency.hasSuffix("-dev") {
            found.formUnion(try sharedLibraries(of: dependency, depth: depth + 1))
        }
        return found
    }
}
