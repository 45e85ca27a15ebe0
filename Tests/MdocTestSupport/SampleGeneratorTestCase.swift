import Foundation
import MdocSamples

/// A test case that writes sample sets into its temporary folder, all planned for one fixed
/// verification time.
open class SampleGeneratorTestCase: TemporaryFolderTestCase {
    /// 2026-05-28T20:26:40Z.
    package static let verificationTime = Date(timeIntervalSince1970: 1_780_000_000)

    package var root: String { temporaryFolder }

    /// A generator of `count` transactions from `seed`, writing to `name` in the test's folder.
    package func generator(_ name: String, count: Int, seed: UInt64 = 1) -> SampleGenerator {
        var generator = SampleGenerator(out: "\(root)/\(name)", verificationTime: Self.verificationTime)
        generator.count = count
        generator.seed = seed
        return generator
    }
}
