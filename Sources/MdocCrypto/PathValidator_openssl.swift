internal import COpenSSL
import Foundation

/// Certification path validation (RFC 5280 §6) with OpenSSL's `X509_verify_cert`.
package enum PathValidator {
    /// Builds and validates a path from `leaf` to one of `roots`, using `intermediates` as
    /// untrusted candidates.
    ///
    /// - Parameters:
    ///   - at: the validation instant (`X509_VERIFY_PARAM_set_time`); `nil` disables every time
    ///     check (`X509_V_FLAG_NO_CHECK_TIME`), for callers that judge validity themselves at
    ///     their own instants (capture time and verification time).
    ///   - allowPartialChain: `X509_V_FLAG_PARTIAL_CHAIN`: a trusted certificate that is not
    ///     self-signed is accepted as the anchor (ISO 18013-5 IACA lists may hold such).
    /// - Returns: the validated chain, leaf first and anchor last, or the first failure OpenSSL
    ///   reports (`X509_V_ERR_*` with depth).
    ///
    /// OpenSSL treats the notAfter second itself as already expired (`X509_cmp_time` "earlier
    /// than or equal"), one second stricter than RFC 5280 §4.1.2.5's inclusive bound; callers that
    /// need the exact bound pass `nil` and compare ``Certificate/notAfter`` themselves.
    ///
    /// Not checked here: CRLs or OCSP (no CRL flags are set; see ``CRL``), extended key usage or
    /// any Annex B profile rule, and the self-signature of the anchor. Unknown critical
    /// extensions fail (`X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION`), as RFC 5280 §4.2 requires.
    package static func validate(
        leaf: Certificate, intermediates: [Certificate], roots: [Certificate], at time: Date?,
        allowPartialChain: Bool = true
    ) -> Result<[Certificate], PathValidationFailure> {
        func internalFailure(_ what: String) -> Result<[Certificate], PathValidationFailure> {
            .failure(
                PathValidationFailure(
                    code: X509_V_ERR_UNSPECIFIED, reason: "\(what): \(drainOpenSSLErrors())", depth: 0))
        }
        guard let store = X509_STORE_new() else { return internalFailure("X509_STORE_new failed") }
        defer { X509_STORE_free(store) }
        for root in roots {
            guard X509_STORE_add_cert(store, root.x509) == 1 else {
                return internalFailure("X509_STORE_add_cert failed")
            }
        }
        guard let untrusted = OPENSSL_sk_new_null() else { return internalFailure("OPENSSL_sk_new_null failed") }
        defer { OPENSSL_sk_free(untrusted) }  // the stack borrows the certificates, it does not own them
        for certificate in intermediates {
            guard OPENSSL_sk_push(untrusted, UnsafeRawPointer(certificate.x509)) > 0 else {
                return internalFailure("OPENSSL_sk_push failed")
            }
        }
        guard let context = X509_STORE_CTX_new() else { return internalFailure("X509_STORE_CTX_new failed") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.x509, untrusted) == 1 else {
            return internalFailure("X509_STORE_CTX_init failed")
        }
        guard let param = X509_STORE_CTX_get0_param(context) else { return internalFailure("no verify parameters") }
        var flags: UInt = 0
        if allowPartialChain { flags |= UInt(X509_V_FLAG_PARTIAL_CHAIN) }
        if let time {
            guard let seconds = epochSeconds(time) else {
                return .failure(
                    PathValidationFailure(
                        code: X509_V_ERR_UNSPECIFIED, reason: "validation time \(time) is out of range", depth: 0))
            }
            X509_VERIFY_PARAM_set_time(param, time_t(seconds))
        } else {
            flags |= UInt(X509_V_FLAG_NO_CHECK_TIME)
        }
        guard X509_VERIFY_PARAM_set_flags(param, flags) == 1 else {
            return internalFailure("X509_VERIFY_PARAM_set_flags failed")
        }

        let result = X509_verify_cert(context)
        guard result == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = Int(X509_STORE_CTX_get_error_depth(context))
            let reason = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "unknown"
            ERR_clear_error()
            return .failure(PathValidationFailure(code: code, reason: reason, depth: depth))
        }

        var known: [OpaquePointer: Certificate] = [leaf.x509: leaf]
        for certificate in intermediates + roots { known[certificate.x509] = certificate }
        guard let chain = X509_STORE_CTX_get0_chain(context) else {
            return internalFailure("no chain after validation")
        }
        var path: [Certificate] = []
        for index in 0..<max(OPENSSL_sk_num(chain), 0) {
            guard let element = OPENSSL_sk_value(chain, index), let certificate = known[OpaquePointer(element)] else {
                return internalFailure("validated chain holds a certificate that was not given")
            }
            path.append(certificate)
        }
        return .success(path)
    }
}
