/// The name of a stored value: an entry's accessor, or a key type.
///
/// Both are kept as they come, with nothing to retain or release: the name is spelled out only
/// when a diagnostic shows it.
@usableFromInline
enum ValueName: Sendable, CustomStringConvertible {
  case accessor(StaticString)
  case key(any EnvironmentKey.Type)

  @usableFromInline
  var description: String {
    switch self {
    case .accessor(let accessor): accessor.description
    case .key(let key): String(describing: key)
    }
  }
}

extension ValueName {
  /// The default of the key type this names, computed if no read has computed it yet; `nil` for
  /// an accessor's name, which does not hold its entry.
  var keyDefault: (any Sendable)? {
    guard case .key(let key) = self else { return nil }
    return Self.defaultValue(of: key)
  }

  private static func defaultValue<Key: EnvironmentKey>(of key: Key.Type) -> any Sendable {
    EnvironmentKeyDefaults.value(for: key)
  }
}
