/// What the command line asks the demo to do.
enum DemoCommand: Equatable {
  /// No arguments: show the menu of scenarios, run the chosen one, and show the menu again,
  /// until the user quits.
  case menu
  /// `--scenario NAME`.
  case scenario(Scenario)
  /// `--list`.
  case list
  /// `--tree`.
  case tree
  /// `--help`.
  case help

  /// A command line the demo cannot run, with the message that says why and what would work.
  struct UsageError: Error, Equatable, CustomStringConvertible {
    var description: String
  }

  /// The options, as `--help` and error messages name them.
  static let optionNames = "--scenario NAME, --list, --tree, --help"
  /// The scenario names, comma-separated.
  static var scenarioNames: String {
    Scenario.allCases.map(\.rawValue).joined(separator: ", ")
  }

  /// Reads the arguments, without the program's name. Exactly one command is allowed.
  static func parse(_ arguments: [String]) throws(UsageError) -> DemoCommand {
    var command: DemoCommand?
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      let next: DemoCommand
      switch argument {
      case "--help", "-h": next = .help
      case "--list": next = .list
      case "--tree": next = .tree
      case "--scenario":
        guard let name = remaining.popFirst() else {
          throw UsageError(
            description: "--scenario needs a scenario name. Valid scenarios: \(scenarioNames).")
        }
        next = .scenario(try scenario(named: name))
      case let option where option.hasPrefix("--scenario="):
        next = .scenario(try scenario(named: String(option.dropFirst("--scenario=".count))))
      default:
        let kind = argument.hasPrefix("-") ? "option" : "argument"
        throw UsageError(
          description: "unknown \(kind) '\(argument)'. Valid options: \(optionNames).")
      }
      if command != nil {
        throw UsageError(
          description: "give one of \(optionNames), not several; '\(argument)' is one too many.")
      }
      command = next
    }
    return command ?? .menu
  }

  private static func scenario(named name: String) throws(UsageError) -> Scenario {
    guard let scenario = Scenario(rawValue: name) else {
      throw UsageError(
        description: "unknown scenario '\(name)'. Valid scenarios: \(scenarioNames).")
    }
    return scenario
  }
}
