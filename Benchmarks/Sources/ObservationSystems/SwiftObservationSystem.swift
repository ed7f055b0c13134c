import Observation

/// The toolchain's Observation module: `@Observable`, and `withObservationTracking` re-armed in
/// every `onChange`, the public way to keep observing synchronously.
///
/// It cannot express "registration + teardown": a tracking registration has no cancel, and ends
/// only when the next change fires it or the object is deallocated.
public enum SwiftObservationSystem {
  @Observable
  final class Model: TrackedModel {
    var value = 0
  }

  /// One observation: arms itself, and re-arms on every change.
  typealias Tracker = ObservationTracker<Model>

  @inline(never)
  static func setValue(_ value: Int, on model: Model) { model.value = value }

  @inline(never)
  static func value(of model: Model, plus offset: Int) -> Int { model.value &+ offset }

  static func model(trackedBy count: Int) -> (Model, [Tracker]) {
    let model = Model()
    let trackers = (0..<count).map { _ in Tracker(model: model) }
    for tracker in trackers { tracker.arm() }
    return (model, trackers)
  }

  static func workloads(deallocatedObservers: Int) -> [Workload] {
    func settingModel(trackedBy count: Int) -> Workload.Body {
      .repeated {
        let (model, trackers) = model(trackedBy: count)
        return { n in
          withExtendedLifetime(trackers) { for i in 0..<n { setValue(i, on: model) } }
        }
      }
    }
    return [
      Workload(.setWithoutObserver, .swiftObservation, body: settingModel(trackedBy: 0)),
      Workload(.setWithOneObserver, .swiftObservation, body: settingModel(trackedBy: 1)),
      Workload(.setWithTenObservers, .swiftObservation, body: settingModel(trackedBy: 10)),
      Workload(
        .getOfObservedProperty, .swiftObservation,
        body: .repeated {
          let (model, trackers) = model(trackedBy: 1)
          return { n in
            var sum = 0
            withExtendedLifetime(trackers) { for i in 0..<n { sum &+= value(of: model, plus: i) } }
            blackHole(sum)
          }
        }),
      Workload(
        .deallocationWithThousandObservers, .swiftObservation,
        body: .prepared {
          let (model, trackers) = model(trackedBy: deallocatedObservers)
          let state = Released(model)
          return { withExtendedLifetime(trackers) { state.release() } }
        }),
    ]
  }

  static var registrationProbe: RegistrationProbe {
    RegistrationProbe(
      system: .swiftObservation,
      makeSubjects: { count in
        (0..<count).map { _ in
          let model = Model()
          return (model, Tracker(model: model))
        }
      },
      register: { subjects in
        for (_, tracker) in subjects as! [(Model, Tracker)] { tracker.arm() }
        return subjects
      }
    )
  }
}

/// A model whose `value` Observation can track: an `@Observable` class, or an AutoKVO model that
/// conforms to `Observable`.
protocol TrackedModel: AnyObject, Observable, SendableMetatype {
  var value: Int { get }
}

/// One observation through `withObservationTracking`, re-armed in every `onChange`: the public way
/// to keep observing synchronously. The same code for every model, so that rows differ only in the
/// model's accessors.
final class ObservationTracker<Model: TrackedModel>: @unchecked Sendable {  // one thread only
  // unowned: the benchmarks keep every model alive while its trackers can fire.
  unowned let model: Model
  var total = 0

  init(model: Model) {
    self.model = model
  }

  func arm() {
    withObservationTracking {
      _ = model.value
    } onChange: { [weak self] in
      self?.changed()
    }
  }

  private func changed() {
    // onChange runs before the set: this reads the old value. The new one is not available.
    total &+= model.value
    arm()
  }
}
