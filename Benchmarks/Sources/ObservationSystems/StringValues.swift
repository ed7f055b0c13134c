import AutoKVO

/// Values for the `String` scenarios: long enough to live on the heap, so that every copy of one
/// is a retain and every replaced one a release, as with most strings an app observes.
enum StringValues {
  static let all: [String] = (0..<64).map { "a value long enough to be on the heap, #\($0)" }

  @inline(__always)
  static func value(_ index: Int) -> String { all[index & 63] }
}

extension Tally {
  func add(_ old: String, _ new: String) {
    total &+= old.utf8.count &+ new.utf8.count
  }
}

/// The `String` scenarios by hand: a stored property, and a `didSet` calling closures.
extension Baseline {
  final class PlainStringModel {
    var value = StringValues.value(0)
  }

  final class StringClosureListModel {
    var handlers: [(String, String) -> Void] = []
    var value = StringValues.value(0) {
      didSet {
        for handler in handlers { handler(oldValue, value) }
      }
    }
  }

  @inline(never)
  static func setString(_ value: String, on model: PlainStringModel) { model.value = value }

  @inline(never)
  static func setString(_ value: String, on model: StringClosureListModel) { model.value = value }

  @inline(never)
  static func string(of model: StringClosureListModel) -> String { model.value }

  static func stringWorkloads() -> [Workload] {
    func closures(_ count: Int) -> StringClosureListModel {
      let model = StringClosureListModel()
      let tally = Tally()
      model.handlers = (0..<count).map { _ in { old, new in tally.add(old, new) } }
      return model
    }
    return [
      Workload(
        .setStringWithoutObserver, .baseline, variant: "stored property",
        body: .repeated {
          let model = PlainStringModel()
          return { n in for i in 0..<n { setString(StringValues.value(i), on: model) } }
        }),
      Workload(
        .setStringWithOneObserver, .baseline, variant: "didSet closure",
        body: .repeated {
          let model = closures(1)
          return { n in for i in 0..<n { setString(StringValues.value(i), on: model) } }
        }),
      Workload(
        .setStringWithTenObservers, .baseline, variant: "didSet, 10 closures",
        body: .repeated {
          let model = closures(10)
          return { n in for i in 0..<n { setString(StringValues.value(i), on: model) } }
        }),
      Workload(
        .getOfObservedString, .baseline, variant: "didSet closure",
        body: .repeated {
          let model = closures(1)
          return { n in
            var sum = 0
            for _ in 0..<n { sum &+= string(of: model).utf8.count }
            blackHole(sum)
          }
        }),
    ]
  }
}

/// The `String` scenarios with AutoKVO: `@Observed var name: String` and `[.old, .new]`.
extension AutoKVOSystem {
  public final class StringModel: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @Observed public var value = StringValues.value(0)

    public init() {}
  }

  @inline(never)
  static func setString(_ value: String, on model: StringModel) { model.value = value }

  @inline(never)
  static func string(of model: StringModel) -> String { model.value }

  static func stringWorkloads() -> [Workload] {
    func model(observedBy count: Int) -> (StringModel, [Observer]) {
      let model = StringModel()
      let tally = Tally()
      let observers = (0..<count).map { _ in Observer() }
      for observer in observers {
        observer.autoObserve(model, keyPath: \.value, options: [.old, .new]) { _, _, change in
          tally.add(change.oldValue!, change.newValue!)
        }
      }
      return (model, observers)
    }
    func setting(observedBy count: Int) -> Workload.Body {
      .repeated {
        let (model, observers) = model(observedBy: count)
        return { n in
          withExtendedLifetime(observers) {
            for i in 0..<n { setString(StringValues.value(i), on: model) }
          }
        }
      }
    }
    return [
      Workload(.setStringWithoutObserver, .autoKVO, body: setting(observedBy: 0)),
      Workload(.setStringWithOneObserver, .autoKVO, body: setting(observedBy: 1)),
      Workload(.setStringWithTenObservers, .autoKVO, body: setting(observedBy: 10)),
      Workload(
        .getOfObservedString, .autoKVO,
        body: .repeated {
          let (model, observers) = model(observedBy: 1)
          return { n in
            var sum = 0
            withExtendedLifetime(observers) {
              for _ in 0..<n { sum &+= string(of: model).utf8.count }
            }
            blackHole(sum)
          }
        }),
    ]
  }
}
