import Testing

@testable import AutoKVO

@Suite("Refused registrations: an already-ended handle, never a crash")
struct RefusedRegistrationTests {
  @Test("A refused registration's handle is cancelled, and cancelling it again is harmless")
  func refusedHandle() {
    let observation = KeyValueObservation.refused()
    #expect(observation.isCancelled)
    #expect(observation.endReason == .cancelled)
    observation.cancel()
    #expect(observation.endReason == .cancelled)
  }
}
