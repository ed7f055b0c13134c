import _AutoKVOShims

/// Records which `@Observed` properties an evaluation reads, on the current thread.
///
/// Registration evaluates the observed key path under a recorder; each `@Observed` getter it
/// reaches reports its object and key path, so a registration learns which property sets concern
/// it — through computed properties and key-path chains — without any declaration.
///
/// A recording is an array of reads on the stack of the code that records; the thread-local slot
/// points to it while `body` runs. No object is allocated for it.
@usableFromInline
enum DependencyRecorder {
  @usableFromInline
  struct Access {
    let object: any KeyValueObservable
    let keyPath: AnyKeyPath
    /// The read property's identity in its object: what a diagnostic names it by
    /// (`PropertyNames`); `none` for a property that is not `@Observed`.
    let property: ObservedPropertyIndex
    /// The object the read returned, for an `@ObservedWeak` property: the chain reaches it through
    /// that property (``Dependencies/LinkTarget/isReachedThroughObservedWeak``). `nil` otherwise.
    let weakReferent: AnyObject?
  }

  /// Evaluates `body` while recording the `@Observed` reads it makes on this thread.
  ///
  /// Inlinable, so that a registration evaluates its key path in the caller's module: there the
  /// key path is usually a literal, which the optimizer turns into a direct call of the getter,
  /// where the library would go through the slow key-path runtime (Docs/Performance.md explains
  /// the cost model).
  @inlinable
  static func record<Result>(_ body: () -> Result) -> (result: Result, accesses: [Access]) {
    var accesses: [Access] = []
    // The getters reached by `body` append through the slot's pointer, on this thread, while
    // this access to `accesses` lasts; an inner recording points the slot elsewhere meanwhile.
    let result = withUnsafeMutablePointer(to: &accesses) { accesses in
      let outer = autokvo_thread_recorder()
      autokvo_set_thread_recorder(UnsafeMutableRawPointer(accesses))
      autokvo_recording_began()
      defer {
        autokvo_recording_ended()
        autokvo_set_thread_recorder(outer)
      }
      return body()
    }
    return (result, accesses)
  }

  /// Evaluates `keyPath` on `object` while recording; what a registration starts with.
  @inlinable
  static func evaluate<Object: KeyValueObservable, Value>(
    _ keyPath: KeyPath<Object, Value>,
    on object: Object
  ) -> (result: Value, accesses: [Access]) {
    record { object[keyPath: keyPath] }
  }

  /// Whether any thread is recording; what every `@Observed` getter asks first, with one
  /// relaxed load.
  @inlinable
  static var isAnyThreadRecording: Bool {
    autokvo_is_any_thread_recording() != 0
  }

  /// Whether this thread is recording.
  @usableFromInline
  static var isRecordingOnThisThread: Bool {
    autokvo_thread_recorder() != nil
  }

  /// Records a read of `keyPath` of `object` in this thread's recording, if there is one;
  /// `weakReferent` is what an `@ObservedWeak` property's read returned.
  @usableFromInline
  static func noteAccessWhileRecording(
    object: any KeyValueObservable,
    keyPath: AnyKeyPath,
    property: ObservedPropertyIndex,
    weakReferent: AnyObject? = nil
  ) {
    guard let raw = autokvo_thread_recorder() else { return }  // another thread is recording
    raw.assumingMemoryBound(to: [Access].self).pointee.append(
      Access(object: object, keyPath: keyPath, property: property, weakReferent: weakReferent))
  }
}
