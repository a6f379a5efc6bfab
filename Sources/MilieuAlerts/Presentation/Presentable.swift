/// Something a ``PresentationHost`` shows one at a time: an alert, a toast, a sheet.
///
/// A host is generic over its item: ``AlertHost`` presents ``AlertData`` and ``ToastHost``
/// presents ``Toast``. An item says how to answer it (its ``Answer``), which action an answer
/// runs, and whether it expires on its own.
///
/// ```swift
/// struct Banner: Presentable {
///   let id = PresentationID()
///   var text: String
///   var title: String { text }
///   var deduplicationKey: String? { text }
///   var lifetime: Duration? { .seconds(5) }
///   var expiryAnswer: Banner.Answer? { .expired }
///   enum Answer: Sendable, Equatable, CustomStringConvertible {
///     case expired
///     var description: String { "expired" }
///   }
///   func isValid(_ answer: Answer) -> Bool { true }
///   func action(for answer: Answer?) -> (@Sendable () async -> Void)? { nil }
/// }
/// ```
public protocol Presentable: Identifiable, Sendable where ID == PresentationID {
  /// An answer to the item: the button tapped, or that it expired.
  associatedtype Answer: Sendable, Equatable, CustomStringConvertible

  /// The line that events and outcome reports show for the item.
  var title: String { get }

  /// Items with the same non-`nil` key are duplicates: a host whose policy deduplicates keeps
  /// the first and drops the later ones.
  var deduplicationKey: String? { get }

  /// How long the item stays once presented before it expires, or `nil` to stay until answered.
  ///
  /// A host times lifetimes of up to 100 years; a longer one counts as `nil`, since a clock
  /// cannot time every `Duration`.
  var lifetime: Duration? { get }

  /// The answer recorded when the item expires.
  var expiryAnswer: Answer? { get }

  /// How soon the item is presented when others wait: higher first, and first come, first
  /// served within one priority. ``PresentationPriority/normal`` unless the item says otherwise.
  var priority: PresentationPriority { get }

  /// Whether an answer belongs to this item, such as a tap on a button the alert has.
  func isValid(_ answer: Answer) -> Bool

  /// The action an answer runs, or the action of a dismissal when `answer` is `nil`.
  ///
  /// A host asks only for answers that ``isValid(_:)`` accepted.
  func action(for answer: Answer?) -> (@Sendable () async -> Void)?
}

/// The longest lifetime a host times: 100 years of 365.25 days. Clocks cannot time every
/// `Duration` (`ContinuousClock.sleep(for:)` traps when its deadline overflows 64-bit seconds).
let presentableLongestLifetime = Duration.seconds(3_155_760_000)

extension Presentable {
  /// ``PresentationPriority/normal``: an item that says nothing of its priority waits its turn.
  public var priority: PresentationPriority { .normal }
}

extension Presentable {
  /// The lifetime a host times: ``lifetime``, unless it is too long for a clock.
  var timedLifetime: Duration? {
    guard let lifetime, lifetime <= presentableLongestLifetime else { return nil }
    return lifetime
  }
}
