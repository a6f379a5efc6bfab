// What the block of *Writing a presenter* uses and does not declare; see
// scripts/article-blocks.py.
import MilieuAlerts

/// However the presenter asks a person: the index of the button they chose.
func askSomehow(_ alert: AlertData) async -> Int { 0 }
