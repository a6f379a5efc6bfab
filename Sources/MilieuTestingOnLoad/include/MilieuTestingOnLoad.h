// MilieuTestingOnLoad has nothing to import: its one function runs by itself when a binary that
// links MilieuTesting is loaded (see OnLoad.c).
