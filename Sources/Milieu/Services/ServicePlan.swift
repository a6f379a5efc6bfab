/// The services with a lifecycle that a node's named services lead to, each once, in an order
/// that starts what a service reads before it; and what is wrong with them.
///
/// Made from what reading the named services recorded (``ServiceReads``): a value whose type is
/// a ``LifecycleService`` is a service, and it depends on the nearest services below it — read
/// first-hand, or through values without a lifecycle. A service is one service wherever it is
/// read: a class instance by its identity, any other value by the write or build it came from.
struct ServicePlan: Sendable {
  /// What tells one running service from another, process-wide.
  indirect enum Identity: Hashable, Sendable {
    /// A class instance, which the service holds.
    case object(ObjectIdentifier)
    /// Any other value, by the write or build it came from.
    case read(ServiceReads.Identity)
    /// A fake of a service's lifecycle, by the fake's number and the service it stands for.
    case fake(UInt64, of: Identity)

    /// The service itself, for a fake of one; else this.
    var real: Identity {
      if case .fake(_, let real) = self { return real }
      return self
    }
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
    /// Whether ``RunningServices/services`` names it: not a fake that stands in front of the
    /// service itself, which is named.
    let isListed: Bool
  }

  /// A named service: what reading it recorded, and its name.
  struct Named {
    let root: ServiceReads.Root
    let name: String
  }

  private(set) var services: [Service] = []
  private(set) var failures: [ServiceFailure] = []

  /// The plan for `named`, with lifecycles faked as `fakes` say. A fake whose number is in
  /// `required` and that applies to none of the services is a failure.
  init(
    reads graph: ServiceReads, named: [Named],
    fakes: [(root: ServiceReads.Root, fake: ServiceLifecycleReplacement)],
    required: Set<UInt64> = []
  ) {
    let reads = graph.reads
    // A key path that reads one plain value gives that value: its read stands for it, so that a
    // default the query could not give is known, and a build that read it depends on it.
    var values: [Any?] = reads.map { read in read.value.map { $0 as Any } }
    for root in named.map(\.root) + fakes.map(\.root) {
      if let read = Self.onlyRead(of: root, in: reads), values[read] == nil,
        !reads[read].isDerived
      {
        values[read] = root.value
      }
    }
    let lifecycles: [(any LifecycleService)?] = values.map { $0 as? any LifecycleService }
    let order = Self.inputsFirst(reads, from: named.flatMap(\.root.reads))
    let reachable = Set(order)

    // Which fake each read the named services lead to has, the last one given winning.
    var fakeOfRead: [Int: ServiceLifecycleReplacement] = [:]
    for (root, fake) in fakes {
      var faked = Self.onlyRead(of: root, in: reads).map { [$0] } ?? []
      if let object = Self.object(root.value as? any LifecycleService) {
        faked += reads.indices.filter { Self.object(lifecycles[$0]) == object }
      }
      let applied = faked.filter(reachable.contains)
      for read in applied { fakeOfRead[read] = fake }
      if applied.isEmpty, required.contains(fake.id) {
        let names = root.reads.map { reads[$0].name }
        let name = names.isEmpty ? "\(type(of: root.value))" : names.joined(separator: ", ")
        failures.append(
          ServiceFailure(
            service: name, path: [name],
            reason: .unusedFake(
              fake.name, started: named.map(\.name).joined(separator: ", "))))
      }
    }

    // The services, one per identity, and the read each stands at; then those the named key
    // paths give without a read of their own.
    var candidates: [Candidate] = []
    var serviceOfRead: [Int?] = Array(repeating: nil, count: reads.count)
    var byIdentity: [Identity: Int] = [:]
    func candidate(_ identity: Identity, _ make: () -> Candidate) -> Int {
      if let known = byIdentity[identity] { return known }
      byIdentity[identity] = candidates.count
      candidates.append(make())
      return candidates.count - 1
    }
    for read in reads.indices where reachable.contains(read) {
      let original = lifecycles[read]
      let identity = Self.object(original).map(Identity.object) ?? .read(reads[read].identity)
      let name = reads[read].name
      if let fake = fakeOfRead[read] {
        let kept = fake.keepsService ? original : nil
        let real = kept.map { kept in
          candidate(identity) {
            Candidate(name: name, read: read, lifecycle: kept, value: kept, identity: identity)
          }
        }
        serviceOfRead[read] = candidate(.fake(fake.id, of: identity)) {
          Candidate(
            name: name, read: read, lifecycle: fake.make(), value: original,
            identity: .fake(fake.id, of: identity), standsBefore: real)
        }
      } else if let original {
        serviceOfRead[read] = candidate(identity) {
          Candidate(
            name: name, read: read, lifecycle: original, value: original, identity: identity)
        }
      }
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
      _ = candidate(.object(object)) {
        Candidate(
          name: service.name, root: root, lifecycle: value, value: value,
          identity: .object(object))
      }
    }

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
      if let read = candidate.read {
        return nearest[read].union(candidate.standsBefore.map { [$0] } ?? [])
      }
      return candidate.root.map { root in
        root.reads.reduce(into: Set<Int>()) { found, read in
          if let service = serviceOfRead[read] { found.insert(service) }
          found.formUnion(nearest[read])
        }
      } ?? []
    }
    // One instance read in several places reads what each of those reads read.
    for read in order {
      if let service = serviceOfRead[read] { dependencies[service].formUnion(nearest[read]) }
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
            ?? (candidate.root?.reads.allSatisfy { defaultsOnly[$0] } ?? false),
          isListed: candidate.standsBefore == nil))
    }
  }

  /// A service found, before it is placed.
  private struct Candidate {
    let name: String
    var read: Int?
    var root: ServiceReads.Root?
    let lifecycle: any LifecycleService
    let value: (any LifecycleService)?
    let identity: Identity
    /// For a fake in front of the service itself: the service's candidate, which it reads.
    var standsBefore: Int?

    init(
      name: String, read: Int? = nil, root: ServiceReads.Root? = nil,
      lifecycle: any LifecycleService, value: (any LifecycleService)?, identity: Identity,
      standsBefore: Int? = nil
    ) {
      self.name = name
      self.read = read
      self.root = root
      self.lifecycle = lifecycle
      self.value = value
      self.identity = identity
      self.standsBefore = standsBefore
    }
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
