@testable import AutoKVO

/// An object that both observes and is observed, as every object in a lifecycle program is.
// @unchecked Sendable: a program runs on one thread; nodes never cross threads.
final class ProgramNode: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var value = 0
  @Observed var label = "l0"
  var summary: String { "\(label)#\(value)" }

  let serial: Int
  let deinitBehavior: DeinitBehavior
  /// Nodes this node keeps alive (``LifecycleStep/adopt(owner:owned:)``).
  var owned: [ProgramNode] = []
  private(set) var isDeinitializing = false
  private weak var run: LifecycleProgramRun?
  private let tracker: LifetimeTracker

  init(serial: Int, deinitBehavior: DeinitBehavior, run: LifecycleProgramRun) {
    self.serial = serial
    self.deinitBehavior = deinitBehavior
    self.run = run
    tracker = run.nodeTracker
    tracker.instanceCreated()
  }

  deinit {
    isDeinitializing = true
    run?.nodeBeganDeinit(self)
    tracker.instanceDestroyed()
  }

  func currentValue(of property: ObservedProperty) -> String {
    switch property {
    case .value: "\(value)"
    case .label: label
    case .summary: summary
    }
  }
}

/// What the run knows about one registration: what the model says about it, and the handle.
final class RegistrationRecord {
  let index: Int
  let observerSerial: Int
  let observedSerial: Int
  let property: ObservedProperty
  let options: ObservationOptions
  let action: HandlerAction
  var handle: KeyValueObservation?
  weak var weakHandle: KeyValueObservation?
  /// Why the model says the registration ended: the first of `cancel()` returning or either
  /// side beginning to deallocate. Two reasons are acceptable when one object observes itself.
  var endedFor: Set<RegistrationLifecycle.EndReason> = []
  var isRegistering = true
  var initialCalls = 0
  var actionDone = false

  init(
    index: Int, observerSerial: Int, observedSerial: Int, property: ObservedProperty,
    options: ObservationOptions, action: HandlerAction
  ) {
    self.index = index
    self.observerSerial = observerSerial
    self.observedSerial = observedSerial
    self.property = property
    self.options = options
    self.action = action
  }

  var isActiveInModel: Bool { endedFor.isEmpty }

  var endReasons: String { endedFor.map { "\($0)" }.sorted().joined(separator: " or ") }
}

/// Runs one ``LifecycleProgram`` against AutoKVO and a model of what must happen, and collects
/// every broken invariant.
///
/// Checked during the run: every handler call goes to a registration the model says is live,
/// with an observer and an object that have not begun deallocating; an `.initial` call carries
/// the current value; a mutation in which no handler acted delivers exactly the calls, in the
/// order and with the values, that KVO semantics prescribe; after every step, each live node's
/// `observerCount` and `observingCount` and each handle's end reason match the model.
/// Checked at the end, once every slot is released: every node was freed, every registration
/// ended for the reason the model predicts, every handler closure was freed (observed-side
/// sentinels), and every handle was freed once the run dropped it (both sentinels retain it).
final class LifecycleProgramRun {
  struct Call: Equatable, CustomStringConvertible {
    let registration: Int
    let isPrior: Bool
    let old: String?
    let new: String?

    var description: String {
      "registration[\(registration)]\(isPrior ? " prior" : "") \(old ?? "nil")->\(new ?? "nil")"
    }
  }

  let nodeTracker = LifetimeTracker()
  private let handlerTracker = LifetimeTracker()
  private var slots: [ProgramNode?] = Array(repeating: nil, count: LifecycleProgram.slotCount)
  private var nodes: [WeakNode] = []
  private var records: [RegistrationRecord] = []
  private var calls: [Call] = []
  private var actionsPerformed = 0
  private var lastValue = 0
  private var currentStep = -1
  private(set) var violations: [String] = []
  /// Handler calls and registrations made, for the figures of a long run.
  private(set) var callCount = 0

  var registrationCount: Int { records.count }

  /// Runs `program` and returns the broken invariants, or none.
  static func violations(of program: LifecycleProgram) -> [String] {
    let run = LifecycleProgramRun()
    run.execute(program)
    return run.violations
  }

  func execute(_ program: LifecycleProgram) {
    for (index, step) in program.steps.enumerated() {
      currentStep = index
      perform(step)
      checkRegistries()
    }
    currentStep = program.steps.count
    for slot in slots.indices { release(slot: slot) }
    checkRegistries()
    checkEverythingFreed()
  }

