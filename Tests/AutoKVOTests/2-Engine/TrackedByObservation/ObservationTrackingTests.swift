import AutoKVO
import Foundation
// The willSet/didSet form of `withObservationTracking` is SPI for SwiftUI, which tracks with it.
@_spi(SwiftUI) import Observation
import Testing

@testable import AutoKVO

/// After the scenarios of Swift's own Observation tests (`test/stdlib/Observation/Observable.swift`),
/// played on AutoKVO models that conform to `Observable` and declare nothing else.
@Suite("Swift Observation: reads of @Observed properties of a conforming class are tracked")
struct ObservationTrackingTests {
  @Test("A tracked property's set fires onChange once; a later set, with no new tracking, never")
  func trackedSetFiresOnce() {
    let contact = Contact()
    let log = TrackingLog()
    track(log, { _ = contact.firstName }, entry: { "changed" })
    contact.firstName = "Bo"
    #expect(log.all == ["changed"])
    contact.firstName = "Cy"
    #expect(log.all == ["changed"])
  }

  @Test("Sets nobody tracks change the value and fire nothing")
  func untrackedSets() {
    let contact = Contact()
    for index in 0..<100 { contact.firstName = "\(index)" }
    #expect(contact.firstName == "99")
    let log = TrackingLog()
    track(log, { _ = contact.lastName }, entry: { "changed" })
    contact.firstName = "Bo"
    #expect(log.count == 0)
  }

  @Test("onChange runs before the value is stored, on the mutating thread: it reads the old value")
  func onChangeReadsOldValue() {
    let contact = Contact()
    let log = TrackingLog()
    let mutatingThread = Box<Thread>()
    mutatingThread.value = Thread.current
    track(
      log, { _ = contact.firstName },
      entry: {
        "\(contact.firstName) on mutating thread: \(Thread.current === mutatingThread.value)"
      })
    contact.firstName = "Bo"
    #expect(log.all == ["Ann on mutating thread: true"])
    #expect(contact.firstName == "Bo")
  }

  @Test("willSet and didSet trackings see the old and the new value")
  func willSetAndDidSet() {
    let contact = Contact()
    let log = TrackingLog()
    withObservationTracking {
      _ = contact.firstName
    } willSet: { _ in
      log.record("willSet \(contact.firstName)")
    } didSet: { tracking in
      log.record("didSet \(contact.firstName)")
      // This form stays armed until cancelled, as SwiftUI cancels it: left armed, its closures
      // would keep the model alive through the model's own registrar.
      tracking.cancel()
    }
    contact.firstName = "Bo"
    #expect(log.all == ["willSet Ann", "didSet Bo"])
    contact.firstName = "Cy"
    #expect(log.all == ["willSet Ann", "didSet Bo"])
  }

  @Test("A computed property is tracked through the @Observed properties it reads")
  func computedProperty() {
    let contact = Contact()
    let log = TrackingLog()
    track(log, { _ = contact.fullName }, entry: { "fullName" })
    contact.lastName = "Kim"
    #expect(log.all == ["fullName"])
    contact.firstName = "Bo"
    #expect(log.all == ["fullName"])
  }

  @Test("A read through another object tracks that object's property, not the first one's")
  func graphOfObjects() {
    let contact = Contact()
    let friend = Contact(firstName: "Dee")
    contact.friends = [friend]
    let log = TrackingLog()
    track(log, { _ = contact.friends.first?.fullName }, entry: { "graph" })
    contact.lastName = "Kim"
    #expect(log.count == 0)
    friend.lastName = "Kim"
    #expect(log.all == ["graph"])
  }

  @Test("Nested trackings both fire, once each")
  func nestedTrackings() {
    let contact = Contact()
    let log = TrackingLog()
    withObservationTracking {
      track(log, { _ = contact.firstName }, entry: { "inner" })
    } onChange: {
      log.record("outer")
    }
    contact.firstName = "Bo"
    #expect(log.all.sorted() == ["inner", "outer"])
    contact.firstName = "Cy"
    #expect(log.count == 2)
  }

  @Test("A plain stored property is not tracked, as with @ObservationIgnored")
  func plainPropertyIgnored() {
    let contact = Contact()
    let log = TrackingLog()
    track(log, { _ = contact.nickname }, entry: { "nickname" })
    contact.nickname = "B"
    contact.firstName = "Bo"
    #expect(log.count == 0)
    track(log, { _ = (contact.nickname, contact.lastName) }, entry: { "both" })
    contact.nickname = "C"
    #expect(log.count == 0)
    contact.lastName = "Kim"
    #expect(log.all == ["both"])
  }

  @Test("Inherited @Observed properties are tracked through a subclass, and its own too")
  func inheritedProperties() {
    let truck = Truck()
    let log = TrackingLog()
    track(log, { _ = truck.wheels }, entry: { "wheels \(truck.wheels)" })
    track(log, { _ = truck.load }, entry: { "load \(truck.load)" })
    truck.wheels = 6
    truck.load = 9
    #expect(log.all == ["wheels 4", "load 0"])
    let vehicle: Vehicle = Truck()
    track(log, { _ = vehicle.wheels }, entry: { "vehicle" })
    vehicle.wheels = 8
    #expect(log.all == ["wheels 4", "load 0", "vehicle"])
  }

  @Test("A class that conforms to Observable in an extension is tracked")
  func conformanceInExtension() {
    let lamp = Lamp()
    let log = TrackingLog()
    track(log, { _ = lamp.isOn }, entry: { "isOn \(lamp.isOn)" })
    lamp.isOn = true
    #expect(log.all == ["isOn false"])
  }

  @Test("A class that does not conform to Observable is not tracked, and gets no registrar")
  func nonConformingClassPaysNothing() {
    let person = Person()
    let log = TrackingLog()
    track(log, { _ = person.name }, entry: { "name" })
    person.name = "Bob"
    #expect(log.count == 0)
    #expect(!person.observationRegistry.isTrackedBySwiftObservation)
    let contact = Contact()
    #expect(!contact.observationRegistry.isTrackedBySwiftObservation)
    contact.firstName = "Bo"
    #expect(!contact.observationRegistry.isTrackedBySwiftObservation)
    _ = contact.firstName
    #expect(contact.observationRegistry.isTrackedBySwiftObservation)
  }
}
