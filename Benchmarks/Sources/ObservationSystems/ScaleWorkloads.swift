import AutoKVO

/// Registrations among many observed properties of one object, and beside many registrations on
/// another property of it: what registering, ending a registration and the first set after either
/// cost, which must not grow with the number of the object's other properties or registrations.
extension AutoKVOSystem {
  /// A model with 200 `@Observed` properties.
  public final class WideModel: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @Observed public var p0 = 0.0
    @Observed public var p1 = 0.0
    @Observed public var p2 = 0.0
    @Observed public var p3 = 0.0
    @Observed public var p4 = 0.0
    @Observed public var p5 = 0.0
    @Observed public var p6 = 0.0
    @Observed public var p7 = 0.0
    @Observed public var p8 = 0.0
    @Observed public var p9 = 0.0
    @Observed public var p10 = 0.0
    @Observed public var p11 = 0.0
    @Observed public var p12 = 0.0
    @Observed public var p13 = 0.0
    @Observed public var p14 = 0.0
    @Observed public var p15 = 0.0
    @Observed public var p16 = 0.0
    @Observed public var p17 = 0.0
    @Observed public var p18 = 0.0
    @Observed public var p19 = 0.0
    @Observed public var p20 = 0.0
    @Observed public var p21 = 0.0
    @Observed public var p22 = 0.0
    @Observed public var p23 = 0.0
    @Observed public var p24 = 0.0
    @Observed public var p25 = 0.0
    @Observed public var p26 = 0.0
    @Observed public var p27 = 0.0
    @Observed public var p28 = 0.0
    @Observed public var p29 = 0.0
    @Observed public var p30 = 0.0
    @Observed public var p31 = 0.0
    @Observed public var p32 = 0.0
    @Observed public var p33 = 0.0
    @Observed public var p34 = 0.0
    @Observed public var p35 = 0.0
    @Observed public var p36 = 0.0
    @Observed public var p37 = 0.0
    @Observed public var p38 = 0.0
    @Observed public var p39 = 0.0
    @Observed public var p40 = 0.0
    @Observed public var p41 = 0.0
    @Observed public var p42 = 0.0
    @Observed public var p43 = 0.0
    @Observed public var p44 = 0.0
    @Observed public var p45 = 0.0
    @Observed public var p46 = 0.0
    @Observed public var p47 = 0.0
    @Observed public var p48 = 0.0
    @Observed public var p49 = 0.0
    @Observed public var p50 = 0.0
    @Observed public var p51 = 0.0
    @Observed public var p52 = 0.0
    @Observed public var p53 = 0.0
    @Observed public var p54 = 0.0
    @Observed public var p55 = 0.0
    @Observed public var p56 = 0.0
    @Observed public var p57 = 0.0
    @Observed public var p58 = 0.0
    @Observed public var p59 = 0.0
    @Observed public var p60 = 0.0
    @Observed public var p61 = 0.0
    @Observed public var p62 = 0.0
    @Observed public var p63 = 0.0
    @Observed public var p64 = 0.0
    @Observed public var p65 = 0.0
    @Observed public var p66 = 0.0
    @Observed public var p67 = 0.0
    @Observed public var p68 = 0.0
    @Observed public var p69 = 0.0
    @Observed public var p70 = 0.0
    @Observed public var p71 = 0.0
    @Observed public var p72 = 0.0
    @Observed public var p73 = 0.0
    @Observed public var p74 = 0.0
    @Observed public var p75 = 0.0
    @Observed public var p76 = 0.0
    @Observed public var p77 = 0.0
    @Observed public var p78 = 0.0
    @Observed public var p79 = 0.0
    @Observed public var p80 = 0.0
    @Observed public var p81 = 0.0
    @Observed public var p82 = 0.0
    @Observed public var p83 = 0.0
    @Observed public var p84 = 0.0
    @Observed public var p85 = 0.0
    @Observed public var p86 = 0.0
    @Observed public var p87 = 0.0
    @Observed public var p88 = 0.0
    @Observed public var p89 = 0.0
    @Observed public var p90 = 0.0
    @Observed public var p91 = 0.0
    @Observed public var p92 = 0.0
    @Observed public var p93 = 0.0
    @Observed public var p94 = 0.0
    @Observed public var p95 = 0.0
    @Observed public var p96 = 0.0
    @Observed public var p97 = 0.0
    @Observed public var p98 = 0.0
    @Observed public var p99 = 0.0
    @Observed public var p100 = 0.0
    @Observed public var p101 = 0.0
    @Observed public var p102 = 0.0
    @Observed public var p103 = 0.0
    @Observed public var p104 = 0.0
    @Observed public var p105 = 0.0
    @Observed public var p106 = 0.0
    @Observed public var p107 = 0.0
    @Observed public var p108 = 0.0
    @Observed public var p109 = 0.0
    @Observed public var p110 = 0.0
    @Observed public var p111 = 0.0
    @Observed public var p112 = 0.0
    @Observed public var p113 = 0.0
    @Observed public var p114 = 0.0
    @Observed public var p115 = 0.0
    @Observed public var p116 = 0.0
    @Observed public var p117 = 0.0
    @Observed public var p118 = 0.0
    @Observed public var p119 = 0.0
    @Observed public var p120 = 0.0
    @Observed public var p121 = 0.0
    @Observed public var p122 = 0.0
    @Observed public var p123 = 0.0
    @Observed public var p124 = 0.0
    @Observed public var p125 = 0.0
    @Observed public var p126 = 0.0
    @Observed public var p127 = 0.0
    @Observed public var p128 = 0.0
    @Observed public var p129 = 0.0
    @Observed public var p130 = 0.0
    @Observed public var p131 = 0.0
    @Observed public var p132 = 0.0
    @Observed public var p133 = 0.0
    @Observed public var p134 = 0.0
    @Observed public var p135 = 0.0
    @Observed public var p136 = 0.0
    @Observed public var p137 = 0.0
    @Observed public var p138 = 0.0
    @Observed public var p139 = 0.0
    @Observed public var p140 = 0.0
    @Observed public var p141 = 0.0
    @Observed public var p142 = 0.0
    @Observed public var p143 = 0.0
    @Observed public var p144 = 0.0
    @Observed public var p145 = 0.0
    @Observed public var p146 = 0.0
    @Observed public var p147 = 0.0
    @Observed public var p148 = 0.0
    @Observed public var p149 = 0.0
    @Observed public var p150 = 0.0
    @Observed public var p151 = 0.0
    @Observed public var p152 = 0.0
    @Observed public var p153 = 0.0
    @Observed public var p154 = 0.0
    @Observed public var p155 = 0.0
    @Observed public var p156 = 0.0
    @Observed public var p157 = 0.0
    @Observed public var p158 = 0.0
    @Observed public var p159 = 0.0
    @Observed public var p160 = 0.0
    @Observed public var p161 = 0.0
    @Observed public var p162 = 0.0
    @Observed public var p163 = 0.0
    @Observed public var p164 = 0.0
    @Observed public var p165 = 0.0
    @Observed public var p166 = 0.0
    @Observed public var p167 = 0.0
    @Observed public var p168 = 0.0
    @Observed public var p169 = 0.0
    @Observed public var p170 = 0.0
    @Observed public var p171 = 0.0
    @Observed public var p172 = 0.0
    @Observed public var p173 = 0.0
    @Observed public var p174 = 0.0
    @Observed public var p175 = 0.0
    @Observed public var p176 = 0.0
    @Observed public var p177 = 0.0
    @Observed public var p178 = 0.0
    @Observed public var p179 = 0.0
    @Observed public var p180 = 0.0
    @Observed public var p181 = 0.0
    @Observed public var p182 = 0.0
    @Observed public var p183 = 0.0
    @Observed public var p184 = 0.0
    @Observed public var p185 = 0.0
    @Observed public var p186 = 0.0
    @Observed public var p187 = 0.0
    @Observed public var p188 = 0.0
    @Observed public var p189 = 0.0
    @Observed public var p190 = 0.0
    @Observed public var p191 = 0.0
    @Observed public var p192 = 0.0
    @Observed public var p193 = 0.0
    @Observed public var p194 = 0.0
    @Observed public var p195 = 0.0
    @Observed public var p196 = 0.0
    @Observed public var p197 = 0.0
    @Observed public var p198 = 0.0
    @Observed public var p199 = 0.0

