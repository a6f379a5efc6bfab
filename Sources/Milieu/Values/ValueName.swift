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
