/// The services with a lifecycle that a node's named services lead to, each once, in an order
/// that starts what a service reads before it; and what is wrong with them.
///
/// Made from what reading the named services recorded (``ServiceReads``): a value whose type is
/// a ``LifecycleService`` is a service, and it depends on the nearest services below it — read
/// first-hand, or through values without a lifecycle. A service is one service wherever it is
/// read: a class instance by its identity, any other value by the write or build it came from.
struct ServicePlan: Sendable {
  /// What tells one running service from another, process-wide.
  enum Identity: Hashable, Sendable {
    /// A class instance, which the service holds.
    case object(ObjectIdentifier)
    /// Any other value, by the write or build it came from.
    case read(ServiceReads.Identity)
  }

  struct Service: Sendable {
    let name: String
    /// From a named service down to this one.
    let path: [String]
    /// What starts and stops: the value, or what a test replaced its lifecycle with.
    let lifecycle: any LifecycleService
    /// The value, held so that its identity stays its own.
    let value: (any LifecycleService)?
    let identity: Identity
    /// Positions in ``ServicePlan/services``, all before this one.
    let dependencies: [Int]
    /// Whether nothing it was built from was set: a default, or built from defaults alone.
    let isFromDefaultsOnly: Bool
  }

  /// A named service: what reading it recorded, and its name.
  struct Named {
    let root: ServiceReads.Root
    let name: String
  }

  private(set) var services: [Service] = []
  private(set) var failures: [ServiceFailure] = []

  /// The plan for `named`, with lifecycles replaced as `replacements` say.
  init(
    reads graph: ServiceReads, named: [Named],
    replacements: [(root: ServiceReads.Root, lifecycle: any LifecycleService)]
  ) {
    let reads = graph.reads
    // A key path that reads one plain value gives that value: its read stands for it, so that a
    // default the query could not give is known, and a build that read it depends on it.
    var values: [Any?] = reads.map { read in read.value.map { $0 as Any } }
    for root in named.map(\.root) + replacements.map(\.root) {
      if let read = Self.onlyRead(of: root, in: reads), values[read] == nil,
        !reads[read].isDerived
      {
        values[read] = root.value
      }
    }
    var lifecycles: [(any LifecycleService)?] = values.map { $0 as? any LifecycleService }
    let originals = lifecycles
    for (root, lifecycle) in replacements {
      if let read = Self.onlyRead(of: root, in: reads) { lifecycles[read] = lifecycle }
      guard let object = Self.object(root.value as? any LifecycleService) else { continue }
      for read in reads.indices where Self.object(originals[read]) == object {
        lifecycles[read] = lifecycle
      }
    }

    // The services, one per identity, and the read each stands at; then those the named key
    // paths give without a read of their own.
    var candidates: [Candidate] = []
    var serviceOfRead: [Int?] = Array(repeating: nil, count: reads.count)
    var byIdentity: [Identity: Int] = [:]
    for read in reads.indices {
      guard let lifecycle = lifecycles[read] else { continue }
      let identity =
        Self.object(originals[read]).map(Identity.object) ?? .read(reads[read].identity)
      if let known = byIdentity[identity] {
        serviceOfRead[read] = known
        continue
      }
      byIdentity[identity] = candidates.count
      serviceOfRead[read] = candidates.count
      candidates.append(
        Candidate(
          name: reads[read].name, read: read, root: nil, lifecycle: lifecycle,
          value: originals[read], identity: identity))
    }
    for service in named {
      let root = service.root
      let only = Self.onlyRead(of: root, in: reads)
      guard let value = root.value as? any LifecycleService else { continue }
      if let only, reads[only].lifetime == .newOnEveryRead {
        failures.append(
          ServiceFailure(
            service: service.name, path: [service.name],
            reason: .notKept(
              "it is built anew on every read (Derived(.newOnEveryRead)), so every reader gets "
                + "one of its own. Declare it .onePerInputs or .onePerProcess.")))
        continue
      }
      if let only, serviceOfRead[only] != nil, Self.isSame(value, values[only] as Any) {
        continue
      }
      guard let object = Self.object(value) else {
        failures.append(
          ServiceFailure(
            service: service.name, path: [service.name],
            reason: .notKept(
              "its key path reads \(root.reads.count) values and gives a part of them, which "
                + "Milieu cannot tell from the next read's. Name the service by its own "
                + "accessor, an entry or a derived value.")))
        continue
      }
      if byIdentity[.object(object)] != nil { continue }
      byIdentity[.object(object)] = candidates.count
      candidates.append(
        Candidate(
          name: service.name, read: nil, root: root, lifecycle: value, value: value,
          identity: .object(object)))
    }

    let order = Self.inputsFirst(reads, from: named.flatMap(\.root.reads))
    // The nearest services below each read, and whether it was built from defaults alone.
    var nearest: [Set<Int>] = Array(repeating: [], count: reads.count)
    var defaultsOnly: [Bool] = Array(repeating: false, count: reads.count)
    for read in order {
      for input in reads[read].inputs {
        if let service = serviceOfRead[input] {
          nearest[read].insert(service)
        } else {
          nearest[read].formUnion(nearest[input])
        }
      }
      defaultsOnly[read] =
        reads[read].isDefault
        || (reads[read].lifetime != nil && reads[read].inputs.allSatisfy { defaultsOnly[$0] })
    }
    let paths = Self.paths(reads, named: named)

    var dependencies: [Set<Int>] = candidates.map { candidate in
      if let read = candidate.read { return nearest[read] }
      return candidate.root.map { root in
        root.reads.reduce(into: Set<Int>()) { found, read in
          if let service = serviceOfRead[read] { found.insert(service) }
          found.formUnion(nearest[read])
        }
      } ?? []
    }
    for index in dependencies.indices { dependencies[index].remove(index) }

    // Kahn's order: a service once everything it reads is placed.
    var placed: [Int?] = Array(repeating: nil, count: candidates.count)
    var remaining = dependencies.map(\.count)
    var readers: [[Int]] = Array(repeating: [], count: candidates.count)
    for (index, below) in dependencies.enumerated() {
      for dependency in below { readers[dependency].append(index) }
    }
    var ready = candidates.indices.filter { remaining[$0] == 0 }
    var sequence: [Int] = []
    while !ready.isEmpty {
      let next = ready.removeFirst()
      placed[next] = sequence.count
      sequence.append(next)
      for reader in readers[next] {
        remaining[reader] -= 1
        if remaining[reader] == 0 { ready.append(reader) }
      }
    }
    if sequence.count < candidates.count {
      let chain = Self.cycle(among: dependencies, placed: placed).map { candidates[$0].name }
      let start = chain[0]
      failures.append(
        ServiceFailure(
          service: start, path: chain,
          reason: .cycle(
            "\(chain.joined(separator: " → ")) is a cycle of services with lifecycles: none "
              + "can start before the others. Pass one of them what it needs instead of the "
              + "other.")))
    }
    for position in sequence {
      let candidate = candidates[position]
      services.append(
        Service(
          name: candidate.name, path: candidate.read.map { paths[$0] } ?? [candidate.name],
          lifecycle: candidate.lifecycle, value: candidate.value, identity: candidate.identity,
          dependencies: dependencies[position].compactMap { placed[$0] }.sorted(),
          isFromDefaultsOnly: candidate.read.map { defaultsOnly[$0] }
            ?? (candidate.root?.reads.allSatisfy { defaultsOnly[$0] } ?? false)))
    }
  }

