import Sift

/// One JSON object on one line, keys in the order added (JSONSerialization sorts or shuffles
/// them), written by the engine's `JSONValue`.
struct JSONLine {
  private var members: [(String, JSONValue)] = []
  private var keys = Set<String>()

  /// Adds a key once; a repeated key keeps its first value.
  mutating func add(_ key: String, _ value: JSONValue) {
    guard keys.insert(key).inserted else { return }
    members.append((key, value))
  }

  var value: JSONValue { .object(members) }

  var line: String { value.text }
}
