import Benchmark
import BenchmarkSupport
import MilieuAlerts

// Suite 4, Alerts: present → tap → next through an `AlertHost`.
//
// The host's presenter taps an alert's first button the moment it is presented, so one call to
// `show` runs a whole round trip: the alert is enqueued and made current, the host (with its lock
// released) hands it to the presenter, the tap validates the alert and the button, clears
// `current`, presents the next pending alert if there is one, and resolves the alert. Nothing
// waits for a person, so what is measured is the host alone.
//
// The buttons have no actions: an action runs in a task of its own, which would measure the
// task scheduler rather than the host. Alerts are made before measuring, except in the case that
// makes one per iteration (which adds `AlertData`'s validation of its input and three
// identifiers). `compare.sh` turns each median into alerts per second.
//
// There are no `ARC: …` cases here: with the runtime's retain and release hooks installed (the
// plugin's fallback on Linux when its runtime interposer is not preloaded), the process crashes on
// Swift 6.3: a bad pointer retained in `_swift_retain_hook`, called from the benchmark runner.

let benchmarks: @Sendable () -> Void = {
  registerOneProducer()
  registerEightProducers()
  registerAwaiting()
}

func alertConfiguration(_ scalingFactor: BenchmarkScalingFactor) -> Benchmark.Configuration {
  .init(
    metrics: SuiteMetrics.timing, scalingFactor: scalingFactor, maxDuration: .seconds(2),
    maxIterations: 10_000)
}

/// One producer that shows alerts one after another, fire and forget.
func registerOneProducer() {
  let host = AlertHost(presenter: TapFirst())
  let alerts = AlertFixture.alerts(count: BenchmarkScalingFactor.kilo.rawValue)
  Benchmark(
    "Alerts: one producer, alerts made beforehand", configuration: alertConfiguration(.kilo)
  ) { benchmark in
    for index in benchmark.scaledIterations { host.show(alerts[index]) }
    AlertFixture.checkIdle(host)
  }

  let building = AlertHost(presenter: TapFirst())
  Benchmark(
    "Alerts: one producer, each alert made in the loop", configuration: alertConfiguration(.kilo)
  ) { benchmark in
    for _ in benchmark.scaledIterations { building.show(AlertFixture.alert()) }
    AlertFixture.checkIdle(building)
  }

  // What a service calls: `showAlert(alert)` from the environment, which reaches the same host
  // through `ShowAlertAction`, inside the alerts module.
  let throughAction = AlertHost(presenter: TapFirst())
  let showAlert = ShowAlertAction(host: throughAction)
  Benchmark(
    "Alerts: one producer through ShowAlertAction, fire and forget",
    configuration: alertConfiguration(.kilo)
  ) { benchmark in
    for index in benchmark.scaledIterations { showAlert(alerts[index]) }
    // Also keeps the host alive: the action holds it weakly.
    AlertFixture.checkIdle(throughAction)
  }
}

/// Eight tasks that show their alerts into one host at the same time.
///
/// The host's queue is long enough for every alert of a sample, so none is dropped; the setup
/// checks that every one of them is tapped. An alert a producer enqueues while another is shown
/// is presented, and tapped, by whichever thread is delivering the host's effects at the time.
/// The sample includes starting and joining the eight tasks (microseconds, against the
/// milliseconds of 8,000 alerts); `compare.sh` divides its median by the number of alerts.
func registerEightProducers() {
  let producers = 8
  let alertsPerProducer = 1_000
  let policy = PresentationPolicy(maximumPending: producers * alertsPerProducer)
  let host = AlertHost(policy: policy, presenter: TapFirst())
  let batches = (0..<producers).map { _ in AlertFixture.alerts(count: alertsPerProducer) }
  Benchmark(
    "Alerts: eight producers at once, 8,000 alerts a sample",
    configuration: alertConfiguration(.one)
  ) { _ async in
    await withTaskGroup(of: Void.self) { group in
      for batch in batches {
        group.addTask {
          for alert in batch { host.show(alert) }
        }
      }
    }
    AlertFixture.checkIdle(host)
  } setup: {
    await AlertFixture.checkEveryAlertIsTapped(batches: batches, policy: policy)
  }
}

/// One producer that awaits each alert's outcome through `ShowAlertAction.ask`.
func registerAwaiting() {
  let host = AlertHost(presenter: TapFirst())
  let showAlert = ShowAlertAction(host: host)
  let alerts = AlertFixture.alerts(count: BenchmarkScalingFactor.kilo.rawValue)
  Benchmark(
    "Alerts: one producer awaiting each outcome (ShowAlertAction.ask)",
    configuration: alertConfiguration(.kilo)
  ) { benchmark async in
    for index in benchmark.scaledIterations {
      let outcome = await showAlert.ask(alerts[index])
      precondition(outcome.tappedButton != nil, "an alert was not tapped: \(outcome)")
      blackHole(outcome)
    }
    // Also keeps the host alive: the action holds it weakly.
    AlertFixture.checkIdle(host)
  }
}
