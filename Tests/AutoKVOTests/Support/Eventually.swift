import Foundation

/// Waits until `condition` holds, polling, for at most `seconds`; answers whether it held.
///
/// A test that waits for an asynchronous delivery uses this instead of an open-ended loop, so that
/// a delivery that never comes fails the test instead of stalling the whole run.
func eventually(
  within seconds: Double = 60,
  isolation: isolated (any Actor)? = #isolation,
  _ condition: () async -> Bool
) async -> Bool {
  let deadline = Date(timeIntervalSinceNow: seconds)
  while Date() < deadline {
    if await condition() { return true }
    try? await Task.sleep(nanoseconds: 1_000_000)
  }
  return await condition()
}
