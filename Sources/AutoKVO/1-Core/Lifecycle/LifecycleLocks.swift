/// The locks that guard registration lifecycles, one picked per registration by its address.
///
/// A registration needs a lock only for its rare teardown and for the few queries made under it
/// (the "still active?" check before each delivery is an atomic load); a fixed set of striped
/// locks avoids allocating one per registration.
/// Under one of these locks the engine takes registry locks only, never another stripe and never
/// user code, so sharing a stripe cannot deadlock.
enum LifecycleLocks {
  private static let stripes: [Lock] = (0..<64).map { _ in Lock() }

  /// Called on every registration's teardown, so it uses the address itself: `hashValue` would run
  /// SipHash just to pick a stripe. Heap addresses are 16-byte aligned, hence the shift.
  static func lock(for object: AnyObject) -> Lock {
    let address = UInt(bitPattern: ObjectIdentifier(object))
    return stripes[Int((address >> 4) & 63)]
  }
}
