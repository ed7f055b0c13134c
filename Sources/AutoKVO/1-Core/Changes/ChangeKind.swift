/// What kind of mutation a notification reports.
///
/// The raw values match Foundation's `NSKeyValueChange`. `ChangeKind` is `Sendable`.
public enum ChangeKind: UInt, Sendable, Hashable {
  /// The whole value was set (or, for `.initial`, read).
  case setting = 1
  /// Elements were inserted into a collection; ``KeyValueChange/indexes`` says where.
  case insertion = 2
  /// Elements were removed from a collection; ``KeyValueChange/indexes`` says where they were.
  case removal = 3
  /// Elements of a collection were replaced; ``KeyValueChange/indexes`` says which.
  case replacement = 4
}