  private func perform(_ step: LifecycleStep) {
    switch step {
    case .create(let slot, let behavior):
      release(slot: slot)
      let node = ProgramNode(serial: nodes.count, deinitBehavior: behavior, run: self)
      nodes.append(WeakNode(node: node))
      slots[slot] = node
    case .register(let observer, let observed, let property, let options, let action):
      guard let observer = slots[observer], let observed = slots[observed] else { return }
      register(observer, observed, property, options, action: action)
    case .mutate(let slot, let property):
      mutateCheckingDelivery(slot: slot, property)
    case .cancel(let registration):
      cancel(registration: registration)
    case .release(let slot):
      release(slot: slot)
    case .adopt(let owner, let owned):
      guard let owner = slots[owner], let owned = slots[owned] else { return }
      owner.owned.append(owned)
    }
  }

  // MARK: Operations shared by steps, handler actions and deinits

  @discardableResult
  private func register(
    _ observer: ProgramNode, _ observed: ProgramNode, _ property: ObservedProperty,
    _ options: ObservationOptions, action: HandlerAction
  ) -> RegistrationRecord {
    let record = RegistrationRecord(
      index: records.count, observerSerial: observer.serial, observedSerial: observed.serial,
      property: property, options: options, action: action)
    records.append(record)
    // A registration made with a side that has begun deallocating is over before it starts:
    // it must deliver nothing, not even its `.initial` call.
    if observer.isDeinitializing { record.endedFor.insert(.observerDeallocated) }
    if observed.isDeinitializing { record.endedFor.insert(.observedDeallocated) }
    let handle =
      switch property {
      case .value: observe(observer, observed, \.value, record)
      case .label: observe(observer, observed, \.label, record)
      case .summary: observe(observer, observed, \.summary, record)
      }
    record.handle = handle
    record.weakHandle = handle
    record.isRegistering = false
    let expectedInitialCalls = options.contains(.initial) && record.isActiveInModel ? 1 : 0
    if record.initialCalls != expectedInitialCalls {
      violate(
        "registration[\(record.index)] made \(record.initialCalls) .initial calls, "
          + "expected \(expectedInitialCalls)")
    }
    return record
  }

  private func observe<Value>(
    _ observer: ProgramNode, _ observed: ProgramNode, _ keyPath: KeyPath<ProgramNode, Value>,
    _ record: RegistrationRecord
  ) -> KeyValueObservation {
    // The token lives exactly as long as the handler closure, which only the observed-side
    // sentinel owns: its death proves the sentinel was freed.
    let token = Token(handlerTracker)
    return observer.autoObserve(observed, keyPath: keyPath, options: record.options) {
      [weak self] observer, object, change in
      withExtendedLifetime(token) {}
      self?.handlerCalled(
        record, observer: observer, object: object, kind: change.kind, isPrior: change.isPrior,
        old: change.oldValue.map { "\($0)" }, new: change.newValue.map { "\($0)" })
    }
  }

  private func cancel(registration: Int) {
    guard records.indices.contains(registration) else { return }
    cancel(records[registration])
  }

  private func cancel(_ record: RegistrationRecord) {
    // Inside its own `.initial` call a registration has no handle yet: nothing can cancel it.
    guard let handle = record.handle else { return }
    handle.cancel()
    if record.isActiveInModel { record.endedFor = [.cancelled] }
  }

  private func release(slot: Int) {
    // The node is released after the write to `slots` has finished, so that its deinit (which
    // reads `slots`) does not overlap the write.
    let released = slots[slot]
    slots[slot] = nil
    withExtendedLifetime(released) {}
  }

  private func mutate(slot: Int, _ property: NodeProperty) {
    guard let node = slots[slot] else { return }
    set(property, of: node)
  }

  private func set(_ property: NodeProperty, of node: ProgramNode) {
    lastValue += 1
    switch property {
    case .value: node.value = lastValue
    case .label: node.label = "l\(lastValue)"
    }
  }

  /// A mutation step. When no handler acts during it, the exact calls are known: one prior call
  /// per live triggered registration that asked for `.prior`, in registration order, then one
  /// call for each, in registration order, with the values each asked for.
  private func mutateCheckingDelivery(slot: Int, _ property: NodeProperty) {
    guard let node = slots[slot] else { return }
    let concerned = records.filter {
      $0.isActiveInModel && $0.observedSerial == node.serial
        && $0.property.isTriggered(by: property)
    }
    let before = concerned.map { node.currentValue(of: $0.property) }
    let firstCall = calls.count
    let actionsBefore = actionsPerformed
    set(property, of: node)
    guard actionsPerformed == actionsBefore else { return }
    var expected: [Call] = []
    for (record, old) in zip(concerned, before) where record.options.contains(.prior) {
      expected.append(
        Call(
          registration: record.index, isPrior: true,
          old: record.options.contains(.old) ? old : nil, new: nil))
    }
    for (record, old) in zip(concerned, before) {
      expected.append(
        Call(
          registration: record.index, isPrior: false,
          old: record.options.contains(.old) ? old : nil,
          new: record.options.contains(.new) ? node.currentValue(of: record.property) : nil))
    }
    let delivered = Array(calls[firstCall...])
    if delivered != expected {
      violate("delivered \(delivered), expected \(expected)")
    }
  }

