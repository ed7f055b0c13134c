import AutoKVO
import Foundation

/// A base class with an `@Observed` size, as a newcomer writes one.
// @unchecked Sendable: each test's shapes are used from one thread at a time.
class Shape: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var size = 1
}

/// Overrides `size` with a computed property that scales what the base stores.
final class ScaledShape: Shape, @unchecked Sendable {
  override var size: Int {
    get { super.size * 10 }
    set { super.size = newValue / 10 }
  }
}
