import Foundation
import PackagePlugin

/// Names the commit a target is built from (scripts/build-commit.sh): run before every build,
/// so the name is never that of an earlier commit.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildCommit.swift")
        return [
            .prebuildCommand(
                displayName: "Naming the build's commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [root.appending(path: "scripts/build-commit.sh").path, root.path, output.path],
                outputFilesDirectory: context.pluginWorkDirectoryURL)
        ]
    }
}