  // MARK: Callbacks

  private func handlerCalled(
    _ record: RegistrationRecord, observer: ProgramNode, object: ProgramNode, kind: ChangeKind,
    isPrior: Bool, old: String?, new: String?
  ) {
    calls.append(Call(registration: record.index, isPrior: isPrior, old: old, new: new))
    callCount += 1
    let name = "registration[\(record.index)]"
    if !record.isActiveInModel {
      violate("\(name) was called after it ended (\(record.endReasons))")
    }
    if observer.isDeinitializing { violate("\(name) was called with a deallocating observer") }
    if object.isDeinitializing { violate("\(name) was called with a deallocating object") }
    if observer.serial != record.observerSerial || object.serial != record.observedSerial {
      violate("\(name) was called with node \(observer.serial) observing node \(object.serial)")
    }
    if kind != .setting { violate("\(name) was called with kind \(kind)") }
    // Only the first call made inside `autoObserve` is the `.initial` call: its handler may
    // mutate the object, and the registration is live by then, so later calls are changes.
    if record.isRegistering && record.options.contains(.initial) && record.initialCalls == 0 {
      record.initialCalls += 1
      let current = record.options.contains(.new) ? object.currentValue(of: record.property) : nil
      if isPrior || old != nil || new != current {
        violate("\(name) .initial call was prior=\(isPrior) \(old ?? "nil")->\(new ?? "nil")")
      }
    }
    guard !record.actionDone else { return }
    record.actionDone = true
    if record.action != .nothing { actionsPerformed += 1 }
    switch record.action {
    case .nothing:
      break
    case .mutate(let slot, let property):
      mutate(slot: slot, property)
    case .cancelSelf:
      cancel(record)
    case .cancel(let registration):
      cancel(registration: registration)
    case .release(let slot):
      release(slot: slot)
    case .register(let observer, let observed, let property, let options):
      guard let observer = slots[observer], let observed = slots[observed] else { return }
      register(observer, observed, property, options, action: .nothing)
    }
  }

  /// Called from the first statement of a node's deinit, before its registry ends anything.
  fileprivate func nodeBeganDeinit(_ node: ProgramNode) {
    actionsPerformed += 1
    for record in records where record.isActiveInModel {
      if record.observerSerial == node.serial { record.endedFor.insert(.observerDeallocated) }
      if record.observedSerial == node.serial { record.endedFor.insert(.observedDeallocated) }
    }
    switch node.deinitBehavior {
    case .nothing:
      break
    case .mutateSelf:
      set(.value, of: node)
    case .becomeObservedBy(let slot):
      guard let observer = slots[slot] else { return }
      register(observer, node, .value, [.initial, .new], action: .nothing)
    case .observe(let slot):
      guard let observed = slots[slot] else { return }
      register(node, observed, .value, [.initial, .new], action: .nothing)
    }
  }

  // MARK: Invariants

  private func violate(_ message: String) {
    violations.append("step \(currentStep): \(message)")
  }

  private func checkRegistries() {
    for node in nodes.compactMap(\.node) {
      let observers = records.filter { $0.isActiveInModel && $0.observedSerial == node.serial }
      let observing = records.filter { $0.isActiveInModel && $0.observerSerial == node.serial }
      let registry = node.observationRegistry
      if registry.observerCount != observers.count || registry.observingCount != observing.count {
        violate(
          "node \(node.serial) has observerCount \(registry.observerCount) and observingCount "
            + "\(registry.observingCount), expected \(observers.count) and \(observing.count)")
      }
    }
    for record in records {
      guard let handle = record.handle else { continue }
      let reason = handle.endReason
      let matches = reason.map { record.endedFor.contains($0) } ?? record.isActiveInModel
      if !matches {
        violate(
          "registration[\(record.index)] ended for \(reason.map { "\($0)" } ?? "nothing"), "
            + "expected \(record.isActiveInModel ? "still active" : record.endReasons)")
      }
    }
  }

  private func checkEverythingFreed() {
    if nodeTracker.liveCount != 0 { violate("\(nodeTracker.liveCount) nodes were never freed") }
    if handlerTracker.liveCount != 0 {
      violate("\(handlerTracker.liveCount) handler closures (observed-side sentinels) leaked")
    }
    for record in records { record.handle = nil }
    let leakedHandles = records.filter { $0.weakHandle != nil }.map(\.index)
    if !leakedHandles.isEmpty {
      violate("registrations \(leakedHandles) are still retained by a sentinel")
    }
  }
}

private struct WeakNode {
  weak var node: ProgramNode?
}
