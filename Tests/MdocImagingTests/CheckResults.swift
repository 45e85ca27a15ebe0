import MdocChecks
import MdocImaging
@testable import MdocVerification

// The check results verification makes of what imaging found (the `engagement.*` and `image.*`
// checks of MdocVerification), so that these tests assert them next to the facts.

extension EngagementImageResult {
    var checkResults: [CheckResult] { [EngagementImageCheck.result(of: self)] }
}

extension FitOutcome {
    func checkResults(subject: String = "") -> [CheckResult] { DocumentScanCheck.fitResults(self, subject: subject) }
}

extension UploadResult {
    var checkResults: [CheckResult] { DocumentScanCheck.uploadResults(self) }
}

extension UploadsResult {
    /// The manifest's results, then each upload's (as judged alone, before supersession).
    var checkResults: [CheckResult] { DocumentScanCheck.manifestResults(self) + uploads.flatMap(\.checkResults) }
}

extension UploadsResult {
    /// The `image.manifest` results about the manifest as a whole.
    var manifestResults: [CheckResult] { DocumentScanCheck.manifestResults(self) }
}

extension UploadResult {
    /// The subject of the upload's results.
    var subject: String { "upload[\(label)]" }
}
