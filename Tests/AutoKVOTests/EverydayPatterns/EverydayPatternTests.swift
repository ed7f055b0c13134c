import Foundation
import Testing

@testable import AutoKVO

// Code users write on their first day, one pattern per test, each named as a sentence about what
// it does.

@Suite("Everyday patterns: overrides")
struct OverridePatternTests {
  @Test("Observing an overridden property through the subclass delivers what the override reads")
  func subclassKeyPathThroughOverride() {
    let shape = ScaledShape()
    let watcher = Watcher()
    watcher.autoObserve(shape, keyPath: \.size, options: [.old, .new]) { w, _, change in
      w.record(describe(change))
    }
    shape.size = 50
    shape.size = 70
    #expect(watcher.log == ["setting 10->50", "setting 50->70"])
  }

  @Test(
    "Observing the base class's key path on an instance whose class overrides it delivers what the override reads"
  )
  func baseKeyPathOnOverridingInstance() {
    let shape: Shape = ScaledShape()
    let watcher = Watcher()
    watcher.autoObserve(shape, keyPath: \Shape.size, options: [.old, .new, .prior]) {
      w, _, change in
      w.record(change.isPrior ? "prior \(change.oldValue!)" : describe(change))
    }
    shape.size = 50
    #expect(watcher.log == ["prior 10", "setting 10->50"])
  }

  @Test("A subclass that does not override an inherited @Observed property delivers the stored values")
  func inheritedWithoutOverride() {
    let employee = Employee()
    let watcher = Watcher()
    watcher.autoObserve(employee, keyPath: \.name, options: [.old, .new]) { w, _, change in
      w.record(describe(change))
    }
    employee.name = "Ann"
    #expect(watcher.log == ["setting Base->Ann"])
  }
}
