import AutoKVO
// The willSet/didSet form of `withObservationTracking` is SPI for SwiftUI: the cost an AutoKVO
// observer of an `@Observable` model is compared with is that of its didSet tracker.
@_spi(SwiftUI) import Observation

/// AutoKVO observers of an `@Observable` model, the one ``SwiftObservationSystem`` sets, and what
/// they are compared with: Observation's own didSet tracker, with an empty closure, on the same
/// class. Linux only: Apple's SDKs have neither the tracker nor these observers.
extension AutoKVOSystem {
  public static let modelNewVariant = "@Observable model, [.new]"
  public static let modelOldNewVariant = "@Observable model, [.old, .new]"
  public static let didSetTrackerVariant = "didSet tracker, empty closure"
  public static let willSetDidSetTrackerVariant = "willSet and didSet trackers, empty closures"

  @inline(never)
  @discardableResult
  static func observe(
    _ model: SwiftObservationSystem.Model, by observer: Observer, options: ObservationOptions
  ) -> KeyValueObservation {
    observer.autoObserve(model, keyPath: \.value, options: options) { observer, _, change in
      observer.total &+= (change.oldValue ?? 0) &+ (change.newValue ?? 0)
    }
  }

  static func observableModelObserverWorkloads() -> [Workload] {
    func settingModel(observedBy count: Int, options: ObservationOptions) -> Workload.Body {
      .repeated {
        let model = SwiftObservationSystem.Model()
        let observers = (0..<count).map { _ in Observer() }
        for observer in observers { observe(model, by: observer, options: options) }
        return { n in
          withExtendedLifetime(observers) {
            for i in 0..<n { SwiftObservationSystem.setValue(i, on: model) }
          }
        }
      }
    }
    return [
      Workload(
        .setWithOneObserver, .swiftObservation, variant: didSetTrackerVariant,
        body: .repeated {
          let model = SwiftObservationSystem.Model()
          // Read through the same non-inlined getter as every other row's tracking: a getter
          // inlined into the closure reports its read under a key path instance of its own, which
          // Observation's registrar must then compare in full with the setter's on every change.
          withObservationTracking(
            { _ = SwiftObservationSystem.value(of: model, plus: 0) }, didSet: { _ in })
          return { n in
            for i in 0..<n { SwiftObservationSystem.setValue(i, on: model) }
          }
        }),
      Workload(
        .setWithOneObserver, .swiftObservation, variant: willSetDidSetTrackerVariant,
        body: .repeated {
          let model = SwiftObservationSystem.Model()
          withObservationTracking(
            { _ = SwiftObservationSystem.value(of: model, plus: 0) }, willSet: { _ in },
            didSet: { _ in })
          return { n in
            for i in 0..<n { SwiftObservationSystem.setValue(i, on: model) }
          }
        }),
      Workload(
        .setWithOneObserver, .autoKVO, variant: modelNewVariant,
        body: settingModel(observedBy: 1, options: .new)),
      Workload(
        .setWithOneObserver, .autoKVO, variant: modelOldNewVariant,
        body: settingModel(observedBy: 1, options: [.old, .new])),
      Workload(
        .setWithTenObservers, .autoKVO, variant: modelNewVariant,
        body: settingModel(observedBy: 10, options: .new)),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "\(modelNewVariant), cancel()",
        body: .repeated {
          let model = SwiftObservationSystem.Model()
          let observer = Observer()
          return { n in
            for _ in 0..<n { observe(model, by: observer, options: .new).cancel() }
          }
        }),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "\(modelNewVariant), model deallocated",
        body: .repeated {
          let observer = Observer()
          return { n in
            for _ in 0..<n { observe(SwiftObservationSystem.Model(), by: observer, options: .new) }
          }
        }),
    ]
  }
}
