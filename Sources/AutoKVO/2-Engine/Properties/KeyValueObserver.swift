/// A class whose instances can observe other objects with `autoObserve`.
///
/// You never adopt it yourself: ``KeyValueObservable`` refines it, and on Apple platforms
/// `NSObject` conforms to it, so every `NSObject` subclass can observe with no declaration:
///
/// ```swift
/// final class StatusLabel: NSObject {
///     init(operation: Operation) {
///         super.init()
///         autoObserve(operation, keyPath: \.isFinished, options: [.new]) { label, _, change in
///             label.finished = change.newValue ?? false
///         }   // no teardown code
///     }
///     var finished = false
/// }
/// ```
///
/// It has no requirements, `Sendable` included; it exists so that `autoObserve` can hand the observer to its handler
/// with its own static type (`Self`), which a method needs a protocol for. Not to be confused
/// with ``KeyValueObserving``, the protocol of the classic `observeValue(forKeyPath:of:change:context:)`
/// callback.
public protocol KeyValueObserver: AnyObject {}
