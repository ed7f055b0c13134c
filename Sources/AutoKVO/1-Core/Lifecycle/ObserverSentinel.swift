/// The observer's half of a registration: the observer's registry holds it, and its only job is
/// to end the registration when the observer is deallocated.
///
/// Its partner is the ``ObservedSentinel`` that the observed object's registry owns. A value,
/// stored in the registry's list, rather than an object: it needs no identity (the registry finds
/// it by its registration) and no behaviour, and a heap block per registration would be an
/// allocation that buys nothing.
struct ObserverSentinel {
  /// The registration; the observer's registry holds it strongly through this sentinel.
  let observation: KeyValueObservation
}
