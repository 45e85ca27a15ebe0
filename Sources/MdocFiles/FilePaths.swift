/// Paths as text, for what Foundation's `NSString` path methods would do but cannot be trusted
/// with: on Linux, `deletingLastPathComponent` traps on a one-character path (`"o"`, `"."`,
/// `"a/"`), which a user can give as `--out o`.
package enum FilePaths {
    /// The folder part of `path`: `"a/b"` → `"a"`, `"/a"` → `"/"`, `"a"` → `""` (the current
    /// folder), trailing and repeated slashes ignored, as `NSString.deletingLastPathComponent`.
    package static func parent(of path: String) -> String {
        var rest = Substring(path)
        while rest.count > 1, rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let slash = rest.lastIndex(of: "/") else { return "" }
        var head = rest[..<slash]
        while head.hasSuffix("/") { head = head.dropLast() }
        return head.isEmpty ? "/" : String(head)
    }
}
