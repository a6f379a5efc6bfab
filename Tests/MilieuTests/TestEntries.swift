import Milieu
import Synchronization

// Entries shared by the tests of this target.
extension EnvironmentValues {
  static let retries = Entry(3)
  var retries: Int {
    get { self[Self.retries] }
    set { self[Self.retries] = newValue }
  }

  static let greeting = Entry("Hello")
  var greeting: String {
    get { self[Self.greeting] }
    set { self[Self.greeting] = newValue }
  }

  static let ratio = Entry(0.5)
  var ratio: Double {
    get { self[Self.ratio] }
    set { self[Self.ratio] = newValue }
  }

  static let isOn = Entry(false)
  var isOn: Bool {
    get { self[Self.isOn] }
    set { self[Self.isOn] = newValue }
  }

  static let mode = Entry(Mode.fast)
  var mode: Mode {
    get { self[Self.mode] }
    set { self[Self.mode] = newValue }
  }

  static let limit = Entry<Int?>(nil)
  var limit: Int? {
    get { self[Self.limit] }
    set { self[Self.limit] = newValue }
  }

  /// Two values that the concurrency tests always write together.
  static let pairLeft = Entry(0)
  var pairLeft: Int {
    get { self[Self.pairLeft] }
    set { self[Self.pairLeft] = newValue }
  }

  static let pairRight = Entry(0)
  var pairRight: Int {
    get { self[Self.pairRight] }
    set { self[Self.pairRight] = newValue }
  }

  var requestTimeout: Int {
    get { self[RequestTimeoutKey.self] }
    set { self[RequestTimeoutKey.self] = newValue }
  }

  /// Reads two keys: explanations list both.
  var summary: String { "\(greeting) ×\(retries)" }
}

struct RequestTimeoutKey: EnvironmentKey {
  static var defaultValue: Int { 30 }
}

/// Counts how often its default is computed.
let countingDefaultCalls = Atomic<Int>(0)

struct CountingKey: EnvironmentKey {
  static var defaultValue: Int {
    countingDefaultCalls.add(1, ordering: .relaxed)
    return 7
  }
}

extension EnvironmentValues {
  var counted: Int {
    get { self[CountingKey.self] }
    set { self[CountingKey.self] = newValue }
  }
}

/// Two types that each declare an entry named `limit`: they must not collide.
enum Billing {
  static let limit = EnvironmentValues.Entry(100)
}

enum Storage {
  static let limit = EnvironmentValues.Entry(100)
}

extension EnvironmentValues {
  var billingLimit: Int {
    get { self[Billing.limit] }
    set { self[Billing.limit] = newValue }
  }
  var storageLimit: Int {
    get { self[Storage.limit] }
    set { self[Storage.limit] = newValue }
  }
}

/// A payload-free enum: one byte of plain bits.
enum Mode: Sendable, Equatable {
  case fast, careful
}
