import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A tmpfs of a few megabytes, mounted on a temporary folder owned by `owner`, to fill up;
/// unmounted and removed when the value goes away. Needs root (mount(8)).
package final class SmallFilesystem {
    package let path: String

    package init(megabytes: Int, owner: String = "postgres") throws {
        guard let account = getpwnam(owner) else { throw ThrowawayPostgres.SetupFailure("no user \(owner)") }
        let folder = NSTemporaryDirectory() + "mdocverify-tmpfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let options = "size=\(megabytes)m,mode=0700,uid=\(account.pointee.pw_uid),gid=\(account.pointee.pw_gid)"
        do {
            try Command.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", folder])
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        path = folder
    }

    deinit {
        _ = try? Command.run(["umount", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}
