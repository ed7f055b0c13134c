import AutoKVO

/// AutoKVO: `@Observed` and `autoObserve` with options `[.old, .new]`.
public enum AutoKVOSystem {
  public final class Model: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @Observed public var value = 0

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
    ]
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
