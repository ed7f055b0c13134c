import OpenCombine

/// OpenCombine, the open-source Combine: `@Published` and `sink`, kept by an `AnyCancellable`.
///
/// `@Published` publishes the new value only (before the set), so its handler adds the new value.
public enum OpenCombineSystem {
  final class Model {
    @Published var value = 0
  }

  @inline(never)
  static func setValue(_ value: Int, on model: Model) { model.value = value }

  @inline(never)
  static func value(of model: Model, plus offset: Int) -> Int { model.value &+ offset }

  @inline(never)
  static func sink(_ model: Model, adding tally: Tally) -> AnyCancellable {
    model.$value.sink { new in tally.total &+= new }
  }

  static func model(observedBy count: Int) -> (Model, [AnyCancellable]) {
    let model = Model()
    let tally = Tally()
    return (model, (0..<count).map { _ in sink(model, adding: tally) })
  }

  static func workloads(deallocatedObservers: Int) -> [Workload] {
    func settingModel(observedBy count: Int) -> Workload.Body {
      .repeated {
        let (model, cancellables) = model(observedBy: count)
        return { n in
          withExtendedLifetime(cancellables) { for i in 0..<n { setValue(i, on: model) } }
        }
      }
    }
    return [
      Workload(.setWithoutObserver, .openCombine, body: settingModel(observedBy: 0)),
      Workload(.setWithOneObserver, .openCombine, body: settingModel(observedBy: 1)),
      Workload(.setWithTenObservers, .openCombine, body: settingModel(observedBy: 10)),
      Workload(
        .getOfObservedProperty, .openCombine,
        body: .repeated {
          let (model, cancellables) = model(observedBy: 1)
          return { n in
            var sum = 0
            withExtendedLifetime(cancellables) {
              for i in 0..<n { sum &+= value(of: model, plus: i) }
            }
            blackHole(sum)
          }
        }),
      Workload(
        .registrationAndTeardown, .openCombine, variant: "sink + cancel",
        body: .repeated {
          let model = Model()
          let tally = Tally()
          return { n in
            for _ in 0..<n { sink(model, adding: tally).cancel() }
          }
        }),
      Workload(
        .deallocationWithThousandObservers, .openCombine, variant: "cancel all + release",
        body: .prepared {
          // Cancelling is part of the teardown: releasing the model does not end the sinks.
          let state = Released(model(observedBy: deallocatedObservers))
          return { state.release() }
        }),
    ]
  }

  static var registrationProbe: RegistrationProbe {
    RegistrationProbe(
      system: .openCombine,
      makeSubjects: { count in (0..<count).map { _ in (Model(), Tally()) } },
      register: { subjects in
        let subjects = subjects as! [(Model, Tally)]
        return (subjects, subjects.map { model, tally in sink(model, adding: tally) })
      }
    )
  }
}
