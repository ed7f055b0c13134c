import AutoKVO
import Observation

/// AutoKVO models that also conform to Observation's `Observable`, tracked the way
/// ``SwiftObservationSystem`` tracks an `@Observable` one: the rows that compare their accessors
/// with the `@Observable` macro's.
extension AutoKVOSystem {
  public final class ObservableModel: KeyValueObservable, TrackedModel {
    public let observationRegistry = ObservationRegistry()
    @Observed public var value = 0

    public init() {}
  }

  @inline(never)
  public static func setValue(_ value: Int, on model: ObservableModel) { model.value = value }

  @inline(never)
  public static func value(of model: ObservableModel, plus offset: Int) -> Int {
    model.value &+ offset
  }

  /// A model tracked by `count` trackers, which the caller keeps alive. Read once even when
  /// nobody tracks it, as a view that showed it once would have: the read makes the registrar
  /// every later set tells, which an `@Observable` model has from its start.
  static func observableModel(trackedBy count: Int) -> (
    ObservableModel, [ObservationTracker<ObservableModel>]
  ) {
    let model = ObservableModel()
    blackHole(value(of: model, plus: 0))
    let trackers = (0..<count).map { _ in ObservationTracker(model: model) }
    for tracker in trackers { tracker.arm() }
    return (model, trackers)
  }

  @inline(never)
  @discardableResult
  public static func observe(_ model: ObservableModel, by observer: Observer) -> KeyValueObservation
  {
    observer.autoObserve(model, keyPath: \.value, options: [.old, .new]) { observer, _, change in
      observer.total &+= change.oldValue! &+ change.newValue!
    }
  }

  /// A model observed by `count` AutoKVO observers, which the caller keeps alive, read once as in
  /// `observableModel(trackedBy:)`: what an AutoKVO observer costs on a class that also conforms
  /// to `Observable`, whose sets also tell its registrar.
  static func observableModel(observedBy count: Int) -> (ObservableModel, [Observer]) {
    let model = ObservableModel()
    blackHole(value(of: model, plus: 0))
    let observers = (0..<count).map { _ in Observer() }
    for observer in observers { observe(model, by: observer) }
    return (model, observers)
  }

  static func observableModelWorkloads() -> [Workload] {
    /// Sets a model that `make` returns with what keeps its observers or trackers alive.
    func settingModel<Watchers>(_ make: @escaping () -> (ObservableModel, Watchers))
      -> Workload.Body
    {
      .repeated {
        let (model, watchers) = make()
        return { n in
          withExtendedLifetime(watchers) { for i in 0..<n { setValue(i, on: model) } }
        }
      }
    }
    func settingModel(trackedBy count: Int) -> Workload.Body {
      settingModel { observableModel(trackedBy: count) }
    }
    func settingModel(observedBy count: Int) -> Workload.Body {
      settingModel { observableModel(observedBy: count) }
    }
    return [
      Workload(
        .setWithOneObserver, .autoKVO, variant: Self.observableObservedVariant,
        body: settingModel(observedBy: 1)),
      Workload(
        .setWithTenObservers, .autoKVO, variant: Self.observableObservedVariant,
        body: settingModel(observedBy: 10)),
      Workload(
        .setWithoutObserver, .autoKVO, variant: Self.observableVariant,
        body: settingModel(trackedBy: 0)),
      Workload(
        .setWithOneObserver, .autoKVO, variant: Self.observableVariant,
        body: settingModel(trackedBy: 1)),
      Workload(
        .setWithTenObservers, .autoKVO, variant: Self.observableVariant,
        body: settingModel(trackedBy: 10)),
      Workload(
        .getOfObservedProperty, .autoKVO, variant: Self.observableVariant,
        body: .repeated {
          let (model, trackers) = observableModel(trackedBy: 1)
          return { n in
            var sum = 0
            withExtendedLifetime(trackers) { for i in 0..<n { sum &+= value(of: model, plus: i) } }
            blackHole(sum)
          }
        }),
    ]
  }

  /// The variant of the rows above: the model conforms to `Observable`, and its observers are
  /// trackings, as in the Swift Observation rows.
  public static let observableVariant = "Observable class, trackings"

  /// The variant of the rows whose observers are AutoKVO registrations on the same class.
  public static let observableObservedVariant = "Observable class, AutoKVO observers"
}