    public init() {}

    /// The key path of each property, in declaration order.
    static var keyPaths: [ReferenceWritableKeyPath<WideModel, Double>] {
      [
        \.p0, \.p1, \.p2, \.p3, \.p4, \.p5, \.p6, \.p7, \.p8, \.p9, \.p10, \.p11, \.p12, \.p13,
        \.p14, \.p15, \.p16, \.p17, \.p18, \.p19, \.p20, \.p21, \.p22, \.p23, \.p24, \.p25, \.p26,
        \.p27, \.p28, \.p29, \.p30, \.p31, \.p32, \.p33, \.p34, \.p35, \.p36, \.p37, \.p38, \.p39,
        \.p40, \.p41, \.p42, \.p43, \.p44, \.p45, \.p46, \.p47, \.p48, \.p49, \.p50, \.p51, \.p52,
        \.p53, \.p54, \.p55, \.p56, \.p57, \.p58, \.p59, \.p60, \.p61, \.p62, \.p63, \.p64, \.p65,
        \.p66, \.p67, \.p68, \.p69, \.p70, \.p71, \.p72, \.p73, \.p74, \.p75, \.p76, \.p77, \.p78,
        \.p79, \.p80, \.p81, \.p82, \.p83, \.p84, \.p85, \.p86, \.p87, \.p88, \.p89, \.p90, \.p91,
        \.p92, \.p93, \.p94, \.p95, \.p96, \.p97, \.p98, \.p99, \.p100, \.p101, \.p102, \.p103,
        \.p104, \.p105, \.p106, \.p107, \.p108, \.p109, \.p110, \.p111, \.p112, \.p113, \.p114,
        \.p115, \.p116, \.p117, \.p118, \.p119, \.p120, \.p121, \.p122, \.p123, \.p124, \.p125,
        \.p126, \.p127, \.p128, \.p129, \.p130, \.p131, \.p132, \.p133, \.p134, \.p135, \.p136,
        \.p137, \.p138, \.p139, \.p140, \.p141, \.p142, \.p143, \.p144, \.p145, \.p146, \.p147,
        \.p148, \.p149, \.p150, \.p151, \.p152, \.p153, \.p154, \.p155, \.p156, \.p157, \.p158,
        \.p159, \.p160, \.p161, \.p162, \.p163, \.p164, \.p165, \.p166, \.p167, \.p168, \.p169,
        \.p170, \.p171, \.p172, \.p173, \.p174, \.p175, \.p176, \.p177, \.p178, \.p179, \.p180,
        \.p181, \.p182, \.p183, \.p184, \.p185, \.p186, \.p187, \.p188, \.p189, \.p190, \.p191,
        \.p192, \.p193, \.p194, \.p195, \.p196, \.p197, \.p198, \.p199,
      ]
    }
  }

  @inline(never)
  @discardableResult
  static func observe(
    _ model: WideModel, _ keyPath: ReferenceWritableKeyPath<WideModel, Double>,
    by observer: Observer
  ) -> KeyValueObservation {
    observer.autoObserve(model, keyPath: keyPath, options: [.old, .new]) { observer, _, change in
      observer.total &+= Int(change.oldValue! + change.newValue!)
    }
  }

  @inline(never)
  static func set(
    _ value: Double, at keyPath: ReferenceWritableKeyPath<WideModel, Double>, of model: WideModel
  ) {
    model[keyPath: keyPath] = value
  }

  /// Registering on the last of `properties` observed properties of one object, each observed
  /// once, then ending it (`cancel()`), with or without a set between: the set is the first after
  /// the registration, which builds the property's list of registrations.
  static func workloadsAmongProperties(_ properties: Int) -> [Workload] {
    func body(setting: Bool) -> Workload.Body {
      .repeated {
        let model = WideModel()
        let observers = (0..<properties).map { _ in Observer() }
        for (observer, keyPath) in zip(observers, WideModel.keyPaths) {
          observe(model, keyPath, by: observer)
        }
        let keyPath = WideModel.keyPaths[properties - 1]
        // Every property's list built once, as an app's sets build them.
        for keyPath in WideModel.keyPaths.prefix(properties) { set(1, at: keyPath, of: model) }
        let observer = Observer()
        return { n in
          withExtendedLifetime(observers) {
            for i in 0..<n {
              let observation = observe(model, keyPath, by: observer)
              if setting { set(Double(i), at: keyPath, of: model) }
              observation.cancel()
            }
          }
        }
      }
    }
    let among =
      properties == 1
      ? "on its one observed property" : "on one of \(properties) observed properties"
    return [
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "cancel(), \(among)",
        body: body(setting: false)),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "set, cancel(), \(among)",
        body: body(setting: true)),
    ]
  }

  /// A set of a property that `observers` observe, with or without one more registration made
  /// before it and ended after it (`label` spells `observers`): the difference is what a
  /// registration's beginning and end cost the set, which must not grow with `observers`. Not in
  /// the budget: each set delivers to every observer.
  static func workloadsAmongObserversOfTheProperty(_ observers: Int, label: String) -> [Workload] {
    func body(registering: Bool) -> Workload.Body {
      .repeated {
        let model = WideModel()
        let others = (0..<observers).map { _ in Observer() }
        for observer in others { observe(model, \.p0, by: observer) }
        set(1, at: \.p0, of: model)
        let observer = Observer()
        return { n in
          withExtendedLifetime(others) {
            for i in 0..<n {
              let observation = registering ? observe(model, \.p0, by: observer) : nil
              set(Double(i), at: \.p0, of: model)
              observation?.cancel()
            }
          }
        }
      }
    }
    let among = "among \(label) observers of the property"
    return [
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "set, \(among)", body: body(registering: false)
      ),
      Workload(
        .registrationAndTeardown, .autoKVO, variant: "register, set, cancel(), \(among)",
        body: body(registering: true)),
    ]
  }

  /// Registering on one property of an object and setting it, then ending the registration,
  /// beside `others` registrations on another property of the same object (`label` spells
  /// `others`): the set builds the property's list, which must not grow with `others`.
  static func workloadsBesideRegistrations(_ others: Int, label: String) -> [Workload] {
    [
      Workload(
        .registrationAndTeardown, .autoKVO,
        variant: "set, cancel(), beside \(label) registrations on another property",
        body: .repeated {
          let model = WideModel()
          let observers = (0..<others).map { _ in Observer() }
          for observer in observers { observe(model, \.p1, by: observer) }
          set(1, at: \.p0, of: model)
          set(1, at: \.p1, of: model)
          let observer = Observer()
          return { n in
            withExtendedLifetime(observers) {
              for i in 0..<n {
                let observation = observe(model, \.p0, by: observer)
                set(Double(i), at: \.p0, of: model)
                observation.cancel()
              }
            }
          }
        })
    ]
  }
}
