// Changes of an `@Observable` model: what the tracking's callbacks do before and after each
// change, the re-reading of a key path whose dependencies move, and the delivery.

#if canImport(Observation) && !canImport(ObjectiveC)
  import _AutoKVOShims

  extension ModelSentinel {
    /// Before a change: reads the old value for the change's `didSet`, and sends the prior call.
    /// Returns whether the callbacks are still wanted.
    ///
    /// When the key path is a tracked property of the model itself (`dependenciesAreFixed`), the
    /// change is the model's own, made by code that holds it: it is read without a retain.
    func modelWillChange(dependenciesAreFixed: Bool) -> Bool {
      guard observation.isActive else { return false }
      if dependenciesAreFixed, gate.withRootMakingChange(as: Object.self, { willSet(of: $0) }) {
        return true
      }
      guard let model = gate.loadRoot(as: Object.self) else {
        // The model's deallocation has begun: a change of another object the key path reads (a
        // chain's), or a registrar's call from its object's deinit (a Swift 6.2 runtime made
        // one). The registration ends now, and these callbacks go.
        observation.end(.observedDeallocated)
        return false
      }
      willSet(of: model)
      return true
    }

    private func willSet(of model: Object) {
      pending.push(thread: autokvo_thread_identity()) { property.read(model, into: $0) }
      if options.contains(.prior) {
        sendPriorCall(model: model)
      }
    }

    @inline(never)
    func sendPriorCall(model: Object) {
      var prior = KeyValueChange<Value>(kind: .setting)
      prior.isPrior = true
      if options.contains(.old) { prior.oldValue = property.read(model) }
      ModelPriorCalls.run { deliver(prior) }
    }

    /// After a change: delivers it, with the old value its `willSet` read. Returns whether the
    /// callbacks are still wanted.
    func modelDidChange(
      dependenciesAreFixed: Bool, owner modelRegistry: any AnyObject & Sendable
    ) -> Bool {
      guard needsWillSet else {
        return didSet(oldValue: nil, dependenciesAreFixed, modelRegistry)
      }
      var stillWanted = true
      let found = pending.popLatest(thread: autokvo_thread_identity()) { oldValue in
        stillWanted = didSet(
          oldValue: UnsafeRawPointer(oldValue), dependenciesAreFixed, modelRegistry)
      }
      // None found: this thread's change began before the registration was made, or before the
      // registration or a side of it was gone.
      return found ? stillWanted : true
    }

    /// Delivers a change; `oldValue`, the address of a `Value`, is `nil` when no `willSet` read it.
    /// An address without its type, so that the unspecialized code asks for no metadata of an
    /// optional typed pointer.
    private func didSet(
      oldValue: UnsafeRawPointer?, _ dependenciesAreFixed: Bool,
      _ modelRegistry: any AnyObject & Sendable
    ) -> Bool {
      guard dependenciesAreFixed else {
        return rediscover(oldValue: oldValue, modelRegistry: modelRegistry)
      }
      guard case .synchronous = delivery else {
        schedule(oldValue: oldValue)
        return true
      }
      // The key path is a tracked property of the model itself: this change is the model's own,
      // made by code that holds it.
      gate.openInChangeOfRoot(observation) { (observer: Observer, model: Object) in
        guard options.contains(.new) else {
          return handler(
            observer, model,
            HandlerInput(oldValue: options.contains(.old) ? oldValue : nil, newValue: nil))
        }
        property.withValue(of: model) { newValue in
          handler(
            observer, model,
            HandlerInput(
              oldValue: options.contains(.old) ? oldValue : nil,
              newValue: UnsafeRawPointer(newValue)))
        }
      }
      return true
    }

    /// Delivers a change of a key path whose accesses may differ after it (a computed property, a
    /// chain through other objects): reads the key path again, installing its tracking anew, and
    /// ends the registration when its model is gone or it no longer reads anything tracked.
    @inline(never)
    func rediscover(oldValue: UnsafeRawPointer?, modelRegistry: any AnyObject & Sendable) -> Bool {
      guard let model = gate.loadRoot(as: Object.self) else {
        // A change of another object the key path reads, after the model's deallocation began:
        // the registration ends now, and these callbacks go.
        observation.end(.observedDeallocated)
        return false
      }
      guard let newValue = install(on: model, modelRegistry: modelRegistry) else {
        ObservationDiagnostics.report(
          .keyPathNeverNotifies,
          "A change of \(Object.self) left a key path to a \(Value.self), observed by "
            + "\(Observer.self), reading nothing Observation tracks, so it could never notify "
            + "again: the registration has ended."
        )
        observation.cancel()
        return true
      }
      var change = KeyValueChange<Value>(kind: .setting)
      if options.contains(.old) {
        change.oldValue = oldValue?.assumingMemoryBound(to: Value.self).pointee
      }
      if options.contains(.new) { change.newValue = newValue }
      deliver(change)
      return true
    }

    /// Reads the new value now, and delivers the change where `delivery` says.
    @inline(never)
    func schedule(oldValue: UnsafeRawPointer?) {
      guard let model = gate.loadRoot(as: Object.self) else { return }
      var change = KeyValueChange<Value>(kind: .setting)
      if options.contains(.old) {
        change.oldValue = oldValue?.assumingMemoryBound(to: Value.self).pointee
      }
      if options.contains(.new) { change.newValue = property.read(model) }
      deliver(change)
    }

    func deliver(_ change: KeyValueChange<Value>) {
      delivery.run {
        self.gate.open(self.observation) { (observer: Observer, model: Object) in
          withUnsafePointer(to: change) {
            self.handler(observer, model, HandlerInput(change: $0))
          }
        }
      }
    }
  }
#endif
