// Which registrations each `@Observed` property's sets concern, kept as registrations join and
// leave, so that building a property's snapshot after a change costs the same whatever the number
// of the object's other registrations and properties.

/// The registrations one property's sets concern, as its record knows them (see
/// ``ObservedProperty/concerned``). Guarded by the registry's lock.
enum PropertyRegistrations {
  /// Not known: the next snapshot is built by filtering the registry's whole list, which tells
  /// which of the two other cases holds.
  case unknown
  /// Every registration in the registry's list: the snapshot shares the list's storage, and
  /// those that must be told before a set are the registry's count of them
  /// (``RegistryState/everyRegistration``).
  case everyRegistration
  /// These registrations only, in registration order.
  case only(PropertyRegistrationList)
}

/// The registrations a property's sets concern when they are not all of its registry's: a list
/// of its own, in registration order, which its snapshot shares. A reference, so that a property
/// concerned by every registration, the usual case, keeps one word for it. Guarded by the
/// registry's lock.
final class PropertyRegistrationList {
  var sentinels: IncomingSentinels
  /// How many of `sentinels` must be told before a set.
  var needingNotice: Int

  init(sentinels: IncomingSentinels, needingNotice: Int) {
    self.sentinels = sentinels
    self.needingNotice = needingNotice
  }
}

extension ObservedSentinel {
  /// 1 when the sentinel must be told before a set, 0 otherwise: what it adds to a count of
  /// those.
  var noticeWeight: Int {
    needsNoticeBeforeSet ? 1 : 0
  }
}

extension ObservedProperty {
  /// Whether the record knows anything a registration joining the registry's list must update:
  /// a snapshot, or which registrations concern it.
  var followsJoiningRegistrations: Bool {
    if setTargets.snapshot != nil { return true }
    if case .unknown = concerned { return false }
    return true
  }

  /// Whether the record holds anything a registration leaving the registry's list must update: a
  /// snapshot, or a list of its own. One that every registration concerns still does after the
  /// removal, and its count is the registry's.
  var followsLeavingRegistrations: Bool {
    if setTargets.snapshot != nil { return true }
    if case .only = concerned { return true }
    return false
  }

  /// `sentinel`, which triggers the property, is about to join the registry's list.
  mutating func registrationWillJoin(_ sentinel: any ObservedSentinel) {
    dropSnapshot()
    if case .only(let list) = concerned {
      list.sentinels.append(sentinel)
      list.needingNotice += sentinel.noticeWeight
    }
  }

  /// `sentinel`, of `observation`, which triggers the property, is about to leave the registry's
  /// list.
  mutating func registrationWillLeave(
    _ sentinel: any ObservedSentinel, of observation: KeyValueObservation
  ) {
    dropSnapshot()
    if case .only(let list) = concerned,
      list.sentinels.remove(sentinelOf: observation) != nil
    {
      list.needingNotice -= sentinel.noticeWeight
    }
  }

  /// A sentinel joins the registry's list that does not trigger the property: a property that
  /// every registration concerned keeps the list it concerned, `incoming`, and the registry's
  /// count of registrations to tell before a set, `needingNotice`. Its snapshot shares that list
  /// and stays valid. Returns whether it was concerned by every registration.
  mutating func registrationThatDoesNotConcernItWillJoin(
    _ incoming: IncomingSentinels, needingNotice: Int
  ) -> Bool {
    guard case .everyRegistration = concerned else { return false }
    concerned = .only(PropertyRegistrationList(sentinels: incoming, needingNotice: needingNotice))
    return true
  }

  /// What triggers a sentinel is changing: the property filters the registry's list again.
  /// Returns whether it was concerned by every registration.
  mutating func triggersChanged() -> Bool {
    dropSnapshot()
    defer { concerned = .unknown }
    if case .everyRegistration = concerned { return true }
    return false
  }
}

extension RegistryState {
  /// Which records a sentinel triggers, as ``triggeredProperties(of:)`` finds them.
  enum TriggeredProperties {
    case none
    case one(at: Int)
    /// Each record must be asked (``ObservedSentinel/isTriggered(by:)``).
    case askEach
  }

