extension KeyValueObservable {
  /// Observes `keyPath` of every object in `objects`, as one `autoObserve` call per object: each
  /// registration ends by itself when its object or this observer is deallocated. KVO's
  /// `addObserver(_:toObjectsAt:forKeyPath:options:context:)`.
  ///
  /// ```swift
  /// board.autoObserve(each: team.members, keyPath: \.status) { board, member, change in
  ///     board.refresh(member)
  /// }
  /// ```
  ///
  /// The handler runs where the single-object form would run it: on the caller's actor when
  /// the registration is made from one, otherwise synchronously on the mutating thread.
  ///
  /// - Parameters:
  ///   - objects: The objects to observe. None is retained.
  ///   - keyPath: The property to observe on each.
  ///   - options: What to deliver; `[.old, .new]` by default.
  ///   - isolation: The caller's actor, captured by default; the handler runs there. Never
  ///     pass it: an explicit `nil` from isolated code runs an isolated handler on whichever
  ///     thread makes the change, a data race the compiler does not report (see
  ///     <doc:SwiftConcurrency#The-isolation-parameter>).
  ///   - file: The file of the call, which diagnostics name; leave it to its default.
  ///   - line: The line of the call, likewise.
  ///   - changeHandler: Called with the observer, the object that changed and the change.
  /// - Returns: One handle per object, in the order of `objects`.
  @discardableResult
  @inlinable
  public func autoObserve<Objects: Sequence, Value>(
    each objects: Objects,
    keyPath: KeyPath<Objects.Element, Value>,
    options: ObservationOptions = [.old, .new],
    isolation: isolated (any Actor)? = #isolation,
    file: StaticString = #fileID,
    line: UInt = #line,
    changeHandler: @escaping (Self, Objects.Element, KeyValueChange<Value>) -> Void
  ) -> [KeyValueObservation] where Objects.Element: KeyValueObservable {
    let delivery = HandlerDelivery.resolve(isolation: isolation)
    let handler = adaptHandler(changeHandler)
    let site = RegistrationSite(file: file, line: line)
    return objects.map { object in
      registerAdapted(object, keyPath, options, delivery, adaptedHandler: handler, site: site)
    }
  }
}
