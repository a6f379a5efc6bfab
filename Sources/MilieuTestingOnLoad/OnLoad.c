// Connects MilieuTesting to Milieu's issue reporting as soon as a binary that links MilieuTesting
// is loaded, before any test runs.
//
// MilieuTesting links Testing and XCTest, so only test binaries link it; a production binary never
// runs this. Without it, Milieu's issues would fail the running test only once some MilieuTesting
// API had happened to run in the process, and whether a test failed would depend on which tests ran
// before it.

#include "MilieuTestingOnLoad.h"

// Defined in Swift by MilieuTesting (TestRunnerReporter.swift), with this C name.
extern void milieu_testing_connect(void);

__attribute__((constructor)) static void milieu_testing_on_load(void) {
  milieu_testing_connect();
}
