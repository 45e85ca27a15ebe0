#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What one thread keeps for itself between calls into OpenSSL: the scratch keys that verify
/// with keys made from a point (``PublicKey/ScratchKeys``).
///
/// Only its own thread touches it (OpenSSL objects are not safe to share while they change),
/// and never from inside a call that uses it, so no lock; it is freed when the thread exits.
final class ThreadScratch {
    var keys: [PublicKey.ScratchKeys.Slot] = []

    private static let threadKey: pthread_key_t? = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { scratch in
            if let scratch { Unmanaged<ThreadScratch>.fromOpaque(scratch).release() }
        }
        return status == 0 ? key : nil
    }()

    /// The calling thread's scratch, made on first use; nil when the thread cannot have one
    /// (the callers then do without).
    static func current() -> ThreadScratch? {
        guard let threadKey else { return nil }
        if let raw = pthread_getspecific(threadKey) {
            return Unmanaged<ThreadScratch>.fromOpaque(raw).takeUnretainedValue()
        }
        let made = ThreadScratch()
        let retained = Unmanaged.passRetained(made)
        guard pthread_setspecific(threadKey, retained.toOpaque()) == 0 else {
            retained.release()
            return nil
        }
        return made
    }
}
