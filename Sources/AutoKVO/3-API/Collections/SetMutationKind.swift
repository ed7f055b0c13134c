/// How a set-valued property changes, for manual set notifications; the same four mutations as
/// Foundation's `NSKeyValueSetMutationKind`.
///
/// Each maps to the ``ChangeKind`` and values observers receive:
///
/// | mutation | kind | old value | new value |
/// | --- | --- | --- | --- |
/// | ``union`` | ``ChangeKind/insertion`` | — | the members added |
/// | ``minus`` | ``ChangeKind/removal`` | the members removed | — |
/// | ``intersect`` | ``ChangeKind/removal`` | the members removed | — |
/// | ``set`` | ``ChangeKind/replacement`` | the members removed | the members added |
///
/// `SetMutationKind` is `Sendable`.
public enum SetMutationKind: Sendable, Hashable {
  /// The given members are added (`formUnion`).
  case union
  /// The given members are removed (`subtract`).
  case minus
  /// Every member not among the given ones is removed (`formIntersection`).
  case intersect
  /// The set is replaced by the given members.
  case set
}
