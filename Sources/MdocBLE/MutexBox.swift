import Synchronization

/// A value behind a lock, shared by reference.
package final class MutexBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: Value) { mutex = Mutex(value) }

    package var value: Value { mutex.withLock { $0 } }

    @discardableResult
    package func update<R: Sendable, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try mutex.withLock { (value: inout Value) throws(E) -> R in try body(&value) }
    }
}
