import AutoKVO

/// AutoKVO: `@Observed` and `autoObserve` with options `[.old, .new]`.
public enum AutoKVOSystem {
  public final class Model: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @Observed public var value = 0

    public init() {}
  }

  /// The leaf of a two-hop chain, a `Double`. With an integer leaf (`Int` or `UInt`) the other
  /// workloads' sets of `Model.value` cost 8 instructions more with one observer, and 80 with ten:
  /// the optimizer shares the code it specializes for two integer types alike.
  public final class Leaf: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @Observed public var value = 0.0

    public init() {}
  }

  /// Reaches a leaf through an `@Observed` property: the root of a two-hop chain.
  public final class Holder: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @Observed public var leaf = Leaf()
    @Observed public var optionalLeaf: Leaf? = Leaf()

    public init() {}
  }

  public final class Observer: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    public var total = 0

    public init() {}
  }

  @inline(never)
  public static func setValue(_ value: Int, on model: Model) { model.value = value }

  @inline(never)
  public static func value(of model: Model, plus offset: Int) -> Int { model.value &+ offset }

  /// Sets the value of the holder's leaf, through a two-hop chain.
  @inline(never)
  public static func setValue(_ value: Double, onLeafOf holder: Holder) {
    holder.leaf.value = value
  }

  /// Sets the value of the holder's optional leaf, through a two-hop chain with an optional hop.
  @inline(never)
  public static func setValue(_ value: Double, onOptionalLeafOf holder: Holder) {
    holder.optionalLeaf?.value = value
  }

  @inline(never)
  @discardableResult
  public static func observe(_ model: Model, by observer: Observer) -> KeyValueObservation {
    observer.autoObserve(model, keyPath: \.value, options: [.old, .new]) { observer, _, change in
      observer.total &+= change.oldValue! &+ change.newValue!
    }
  }

  /// A model observed by `count` observers, which the caller keeps alive.
  public static func model(observedBy count: Int) -> (Model, [Observer]) {
    let model = Model()
    let observers = (0..<count).map { _ in Observer() }
    for observer in observers { observe(model, by: observer) }
    return (model, observers)
  }

  /// An observer that observes `count` models, which the caller keeps alive.
  public static func observer(observing count: Int) -> (Observer, [Model]) {
    let observer = Observer()
    let models = (0..<count).map { _ in Model() }
    for model in models { observe(model, by: observer) }
    return (observer, models)
  }

  @inline(never)
  public static func stopObserving(_ model: Model, by observer: Observer) {
    observer.stopObserving(model)
  }

  /// One more registration and its end, by an observer that already observes `others` models:
  /// what a registration's end costs among many of the same observer (`cancel()`,
  /// `stopObserving(_:)`, the model's deallocation), which must not grow with `others`.
  /// `label` spells `others` in the workloads' identifiers, whatever the locale.
  static func workloadsAmongOtherRegistrations(_ others: Int, label: String) -> [Workload] {
    let among = "among \(label) registrations"
    func body(_ operation: @escaping (Observer) -> Void) -> Workload.Body {
      .repeated {
        let (observer, models) = observer(observing: others)
        return { n in
          withExtendedLifetime(models) { for _ in 0..<n { operation(observer) } }
        }
      }
    }
    return [
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "cancel(), \(among)",
        body: body { observer in
          let model = Model()
          observe(model, by: observer).cancel()
          withExtendedLifetime(model) {}
        }),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "stopObserving(object), \(among)",
        body: body { observer in
          let model = Model()
          observe(model, by: observer)
          stopObserving(model, by: observer)
        }),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "object deallocated, \(among)",
        body: body { observer in observe(Model(), by: observer) }),
    ]
  }

  static func workloads(deallocatedObservers: Int) -> [Workload] {
    func settingModel(observedBy count: Int) -> Workload.Body {
      .repeated {
        let (model, observers) = model(observedBy: count)
        return { n in
          withExtendedLifetime(observers) { for i in 0..<n { setValue(i, on: model) } }
        }
      }
    }
    return [
      Workload(.setWithoutObserver, .autoKVO, body: settingModel(observedBy: 0)),
      Workload(.setWithOneObserver, .autoKVO, body: settingModel(observedBy: 1)),
      Workload(.setWithTenObservers, .autoKVO, body: settingModel(observedBy: 10)),
      Workload(
        .setWithOneObserver, .autoKVO, variant: "through a two-hop chain",
        body: .repeated {
          let holder = Holder()
          let observer = Observer()
          observer.autoObserve(holder, keyPath: \.leaf.value, options: [.old, .new]) {
            observer, _, change in
            observer.total &+= Int(change.oldValue! + change.newValue!)
          }
          return { n in
            withExtendedLifetime(observer) {
              for i in 0..<n { setValue(Double(i), onLeafOf: holder) }
            }
          }
        }),
      Workload(
        .setWithOneObserver, .autoKVO, variant: "through a two-hop optional chain",
        body: .repeated {
          let holder = Holder()
          let observer = Observer()
          observer.autoObserve(holder, keyPath: \.optionalLeaf?.value, options: [.old, .new]) {
            observer, _, change in
            observer.total &+= Int((change.oldValue! ?? 0) + (change.newValue! ?? 0))
          }
          return { n in
            withExtendedLifetime(observer) {
              for i in 0..<n { setValue(Double(i), onOptionalLeafOf: holder) }
            }
          }
        }),
      Workload(
        .getOfObservedProperty, .autoKVO,
        body: .repeated {
          let (model, observers) = model(observedBy: 1)
          return { n in
            var sum = 0
            withExtendedLifetime(observers) { for i in 0..<n { sum &+= value(of: model, plus: i) } }
            blackHole(sum)
          }
        }),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "observer deallocated",
        body: .repeated {
          let model = Model()
          return { n in
            for _ in 0..<n { observe(model, by: Observer()) }
          }
        }),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "object deallocated",
        body: .repeated {
          let observer = Observer()
          return { n in
            for _ in 0..<n { observe(Model(), by: observer) }
          }
        }),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "cancel()",
        body: .repeated {
          let model = Model()
          let observer = Observer()
          return { n in
            for _ in 0..<n { observe(model, by: observer).cancel() }
          }
        }),
      Workload(
        .deallocationWithThousandObservers, .autoKVO,
        body: .prepared {
          let (model, observers) = model(observedBy: deallocatedObservers)
          let state = Released(model)
          return { withExtendedLifetime(observers) { state.release() } }
        }),
    ] + workloadsAmongOtherRegistrations(10, label: "10")
      + workloadsAmongOtherRegistrations(10_000, label: "10,000")
      + workloadsAmongProperties(1) + workloadsAmongProperties(200)
      + workloadsBesideRegistrations(10, label: "10")
      + workloadsBesideRegistrations(10_000, label: "10,000")
      + workloadsAmongObserversOfTheProperty(10, label: "10")
      + workloadsAmongObserversOfTheProperty(1_000, label: "1,000")
  }

  static var registrationProbe: RegistrationProbe {
    RegistrationProbe(
      system: .autoKVO,
      makeSubjects: { count in (0..<count).map { _ in (Model(), Observer()) } },
      register: { subjects in
        for (model, observer) in subjects as! [(Model, Observer)] { observe(model, by: observer) }
        return subjects
      }
    )
  }
}
