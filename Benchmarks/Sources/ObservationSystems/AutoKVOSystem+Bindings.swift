import AutoKVO

/// Several key paths with one handler, and one-way bindings: the workloads of issue #47's targets.
extension AutoKVOSystem {
  /// A model with three `Int` properties, each observable.
  public final class ThreePropertyModel: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @Observed public var value = 0
    @Observed public var other = 0
    @Observed public var third = 0

    public init() {}
  }

  /// Sets the model's first property: what every workload here measures, but registration.
  @inline(never)
  public static func setValue(_ value: Int, on model: ThreePropertyModel) { model.value = value }

  /// Registers `[\.value, \.other]` of `model` with one handler, `[.old, .new]`, that counts its
  /// calls: the delivery, without the handler's reading of the values (a run-time cast from
  /// `Any`, which only the several-key-path form needs).
  @inline(never)
  @discardableResult
  public static func observeTwoKeyPaths(
    _ model: ThreePropertyModel,
    by observer: Observer
  ) -> KeyValueObservation {
    observer.autoObserve(model, keyPaths: [\.value, \.other], options: [.old, .new]) {
      observer, _, _, _ in observer.total &+= 1
    }
  }

  /// Registers `\.value` of `model` with a handler, `[.old, .new]`, that counts its calls: what
  /// the several-key-path form is compared with.
  @inline(never)
  @discardableResult
  public static func observeOneKeyPath(
    _ model: ThreePropertyModel,
    by observer: Observer
  ) -> KeyValueObservation {
    observer.autoObserve(model, keyPath: \.value, options: [.old, .new]) { observer, _, _ in
      observer.total &+= 1
    }
  }

  /// Registers `[\.value, \.other, \.third]` of `model` with one handler.
  @inline(never)
  @discardableResult
  public static func observeThreeKeyPaths(
    _ model: ThreePropertyModel,
    by observer: Observer
  ) -> KeyValueObservation {
    observer.autoObserve(model, keyPaths: [\.value, \.other, \.third], options: [.old, .new]) {
      observer, _, _, _ in observer.total &+= 1
    }
  }

  static func bindingWorkloads() -> [Workload] {
    func setting(_ register: @escaping (ThreePropertyModel, Observer) -> Void) -> Workload.Body {
      .repeated {
        let model = ThreePropertyModel()
        let observer = Observer()
        register(model, observer)
        return { n in
          withExtendedLifetime(observer) { for i in 0..<n { setValue(i, on: model) } }
        }
      }
    }
    return [
      Workload(
        .setWithOneObserver, .autoKVO, variant: "one key path, counting calls",
        body: setting { model, observer in observeOneKeyPath(model, by: observer) }),
      Workload(
        .setWithOneObserver, .autoKVO, variant: "one handler for two key paths, counting calls",
        body: setting { model, observer in observeTwoKeyPaths(model, by: observer) }),
      Workload(
        .setWithOneObserver, .autoKVO, variant: "autoBind",
        body: setting { model, observer in
          observer.autoBind(\.total, from: model, keyPath: \.value)
        }),
      Workload(
        .setWithOneObserver, .autoKVO, variant: "the write of autoBind by hand",
        body: setting { model, observer in
          observer.autoObserve(model, keyPath: \.value, options: .new) { observer, _, change in
            observer.total = change.newValue!
          }
        }),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "cancel(), while a group lives elsewhere",
        body: .repeated {
          let model = Model()
          let observer = Observer()
          // An unrelated several-key-path registration, alive throughout: its group's memberships
          // are in the process-wide table that every registration's end consults while any group
          // lives.
          let source = ThreePropertyModel()
          let target = Observer()
          let binding = observeTwoKeyPaths(source, by: target)
          return { n in
            for _ in 0..<n { observe(model, by: observer).cancel() }
            withExtendedLifetime((source, target, binding)) {}
          }
        }),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "three key paths, cancel()",
        body: .repeated {
          let model = ThreePropertyModel()
          let observer = Observer()
          return { n in
            for _ in 0..<n { observeThreeKeyPaths(model, by: observer).cancel() }
          }
        }),
    ]
  }
}