  /// A service found, before it is placed.
  private struct Candidate {
    let name: String
    let read: Int?
    let root: ServiceReads.Root?
    let lifecycle: any LifecycleService
    let value: (any LifecycleService)?
    let identity: Identity
  }

  /// The one value a key path read first-hand, if it read one.
  private static func onlyRead(of root: ServiceReads.Root, in reads: [ServiceReads.Read]) -> Int? {
    root.reads.count == 1 ? root.reads[0] : nil
  }

  /// The identity of a class instance.
  private static func object(_ value: (any LifecycleService)?) -> ObjectIdentifier? {
    guard let value, type(of: value) is AnyClass else { return nil }
    return ObjectIdentifier(value as AnyObject)
  }

  /// Whether a key path's value is the value of its one read: the same instance, or a value
  /// of the same type.
  private static func isSame(_ value: Any, _ read: Any) -> Bool {
    if type(of: value) is AnyClass, type(of: read) is AnyClass {
      return (value as AnyObject) === (read as AnyObject)
    }
    return type(of: value) == type(of: read)
  }

  /// Every read below `starts`, each after what it read, found without recursion.
  private static func inputsFirst(_ reads: [ServiceReads.Read], from starts: [Int]) -> [Int] {
    var order: [Int] = []
    var seen = Set<Int>()
    for start in starts where seen.insert(start).inserted {
      var stack: [(read: Int, next: Int)] = [(start, 0)]
      while let (read, next) = stack.popLast() {
        guard next < reads[read].inputs.count else {
          order.append(read)
          continue
        }
        stack.append((read, next + 1))
        let input = reads[read].inputs[next]
        if seen.insert(input).inserted { stack.append((input, 0)) }
      }
    }
    return order
  }

  /// For each read, the names from a named service down to it, by the fewest steps.
  private static func paths(_ reads: [ServiceReads.Read], named: [Named]) -> [[String]] {
    var paths: [[String]?] = Array(repeating: nil, count: reads.count)
    var queue: [Int] = []
    for service in named {
      for read in service.root.reads where paths[read] == nil {
        paths[read] = [reads[read].name]
        queue.append(read)
      }
    }
    var next = 0
    while next < queue.count {
      let read = queue[next]
      next += 1
      for input in reads[read].inputs where paths[input] == nil {
        paths[input] = (paths[read] ?? []) + [reads[input].name]
        queue.append(input)
      }
    }
    return paths.enumerated().map { $1 ?? [reads[$0].name] }
  }

  /// A cycle among the services not placed, as positions, its first repeated at its end.
  private static func cycle(among dependencies: [Set<Int>], placed: [Int?]) -> [Int] {
    guard var current = placed.firstIndex(where: { $0 == nil }) else { return [] }
    var visited: [Int] = []
    while !visited.contains(current) {
      visited.append(current)
      current = dependencies[current].sorted().first { placed[$0] == nil } ?? current
    }
    guard let start = visited.firstIndex(of: current) else { return visited }
    return Array(visited[start...]) + [current]
  }
}

extension ServicePlan {
  /// The plan with `failures` found before it, ahead of its own.
  func adding(_ earlier: [ServiceFailure]) -> ServicePlan {
    var plan = self
    plan.failures = earlier + failures
    return plan
  }
}
