import AutoKVO

/// How many elements each append scenario appends, one by one, to an empty array.
extension Scenario {
  var appendCount: Int? {
    switch self {
    case .thousandAppends: 1000
    case .tenThousandAppends: 10_000
    case .hundredThousandAppends: 100_000
    default: nil
    }
  }

  /// The sizes at which appends through a proxy are measured.
  public static let appendScenarios: [Scenario] = [.thousandAppends, .hundredThousandAppends]

  /// The sizes at which appends through the property itself are measured: each copies the array,
  /// so 100,000 of them would take seconds.
  public static let propertyAppendScenarios: [Scenario] = [.thousandAppends, .tenThousandAppends]
}

/// Appending by hand: a stored array property of a class.
extension Baseline {
  final class ArrayModel {
    var items: [Int] = []
  }

  @inline(never)
  static func append(_ item: Int, to model: ArrayModel) { model.items.append(item) }

  static func appendWorkloads() -> [Workload] {
    [Scenario.thousandAppends, .tenThousandAppends, .hundredThousandAppends].map { scenario in
      let count = scenario.appendCount!
      return Workload(
        scenario, .baseline, variant: "stored array",
        body: .prepared {
          let model = ArrayModel()
          return { for item in 0..<count { append(item, to: model) } }
        })
    }
  }
}

/// Appending through `mutableArrayValue(for:)` to an `@Observed` array, with nobody observing and
/// with one observer that asks for the inserted elements; and appending through the property
/// itself, with nobody observing.
extension AutoKVOSystem {
  public final class ArrayModel: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @Observed public var items: [Int] = []

    public init() {}
  }

  @inline(never)
  static func append(_ item: Int, to proxy: MutableArrayProxy<ArrayModel, Int>) {
    proxy.append(item)
  }

  @inline(never)
  static func append(_ item: Int, to model: ArrayModel) { model.items.append(item) }

  static func appendWorkloads() -> [Workload] {
    func appending(_ count: Int, observed: Bool, throughProxy: Bool) -> Workload.Body {
      .prepared {
        let model = ArrayModel()
        let observer = Observer()
        if observed {
          observer.autoObserve(model, keyPath: \.items, options: .new) { observer, _, change in
            observer.total &+= change.newValue!.count
          }
        }
        return {
          withExtendedLifetime(observer) {
            if throughProxy {
              let proxy = model.mutableArrayValue(for: \.items)
              for item in 0..<count { append(item, to: proxy) }
            } else {
              for item in 0..<count { append(item, to: model) }
            }
          }
        }
      }
    }
    let throughProxy = Scenario.appendScenarios.flatMap { scenario -> [Workload] in
      let count = scenario.appendCount!
      return [
        Workload(
          scenario, .autoKVO, variant: "proxy, unobserved",
          body: appending(count, observed: false, throughProxy: true)),
        Workload(
          scenario, .autoKVO, variant: "proxy, 1 observer",
          body: appending(count, observed: true, throughProxy: true)),
      ]
    }
    let throughProperty = Scenario.propertyAppendScenarios.map { scenario in
      Workload(
        scenario, .autoKVO, variant: "property, unobserved",
        body: appending(scenario.appendCount!, observed: false, throughProxy: false))
    }
    return throughProxy + throughProperty
  }
}
