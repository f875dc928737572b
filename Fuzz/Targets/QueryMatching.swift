// libFuzzer entry point for the query parser and the matcher, compiled into one module with the
// engine's sources and the tests' ReferenceMatcher by Fuzz/run.sh (not part of the package).
//
// Input: the first line is typed into the search field one character at a time; every other
// line is an item ("title | alternate | alternate", with `#kind` and `=number` parts).
// Checked on every input:
// - both parser doors return (the strict one may throw a QueryError, never trap);
// - the rows after typing the whole query (refining keystroke by keystroke) equal both a fresh
//   search and the naive ReferenceMatcher;
// - every highlight range lies inside its title, ascending and apart.

let fuzzSchema = CatalogSchema(
  name: "fuzz",
  fields: [
    .text("title"), .text("tags"), .number("year"), .category("kind"),
    .text("note", searchable: false),
  ],
  titleField: "title", categoryField: "kind",
  scopes: [.all(), .category("Fruit"), .fields("Tags", ["tags"])])

/// Items every input searches, so short inputs still meet folding, Hangul and numbers.
let fixedItems: [Item] = [
  Item(id: "f1", fields: ["title": .text("Đà Nẵng"), "tags": .texts(["da nang", "Vietnam"])]),
  Item(id: "f2", fields: ["title": .text("서울"), "year": .number(2007), "kind": .text("Fruit")]),
  Item(id: "f3", fields: ["title": .text("Straße"), "note": .text("hidden")]),
  Item(id: "f4", fields: ["title": .text("red rose"), "kind": .text("Tool")]),
]

func fuzzItems(_ lines: ArraySlice<Substring>) -> [Item] {
  var items = fixedItems
  for (offset, line) in lines.prefix(32).enumerated() {
    var fields: [String: FieldValue] = [:]
    var texts: [String] = []
    for part in line.split(separator: "|", omittingEmptySubsequences: false) {
      if part.hasPrefix("#") {
        fields["kind"] = .text(String(part.dropFirst()))
      } else if part.hasPrefix("="), let number = Double(part.dropFirst()), number.isFinite {
        fields["year"] = .number(number)
      } else {
        texts.append(String(part))
      }
    }
    fields["title"] = .text(texts.first ?? "")
    if texts.count > 1 { fields["tags"] = .texts(Array(texts.dropFirst())) }
    items.append(Item(id: ItemID("i\(offset)"), fields: fields))
  }
  return items
}

@_cdecl("LLVMFuzzerTestOneInput")
public func queryMatchingFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
  let query = String(lines.first ?? "")
  let items = fuzzItems(lines.dropFirst())

  _ = Query(parsing: query, schema: fuzzSchema)
  _ = try? Query(validating: query, schema: fuzzSchema)

  guard var typed = try? FilteredCollection(schema: fuzzSchema, items: items) else {
    return 0  // duplicate ids cannot happen here; a rejected catalog is not a finding
  }
  var fresh = typed
  let scopeIndex = Int(size % 3)
  var prefix = ""
  typed.filter(by: SearchCriteria(text: prefix, scopeIndex: scopeIndex))
  for character in query.prefix(64) {
    prefix.append(character)
    typed.filter(by: SearchCriteria(text: prefix, scopeIndex: scopeIndex))
  }
  let criteria = SearchCriteria(text: prefix, scopeIndex: scopeIndex)
  fresh.filter(by: criteria)
  let expected = ReferenceMatcher(schema: fuzzSchema).rows(items: items, criteria: criteria)
  check(typed.rows == fresh.rows, "refined rows differ from a fresh search for \(prefix)")
  check(fresh.rows == expected, "rows differ from the reference for \(prefix)")

  for row in fresh.rows.indices {
    guard let item = fresh.item(atRow: row), let title = item["title"]?.displayText else {
      continue
    }
    var last = title.startIndex
    for range in fresh.highlightRanges(in: title, field: "title", of: item) {
      check(
        range.lowerBound >= last && range.upperBound <= title.endIndex, "highlight outside \(title)"
      )
      check(!range.isEmpty, "empty highlight in \(title)")
      last = range.upperBound
    }
  }
  return 0
}
