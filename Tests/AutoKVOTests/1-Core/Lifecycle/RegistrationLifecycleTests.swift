import Testing

@testable import AutoKVO

@Suite("Registration lifecycle: one end per registration, stored in one word")
struct RegistrationLifecycleTests {
  @Test("Only the first end returns a teardown action; later ends do nothing")
  func firstEndWins() {
    var lifecycle = RegistrationLifecycle()
    #expect(lifecycle.end(.observerDeallocated) == .detachObservedSide)
    #expect(lifecycle.end(.cancelled) == .none)
    #expect(lifecycle.end(.observedDeallocated) == .none)
    #expect(lifecycle.state == .ended(.observerDeallocated))
  }

  @Test(
    "The word form keeps the state, and only the active state reads as active",
    arguments: [
      RegistrationLifecycle.State.active, .ended(.cancelled), .ended(.observerDeallocated),
      .ended(.observedDeallocated),
    ])
  func wordRoundTrip(state: RegistrationLifecycle.State) {
    var lifecycle = RegistrationLifecycle()
    if case .ended(let reason) = state { _ = lifecycle.end(reason) }
    let restored = RegistrationLifecycle(word: lifecycle.word)
    #expect(restored.state == state)
    #expect((lifecycle.word == RegistrationLifecycle.activeWord) == (state == .active))
  }

  @Test("A new handle reads as active, a refused one as ended, also under its own lock")
  func handleActivity() {
    let observation = KeyValueObservation()
    #expect(observation.withLock { observation.isActive })
    #expect(observation.endReason == nil)
    let refused = KeyValueObservation.refused()
    #expect(refused.withLock { !refused.isActive })
  }
}
