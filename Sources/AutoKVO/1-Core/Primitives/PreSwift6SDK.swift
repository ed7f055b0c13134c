// The typed `autoObserve` forms capture the caller's actor with a defaulted
// `isolation: isolated (any Actor)? = #isolation` parameter. `#isolation` is declared by the
// concurrency library of a Swift 6 SDK (Xcode 16 and later, which this package's
// swift-tools-version requires anyway); the public SDK snapshots that `../shared/darwin/typecheck`
// compiles the library against are older and lack it. For them alone, this file declares the
// macro as that library does, over the same compiler built-in, so that each form compiles from its
// one documented declaration and expands at its call sites as on a Swift 6 SDK.
// `canImport(Synchronization)`, a module that arrived with the same SDKs, tells the two apart.
// No user build compiles this file's contents.
#if canImport(ObjectiveC) && !canImport(Synchronization)
  /// The actor the calling code is isolated to, or `nil` if it is nonisolated.
  ///
  /// Public because a public function's default argument may name only a public macro, and a
  /// macro cannot be `@usableFromInline`.
  @freestanding(expression)
  public macro isolation<T>() -> T = Builtin.IsolationMacro
#endif
