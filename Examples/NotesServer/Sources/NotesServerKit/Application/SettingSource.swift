import Configuration
import Synchronization

/// Where a setting's value came from: an option on the command line, an environment variable,
/// or neither, the default.
///
/// ```swift
/// print(SettingSource.environment(variable: "NOTES_PORT"))  // NOTES_PORT
/// ```
public enum SettingSource: Sendable, Hashable, CustomStringConvertible {
  /// An option on the command line, such as `--port`.
  case commandLine(option: String)
  /// An environment variable, such as `NOTES_PORT`.
  case environment(variable: String)
  /// Neither: the setting has its default.
  case `default`

  /// The option, the variable, or `default`.
  public var description: String {
    switch self {
    case .commandLine(let option): option
    case .environment(let variable): variable
    case .default: "default"
    }
  }
}

/// The settings' values as text, read through swift-configuration from the command line's
/// options, then the environment's variables, and where each came from.
struct SettingValues {
  private let reader: ConfigReader
  private let recorder: SourceRecorder

  /// Reads from the options given and the environment's variables.
  ///
  /// A store that holds a password is a secret to swift-configuration, which then redacts it
  /// wherever it shows the value.
  ///
  /// - Parameters:
  ///   - given: The options' values, by setting name (`idle-timeout`).
  ///   - environment: The process's environment variables.
  init(given: [String: String], environment: [String: String]) {
    let commandLine = InMemoryProvider(
      name: "command line",
      values: Dictionary(
        uniqueKeysWithValues: given.map { name, value in
          (
            AbsoluteConfigKey(["notes", Self.key(of: name)]),
            ConfigValue(
              .string(value), isSecret: name == "store" && StoreLocation.holdsPassword(value))
          )
        }))
    let variables = EnvironmentVariablesProvider(
      environmentVariables: environment,
      secretsSpecifier: .dynamic { name, value in
        name == "NOTES_STORE" && StoreLocation.holdsPassword(value)
      })
    recorder = SourceRecorder(commandLine: commandLine.providerName)
    reader = ConfigReader(providers: [commandLine, variables], accessReporter: recorder)
      .scoped(to: "notes")
  }

  /// A setting's value and where it came from, or `nil` when neither an option nor a variable
  /// sets it.
  ///
  /// - Parameter name: The setting's name, such as `idle-timeout`.
  subscript(name: String) -> (value: String, source: SettingSource)? {
    let key = Self.key(of: name)
    guard let value = reader.string(forKey: ConfigKey(key)) else { return nil }
    return (value, recorder.source(of: key) ?? .default)
  }

  /// Where each setting read so far came from, by name; those at their default are left out.
  var sources: [String: SettingSource] {
    Dictionary(
      uniqueKeysWithValues: NotesConfiguration.settings.compactMap { name in
        recorder.source(of: Self.key(of: name)).map { (name, $0) }
      })
  }

  /// The key a setting is read under, below `notes`: its name in camel case.
  private static func key(of name: String) -> String {
    let words = name.split(separator: "-")
    return words.enumerated().map {
      $0 == 0 ? String($1) : $1.prefix(1).uppercased() + $1.dropFirst()
    }
    .joined()
  }
}

/// Keeps, from swift-configuration's report of each read, which provider gave each value.
private final class SourceRecorder: AccessReporter {
  private let commandLine: String
  private let sources = Mutex<[String: SettingSource]>([:])

  init(commandLine: String) {
    self.commandLine = commandLine
  }

  func report(_ event: AccessEvent) {
    for provider in event.providerResults {
      guard case .success(let lookup) = provider.result, lookup.value != nil else { continue }
      let name = event.metadata.key.components.last ?? ""
      let source: SettingSource =
        provider.providerName == commandLine
        ? .commandLine(option: "--" + Self.option(of: name))
        : .environment(variable: lookup.encodedKey)
      sources.withLock { $0[name] = source }
      return
    }
  }

  /// Where the value read under a key came from, if a provider gave one.
  func source(of key: String) -> SettingSource? {
    sources.withLock { $0[key] }
  }

  /// A key's option name: `idleTimeout` is `idle-timeout`.
  private static func option(of key: String) -> String {
    key.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined()
  }
}
