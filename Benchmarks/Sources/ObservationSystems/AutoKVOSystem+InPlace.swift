import AutoKVO

/// `@ObservedInPlace`: appends through the property, nobody observing and with one `[.new]`
/// observer, at the sizes of the proxy's appends; and the get and the unobserved set of an
/// `@ObservedInPlace` integer, beside `@Observed`'s.
extension AutoKVOSystem {
  public final class InPlaceArrayModel: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @ObservedInPlace public var items: [Int] = []

    public init() {}
  }

  public final class InPlaceModel: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @ObservedInPlace public var value = 0

    public init() {}
  }

  @inline(never)
  static func append(_ item: Int, to model: InPlaceArrayModel) { model.items.append(item) }

  @inline(never)
  public static func setValue(_ value: Int, on model: InPlaceModel) { model.value = value }

  @inline(never)
  public static func value(of model: InPlaceModel, plus offset: Int) -> Int {
    model.value &+ offset
  }

  static func inPlaceWorkloads() -> [Workload] {
    func appending(_ count: Int, observed: Bool) -> Workload.Body {
      .prepared {
        let model = InPlaceArrayModel()
        let observer = Observer()
        if observed {
          observer.autoObserve(model, keyPath: \.items, options: .new) { observer, _, change in
            observer.total &+= change.newValue!.count
          }
        }
        return {
          withExtendedLifetime(observer) {
            for item in 0..<count { append(item, to: model) }
          }
        }
      }
    }
    let appends = Scenario.appendScenarios.flatMap { scenario -> [Workload] in
      let count = scenario.appendCount!
      return [
        Workload(
          scenario, .autoKVO, variant: "@ObservedInPlace property, unobserved",
          body: appending(count, observed: false)),
        Workload(
          scenario, .autoKVO, variant: "@ObservedInPlace property, 1 observer [.new]",
          body: appending(count, observed: true)),
      ]
    }
    return appends + [
      Workload(
        .setWithoutObserver, .autoKVO, variant: "@ObservedInPlace",
        body: .repeated {
          let model = InPlaceModel()
          return { n in for i in 0..<n { setValue(i, on: model) } }
        }),
      Workload(
        .getOfObservedProperty, .autoKVO, variant: "@ObservedInPlace",
        body: .repeated {
          let model = InPlaceModel()
          let observer = Observer()
          observer.autoObserve(model, keyPath: \.value, options: [.old, .new]) {
            observer, _, change in
            observer.total &+= change.oldValue! &+ change.newValue!
          }
          return { n in
            var sum = 0
            withExtendedLifetime(observer) { for i in 0..<n { sum &+= value(of: model, plus: i) } }
            blackHole(sum)
          }
        }),
    ]
  }
}
