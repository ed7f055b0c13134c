import Foundation

/// Foundation's `NotificationCenter`: the model posts a notification carrying the old and the new
/// value on every set; observers are block observers on `NotificationCenter.default`.
public enum NotificationCenterSystem {
  static let valueDidChange = Notification.Name("AutoKVOBenchmarks.valueDidChange")

  final class Model {
    var value = 0 {
      didSet {
        NotificationCenter.default.post(
          name: valueDidChange, object: self, userInfo: ["old": oldValue, "new": value])
      }
    }
  }

  /// The wrapper users write so that an observation ends with its owner: removes the block
  /// observer when released.
  final class Observation {
    let token: NSObjectProtocol

    init(token: NSObjectProtocol) {
      self.token = token
    }

    deinit {
      NotificationCenter.default.removeObserver(token)
    }
  }

  @inline(never)
  static func setValue(_ value: Int, on model: Model) { model.value = value }

  @inline(never)
  static func value(of model: Model, plus offset: Int) -> Int { model.value &+ offset }

  @inline(never)
  static func addObserver(of model: Model, adding tally: Tally) -> NSObjectProtocol {
    NotificationCenter.default.addObserver(forName: valueDidChange, object: model, queue: nil) {
      notification in
      let userInfo = notification.userInfo!
      tally.total &+= (userInfo["old"] as! Int) &+ (userInfo["new"] as! Int)
    }
  }

  static func model(observedBy count: Int) -> (Model, [Observation]) {
    let model = Model()
    let tally = Tally()
    let observations = (0..<count).map { _ in
      Observation(token: addObserver(of: model, adding: tally))
    }
    return (model, observations)
  }

  static func workloads(deallocatedObservers: Int) -> [Workload] {
    func settingModel(observedBy count: Int) -> Workload.Body {
      .repeated {
        let (model, observations) = model(observedBy: count)
        return { n in
          withExtendedLifetime(observations) { for i in 0..<n { setValue(i, on: model) } }
        }
      }
    }
    return [
      Workload(.setWithoutObserver, .notificationCenter, body: settingModel(observedBy: 0)),
      Workload(.setWithOneObserver, .notificationCenter, body: settingModel(observedBy: 1)),
      Workload(.setWithTenObservers, .notificationCenter, body: settingModel(observedBy: 10)),
      Workload(
        .getOfObservedProperty, .notificationCenter,
        body: .repeated {
          let (model, observations) = model(observedBy: 1)
          return { n in
            var sum = 0
            withExtendedLifetime(observations) {
              for i in 0..<n { sum &+= value(of: model, plus: i) }
            }
            blackHole(sum)
          }
        }),
      Workload(
        .registrationAndTeardown, .notificationCenter, variant: "add + remove",
        body: .repeated {
          let model = Model()
          let tally = Tally()
          return { n in
            for _ in 0..<n {
              NotificationCenter.default.removeObserver(addObserver(of: model, adding: tally))
            }
          }
        }),
      Workload(
        .deallocationWithThousandObservers, .notificationCenter, variant: "remove all + release",
        body: .prepared {
          // Removing the observers is part of the teardown: NotificationCenter does not do it.
          let state = Released(model(observedBy: deallocatedObservers))
          return { state.release() }
        }),
    ]
  }

  static var registrationProbe: RegistrationProbe {
    RegistrationProbe(
      system: .notificationCenter,
      makeSubjects: { count in (0..<count).map { _ in (Model(), Tally()) } },
      register: { subjects in
        let subjects = subjects as! [(Model, Tally)]
        let observations = subjects.map { model, tally in
          Observation(token: addObserver(of: model, adding: tally))
        }
        return (subjects, observations)
      }
    )
  }
}
