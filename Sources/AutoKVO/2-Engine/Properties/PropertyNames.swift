/// Names a property for a diagnostic as its declaration reads, `Person.name`, where the key path's
/// own description would print `\Person.<computed 0x… (String)>`.
///
/// A stored property's key path describes itself by name. An `@Observed` property's key path is
/// computed (the property wrapper's accessors), so its name is found in the object's storage: the
/// key path is evaluated under a recorder, which tells the property's `ObservedPropertyIndex`,
/// and the object's stored `_name` whose `Observed` holds that index gives the name. Any other
/// computed key path has no name at run time: ``describe(_:on:)`` then falls back to the key path
/// and the caller adds what it knows of the registration.
enum PropertyNames {
  /// `Type.property` for `keyPath` on `object`, or `nil` when it cannot be named.
  static func name(of keyPath: AnyKeyPath, on object: AnyObject) -> String? {
    let description = String(describing: keyPath)
    guard description.contains("<computed") else {
      return description.hasPrefix("\\") ? String(description.dropFirst()) : description
    }
    guard let observable = object as? any KeyValueObservable else { return nil }
    let accesses = DependencyRecorder.record { (observable as Any)[keyPath: keyPath] }.accesses
    guard accesses.count == 1, accesses[0].object === object, accesses[0].keyPath.matches(keyPath),
      accesses[0].property != .none,
      let name = observedStorageName(of: accesses[0].property, in: observable)
    else { return nil }
    return "\(type(of: keyPath).rootType).\(name)"
  }

  /// The property's name if it has one, otherwise the key path as Swift describes it.
  static func describe(_ keyPath: AnyKeyPath, on object: AnyObject) -> String {
    name(of: keyPath, on: object) ?? String(describing: keyPath)
  }

  /// The name of the stored `@Observed` property of `object` that holds `property`, searched in
  /// its class and superclasses. Under the registry's lock, which guards each storage's property;
  /// reflection runs no user code there, except for a class that supplies its own mirror, which
  /// is therefore not searched.
  private static func observedStorageName(
    of property: ObservedPropertyIndex,
    in object: some KeyValueObservable
  ) -> String? {
    observedStorageLabel(in: object) { $1.property == property }.map {
      String($0.dropFirst())
    }
  }

  /// The label of the first `@Observed` property storage of `object` (`_name`), in its class and
  /// superclasses, for which `isWanted` holds; `nil` when none does. Under the registry's lock,
  /// which guards each storage's property index; reflection runs no user code there, except for a
  /// class that supplies its own mirror, which is therefore not searched.
  static func observedStorageLabel(
    in object: some KeyValueObservable,
    where isWanted: (_ label: String, _ storage: any ObservedStorage) -> Bool
  ) -> String? {
    guard !(object is any CustomReflectable) else { return nil }
    return object.observationRegistry.withPropertyLock {
      var mirror: Mirror? = Mirror(reflecting: object)
      while let current = mirror {
        for child in current.children {
          if let label = child.label, label.hasPrefix("_"),
            let storage = child.value as? any ObservedStorage, isWanted(label, storage)
          {
            return label
          }
        }
        mirror = current.superclassMirror
      }
      return nil
    }
  }
}

/// The storage of an `@Observed` or `@ObservedWeak` property, as its getter's recording branch
/// and reflection know it: by the property's identity in its object.
@usableFromInline
protocol ObservedStorage {
  /// The storage's ``ObservedPropertyIndex``; read and written under the registry's lock.
  var property: ObservedPropertyIndex { get set }
}

extension ObservationDiagnostics {
  /// Reports ``ObservationDiagnostic/Kind/keyPathNeverNotifies`` for a registration by
  /// `observerType` of `keyPath` (to a `valueType`) of `object`: one message for every kind of
  /// registration, which names the call, the types and the property, and then says, in `reason`,
  /// what the key path reads and what AutoKVO did.
  static func reportKeyPathNeverNotifies(
    keyPath: AnyKeyPath,
    of object: AnyObject,
    objectType: Any.Type,
    by observerType: Any.Type,
    valueType: Any.Type,
    site: RegistrationSite?,
    reason: String
  ) {
    let named = PropertyNames.name(of: keyPath, on: object).map { " \($0)" }
    report(
      .keyPathNeverNotifies,
      "\(site.openingOfCallName)\(named ?? "")) of \(objectType) by \(observerType)"
        + site.diagnosticSuffix
        + (named == nil ? ", a key path to a \(valueType) AutoKVO cannot name," : "")
        + " " + reason
    )
  }
}
