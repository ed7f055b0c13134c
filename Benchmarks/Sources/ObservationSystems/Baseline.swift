/// What every handler in every system does with a change: adds it to a running total, so that
/// no delivery can be optimized away.
public final class Tally: @unchecked Sendable {  // benchmarks mutate on one thread only
  public var total = 0

  public init() {}
}

/// The hand-written limit: a stored property, and a `didSet` that calls stored closures with the
/// old and the new value.
public enum Baseline {
  final class PlainModel {
    var value = 0
  }

  final class ClosureModel {
    var onChange: ((Int, Int) -> Void)?
    var value = 0 {
      didSet { onChange?(oldValue, value) }
    }
  }

  final class ClosureListModel {
    var handlers: [(Int, Int) -> Void] = []
    var value = 0 {
      didSet {
        for handler in handlers { handler(oldValue, value) }
      }
    }
  }

  @inline(never)
  static func setValue(_ value: Int, on model: PlainModel) { model.value = value }

  @inline(never)
  static func setValue(_ value: Int, on model: ClosureModel) { model.value = value }

  @inline(never)
  static func setValue(_ value: Int, on model: ClosureListModel) { model.value = value }

  @inline(never)
  static func value(of model: ClosureModel, plus offset: Int) -> Int { model.value &+ offset }

  static func handler(adding tally: Tally) -> (Int, Int) -> Void {
    { old, new in tally.total &+= old &+ new }
  }

  /// Sets `handler` and then clears it, as the registration and teardown of a single observer.
  @inline(never)
  static func registerAndRemove(_ handler: @escaping (Int, Int) -> Void, on model: ClosureModel) {
    model.onChange = handler
    model.onChange = nil
  }

  static func workloads(deallocatedObservers: Int) -> [Workload] {
    [
      Workload(
        .setWithoutObserver, .baseline, variant: "stored property",
        body: .repeated {
          let model = PlainModel()
          return { n in for i in 0..<n { setValue(i, on: model) } }
        }),
      Workload(
        .setWithOneObserver, .baseline, variant: "didSet closure",
        body: .repeated {
          let model = ClosureModel()
          model.onChange = handler(adding: Tally())
          return { n in for i in 0..<n { setValue(i, on: model) } }
        }),
      Workload(
        .setWithTenObservers, .baseline, variant: "didSet, 10 closures",
        body: .repeated {
          let model = ClosureListModel()
          let tally = Tally()
          model.handlers = (0..<10).map { _ in handler(adding: tally) }
          return { n in for i in 0..<n { setValue(i, on: model) } }
        }),
      Workload(
        .getOfObservedProperty, .baseline, variant: "didSet closure",
        body: .repeated {
          let model = ClosureModel()
          model.onChange = handler(adding: Tally())
          return { n in
            var sum = 0
            for i in 0..<n { sum &+= value(of: model, plus: i) }
            blackHole(sum)
          }
        }),
      Workload(
        .registrationAndTeardown, .baseline, variant: "closure set + cleared",
        body: .repeated {
          let model = ClosureModel()
          let tally = Tally()
          return { n in
            for _ in 0..<n { registerAndRemove(handler(adding: tally), on: model) }
          }
        }),
      Workload(
        .deallocationWithThousandObservers, .baseline, variant: "closure array",
        body: .prepared {
          let model = ClosureListModel()
          let tally = Tally()
          model.handlers = (0..<deallocatedObservers).map { _ in handler(adding: tally) }
          let state = Released(model)
          return { state.release() }
        }),
    ]
  }

  static var registrationProbe: RegistrationProbe {
    RegistrationProbe(
      system: .baseline,
      makeSubjects: { count in (0..<count).map { _ in (ClosureModel(), Tally()) } },
      register: { subjects in
        for (model, tally) in subjects as! [(ClosureModel, Tally)] {
          model.onChange = handler(adding: tally)
        }
        return subjects
      }
    )
  }
}
