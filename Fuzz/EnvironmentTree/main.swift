import Milieu

// Fuzzes the environment tree with arbitrary sequences of children, long chains, writes and
// removed overrides, checking reads against a plain model (a node's overrides, walked to the
// root) and drawing the tree at an arbitrary depth: deep trees must neither crash the tree dump
// nor make a read disagree.

extension EnvironmentValues {
  static let count = Entry(0)
  var count: Int {
    get { self[Self.count] }
    set { self[Self.count] = newValue }
  }

  static let label = Entry("default")
  var label: String {
    get { self[Self.label] }
    set { self[Self.label] = newValue }
  }
}

/// The model of one node: its parent's index and its own overrides.
struct ModelNode {
  var parent: Int?
  var count: Int?
  var label: String?
}

/// libFuzzer's entry point: checks one input, and traps when an invariant fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  var input = FuzzInput(data, count: count)
  let root = EnvironmentNode("fuzz")
  var nodes: [EnvironmentNode] = [root]
  var model = [ModelNode(parent: nil)]

  while !input.isAtEnd, nodes.count < 2_000 {
    let index = input.number(below: 256) % nodes.count
    let node = nodes[index]
    switch input.number(below: 5) {
    case 0:
      nodes.append(node.child())
      model.append(ModelNode(parent: index))
    case 1:
      // A chain up to 1,024 deep in one step.
      var parent = index
      for _ in 0..<(input.number(below: 256) * 4 + 1) where nodes.count < 2_000 {
        nodes.append(nodes[parent].child())
        model.append(ModelNode(parent: parent))
        parent = nodes.count - 1
      }
    case 2:
      let value = input.int16()
      node.set(\.count, to: value)
      model[index].count = value
    case 3:
      let text = input.text()
      node.update { $0.label = text }
      model[index].label = text
    default:
      if input.bool() {
        node.removeOverride(\.count)
        model[index].count = nil
      } else {
        node.removeOverride(\.label)
        model[index].label = nil
      }
    }
    let probe = input.number(below: 256) % nodes.count
    let values = nodes[probe].values
    precondition(values.count == expected(\.count, at: probe, in: model) ?? 0, "a stale count")
    precondition(
      values.label == expected(\.label, at: probe, in: model) ?? "default", "a stale label")
  }

  let maxDepth = input.number(below: 256) * 8
  let drawing = root.treeDescription(maxDepth: maxDepth)
  precondition(drawing.hasPrefix("node \"fuzz\""), "the drawing does not start at the root")
  let overrides = model.reduce(0) { $0 + ($1.count == nil ? 0 : 1) + ($1.label == nil ? 0 : 1) }
  precondition(
    maxDepth < nodes.count || drawing.split(separator: "\n").count == nodes.count + overrides,
    "a drawing of every node has the wrong number of lines")
  return 0
}

/// What the model says a node reads: the nearest override on its path, if any.
func expected<Value>(_ field: KeyPath<ModelNode, Value?>, at index: Int, in model: [ModelNode])
  -> Value?
{
  var cursor: Int? = index
  while let node = cursor {
    if let value = model[node][keyPath: field] { return value }
    cursor = model[node].parent
  }
  return nil
}
