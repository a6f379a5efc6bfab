// Runs the README's examples in this module, whose code defaults to the main actor, and prints
// what they print.
runFirstExample { print($0) }
runServiceGraph { print($0) }
runRequestTimeout { print($0) }
