import AutoKVO

/// How many elements each append scenario appends, one by one, to an empty array.
extension Scenario {
  var appendCount: Int? {
    switch self {
    case .thousandAppends: 1000
    case .hundredThousandAppends: 100_000
    default: nil
    }
  }

  public static let appendScenarios: [Scenario] = [.thousandAppends, .hundredThousandAppends]
}

/// Appending by hand: a stored array property of a class.
extension Baseline {
  final class ArrayModel {
    var items: [Int] = []
  }

  @inline(never)
  static func append(_ item: Int, to model: ArrayModel) { model.items.append(item) }

  static func appendWorkloads() -> [Workload] {
    Scenario.appendScenarios.map { scenario in
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
/// with one observer that asks for the inserted elements.
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

  static func appendWorkloads() -> [Workload] {
    Scenario.appendScenarios.flatMap { scenario -> [Workload] in
      let count = scenario.appendCount!
      func appending(observed: Bool) -> Workload.Body {
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
              let proxy = model.mutableArrayValue(for: \.items)
              for item in 0..<count { append(item, to: proxy) }
            }
          }
        }
      }
      return [
        Workload(
          scenario, .autoKVO, variant: "proxy, unobserved", body: appending(observed: false)),
        Workload(scenario, .autoKVO, variant: "proxy, 1 observer", body: appending(observed: true)),
      ]
    }
  }
}
