// The fuzz targets of mdocverify (docs/reliability.md, "Fuzzing").
//
//   mdocverify-fuzz --list
//   mdocverify-fuzz --seeds TARGET DIR        write the target's seed corpus into DIR
//   mdocverify-fuzz TARGET FILE|DIR...        run every input once (replay)
//
// Built by bin/fuzz with `-sanitize=address`, coverage instrumentation and MDOC_FUZZ defined,
// `mdocverify-fuzz TARGET [libFuzzer options] CORPUS...` is a libFuzzer binary for that target.
import Foundation

#if MDOC_FUZZ
import CFuzzerDriver
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("mdocverify-fuzz: \(message)\n".utf8))
    exit(2)
}

func prepare(_ name: String) -> FuzzTarget.Run {
    guard let target = FuzzTarget.named(name) else { fail("no target \(name) (see --list)") }
    do {
        return try target.prepare(.standard)
    } catch {
        fail("\(name): cannot prepare: \(error)")
    }
}

/// Every regular file under the paths given, in order.
func inputFiles(_ paths: [String]) -> [String] {
    var files: [String] = []
    for path in paths {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { fail("\(path) does not exist") }
        guard isDirectory.boolValue else {
            files.append(path)
            continue
        }
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let relative = enumerator?.nextObject() as? String {
            let full = (path as NSString).appendingPathComponent(relative)
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(full)
            }
        }
    }
    return files.sorted()
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: mdocverify-fuzz --list | --seeds TARGET DIR | TARGET INPUT...") }

switch arguments[1] {
case "--list":
    for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
case "--seeds":
    guard arguments.count == 4, let target = FuzzTarget.named(arguments[2]) else { fail("usage: --seeds TARGET DIR") }
    let folder = URL(fileURLWithPath: arguments[3])
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let seeds = try target.seeds(.standard)
        for seed in seeds { try Data(seed.bytes).write(to: folder.appendingPathComponent(seed.name)) }
        print("\(target.name): \(seeds.count) seeds in \(folder.path)")
    } catch {
        fail("\(target.name): \(error)")
    }
default:
    let run = prepare(arguments[1])
    #if MDOC_FUZZ
    // libFuzzer reads its options and corpus folders from the arguments after the target name.
    FuzzTarget.active = run
    var driverArguments: [UnsafeMutablePointer<CChar>?] = ([arguments[0]] + arguments.dropFirst(2)).map { strdup($0) }
    driverArguments.append(nil)
    var count = Int32(driverArguments.count - 1)
    let status = driverArguments.withUnsafeMutableBufferPointer { buffer in
        var argv = buffer.baseAddress
        return LLVMFuzzerRunDriver(&count, &argv) { data, size in
            FuzzTarget.active?(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        }
    }
    exit(status)
    #else
    let files = inputFiles(Array(arguments.dropFirst(2)))
    for file in files {
        guard let bytes = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
        run(Array(bytes))
    }
    print("\(arguments[1]): replayed \(files.count) inputs")
    #endif
}
