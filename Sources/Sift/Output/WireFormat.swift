/// The JSON of a catalog's settings and recorded searches, written here once for every front
/// end — `sift serve`'s answers and the command line's `--json` lines — so that a client reads
/// one shape wherever it got it.
extension Pins.Entry {
  /// `{"query", "id", "at"}`, or `{"query", "id", "hidden": true}` for a hidden item.
  package var json: JSONValue {
    .object(
      [("query", .string(query)), ("id", .string(id.rawValue))]
        + (position.map { [("at", JSONValue.number(Double($0)))] } ?? [("hidden", .bool(true))]))
  }
}

extension Pins {
  /// `{"pins": [entry, …]}`.
  package var json: JSONValue { .object([("pins", .array(entries.map(\.json)))]) }
}

extension Synonyms.Entry {
  /// `{"expressions": […]}` for a group; a one-way rule adds `"to": […]`.
  package var json: JSONValue {
    var members: [(String, JSONValue)] = [("expressions", .strings(expressions))]
    if let to { members.append(("to", .strings(to))) }
    return .object(members)
  }
}

extension Synonyms {
  /// `{"synonyms": [entry, …]}`.
  package var json: JSONValue { .object([("synonyms", .array(entries.map(\.json)))]) }
}

extension SearchHistory.Entry {
  /// `{"count", "text"}`: a recorded search as it is suggested.
  package var json: JSONValue {
    .object(sorting: [("text", .string(text)), ("count", .number(Double(count)))])
  }
}