  /// Which records `sentinel` triggers. One triggered by its primary key path only (nearly all)
  /// triggers the record of its property alone, which is found by identity first
  /// (``position(ofPropertyIdenticalTo:)``): a registration's primary key path is the instance the
  /// property's getter reported, which the record keeps, so that no key path is compared in full.
  /// Only when no record is that instance are key paths compared.
  func triggeredProperties(of sentinel: any ObservedSentinel) -> TriggeredProperties {
    guard sentinel.isTriggeredByPrimaryKeyPathOnly else { return .askEach }
    guard let primary = sentinel.primaryKeyPath else { return .none }
    if let position = position(ofPropertyIdenticalTo: primary)
      ?? properties.firstPosition(where: { $0.keyPath == primary })
    {
      return .one(at: position)
    }
    return .none
  }

  /// Updates the records for `sentinel`, about to be appended to ``incoming``: the properties it
  /// triggers count it and drop their snapshots (one that shares the list's storage would make
  /// the append copy the whole list); a property that every registration concerned and that it
  /// does not trigger keeps the list it concerned. Nothing to do while no record knows anything
  /// of the list (``ObservedProperty/followsJoiningRegistrations``).
  mutating func registrationWillJoin(_ sentinel: any ObservedSentinel) {
    defer {
      if everyRegistration != nil { everyRegistration!.needingNotice += sentinel.noticeWeight }
    }
    guard properties.contains(where: { $0.followsJoiningRegistrations }) else { return }
    let triggered = triggeredProperties(of: sentinel)
    if everyRegistration == nil {
      // No record to convert: only the triggered ones change, usually one, found without a look
      // at the others.
      switch triggered {
      case .none: return
      case .one(let position): return properties[position].registrationWillJoin(sentinel)
      case .askEach: break
      }
    }
    let incoming = incoming
    let needingNotice = everyRegistration?.needingNotice ?? 0
    var position = 0
    var converted = 0
    properties.updateEach { property in
      let isTriggered: Bool
      switch triggered {
      case .none: isTriggered = false
      case .one(let triggeredPosition): isTriggered = position == triggeredPosition
      case .askEach: isTriggered = sentinel.isTriggered(by: property.keyPath)
      }
      if isTriggered {
        property.registrationWillJoin(sentinel)
      } else if property.registrationThatDoesNotConcernItWillJoin(
        incoming, needingNotice: needingNotice)
      {
        converted += 1
      }
      position += 1
    }
    forget(recordsConcernedByEveryRegistration: converted)
  }

  /// Takes `count` records out of ``everyRegistration``'s.
  private mutating func forget(recordsConcernedByEveryRegistration count: Int) {
    guard count > 0, let counted = everyRegistration else { return }
    everyRegistration =
      counted.records == count
      ? nil
      : EveryRegistrationCount(
        records: counted.records - count, needingNotice: counted.needingNotice)
  }

  /// Updates the records for `sentinel`, of `observation`, about to be removed from
  /// ``incoming``: the properties it triggers forget it and drop their snapshots, so that the
  /// removal does not copy a list a snapshot shares. The caller skips it while no record holds
  /// anything to update (``ObservedProperty/followsLeavingRegistrations``), and counts the
  /// removal in ``everyRegistration``.
  mutating func registrationWillLeave(
    _ sentinel: any ObservedSentinel, of observation: KeyValueObservation
  ) {
    switch triggeredProperties(of: sentinel) {
    case .none: break
    case .one(let position):
      properties[position].registrationWillLeave(sentinel, of: observation)
    case .askEach:
      properties.updateEach { property in
        if sentinel.isTriggered(by: property.keyPath) {
          property.registrationWillLeave(sentinel, of: observation)
        }
      }
    }
  }

  /// Makes the properties `sentinel` triggers filter the registry's list again: called before
  /// and after its triggers change, so that both the properties it stopped and the ones it
  /// started being triggered by are rebuilt.
  mutating func triggersWillChangeOrChanged(of sentinel: any ObservedSentinel) {
    var forgotten = 0
    properties.updateEach { property in
      if sentinel.isTriggered(by: property.keyPath), property.triggersChanged() { forgotten += 1 }
    }
    forget(recordsConcernedByEveryRegistration: forgotten)
  }
}
