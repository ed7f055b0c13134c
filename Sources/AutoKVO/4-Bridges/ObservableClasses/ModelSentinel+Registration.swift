// Registration on an `@Observable` model: the one entry point from the public forms into the
// sentinel, and the installation of the tracking that reports the model's changes.

#if canImport(Observation) && !canImport(ObjectiveC)
  extension ModelSentinel {
    /// Registers `handler` for changes of the property of `model` that `access` reads, and returns
    /// the registration: an ended one, after a diagnostic, when reading the property accesses
    /// nothing Observation tracks. The changes are reported by `tracking`, or, when it is `nil`
    /// (every registration but the tests'), by a ``ModelTracking`` of the property.
    static func register(
      observer: Observer,
      observerRegistry: ObservationRegistry,
      model: Object,
      access: @escaping ModelPropertyAccess<Object>,
      options: ObservationOptions,
      delivery: HandlerDelivery,
      handler: @escaping AdaptedHandler<Observer, Object>,
      site: RegistrationSite?,
      tracking: (any ModelChangeTracking)? = nil
    ) -> KeyValueObservation {
      let modelRegistry = ObservationRegistry()
      let property = ModelProperty<Object, Value>(access, on: model)
      let sentinel = self.init(
        observer: observer, model: model, property: property, options: options,
        delivery: delivery, handler: handler,
        tracking: tracking ?? ModelTracking(keyPath: property.keyPath))
      let observation = sentinel.observation
      observation.attach(sentinel, to: modelRegistry, observerRegistry: observerRegistry)
      guard let currentValue = sentinel.install(on: model, modelRegistry: modelRegistry) else {
        ObservationDiagnostics.reportKeyPathNeverNotifies(
          keyPath: property.keyPath, of: model, objectType: Object.self, by: Observer.self,
          valueType: Value.self, site: site,
          reason: "reads nothing Observation tracks (an @ObservationIgnored property, a let, or a "
            + "property of a class that is not @Observable), so it could never notify. Nothing "
            + "is registered: the returned observation is already cancelled.")
        observation.cancel()
        return observation
      }
      if options.contains(.initial) {
        let change = KeyValueChange(
          kind: .setting, newValue: options.contains(.new) ? currentValue : nil)
        delivery.whileRegistering { sentinel.deliver(change) }
      }
      return observation
    }

    /// Installs the tracking of the property on `model`, replacing the previous installation, with
    /// callbacks that keep `modelRegistry`, which owns this sentinel, alive (see
    /// ``ModelChangeTracking``). Returns the value read, or `nil` when the read accessed nothing
    /// Observation tracks.
    func install(on model: Object, modelRegistry: any AnyObject & Sendable) -> Value? {
      // Read through the key path object, not the access: a getter inlined into the access would
      // report its read under a key path instance of its own, equal to the one the model's setter
      // reports, but not the same object, and Observation's registrar would then compare the two
      // in full on every change.
      tracking.install(
        reading: property.keyPath, of: model, notifiesBeforeChange: needsWillSet,
        owner: modelRegistry, receiver: self)
    }
  }
#endif
