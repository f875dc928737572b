#if Server
import Sift

/// The JSON answer to a search: the results indicator and counts as the app shows them, the
/// requested page of results in the engine's order — each with its id, title, every field under
/// its own name and where the query matched — and, when asked, the facet counts and why each
/// result stands where it does. `suggestions` are the tokens offered for the word being typed
/// (`#` alone offers them all) and `didYouMean` the catalog word nearest a query that found
/// nothing, as the app offers them. Keys sorted, so the same answer is the same bytes.
enum SearchResponse {
  /// `items`: the page's items, read already (nil where gone); nil: read them from the
  /// collection.
  static func json(
    catalog: String, controller: SearchController, page: Range<Int>, facets: Bool,
    explain: Bool = false, items: [Item?]? = nil
  ) -> JSONValue {
    let collection = controller.collection
    let matched = controller.rows.count
    let rows = min(page.lowerBound, matched)..<min(page.upperBound, matched)
    let results = zip(rows, items ?? collection.elements(atRows: rows)).compactMap {
      row, item -> JSONValue? in
      guard let item else { return nil }
      var explanation = explain ? collection.explanation(forRow: row) : nil
      // The rule against the next result on the page: a page from PostgreSQL knows no other.
      if row == rows.upperBound - 1 { explanation?.aheadOfNext = nil }
      return ResultItem.json(
        item, collection: collection, explanation: explanation,
        listValues: ResultItem.listValuesOnAPage)
    }
    return json(
      catalog: catalog, indicator: controller.indicator, offset: page.lowerBound,
      results: results, suggestions: controller.suggestions,
      diagnostics: controller.diagnostics,
      facets: facets ? controller.facets.json(schema: collection.schema) : nil,
      didYouMean: controller.spellingSuggestion)
  }

  /// The answer from its parts, wherever the search ran (in memory or in PostgreSQL).
  static func json(
    catalog: String, indicator: ResultsIndicator, offset: Int, results: [JSONValue],
    suggestions: [SearchToken], diagnostics: [QueryDiagnostic], facets: JSONValue?,
    didYouMean: String?
  ) -> JSONValue {
    var members: [(String, JSONValue)] = [
      ("catalog", .string(catalog)), ("indicator", .string(indicator.text)),
      ("total", .number(Double(indicator.totalCount))),
      ("matched", .number(Double(indicator.matchCount))),
      ("offset", .number(Double(offset))), ("results", .array(results)),
      ("suggestions", .array(suggestions.map(json))),
      ("diagnostics", .strings(diagnostics.map(\.description))),
    ]
    if let facets { members.append(("facets", facets)) }
    if let didYouMean { members.append(("didYouMean", .string(didYouMean))) }
    return .object(sorting: members)
  }

  private static func json(_ token: SearchToken) -> JSONValue {
    .object(
      sorting: [("identifier", .string(token.identifier)), ("text", .string(token.text))]
        + (token.icon.map { [("icon", JSONValue.string($0))] } ?? []))
  }
}

/// One result: `id`, `title`, each field under its own name, `highlights` — where the query
/// matched each value, in UTF-16 offsets (what JavaScript indexes strings by) — and with
/// `explain=1` the rule values `sift search --explain` gives.
///
/// On a page of search results a field of many values (a city's 200 other names) holds the
/// values that matched (the first `matchedValues` of them), then others up to `listValues`, and
/// `more` counts what was left out: a page costs a page. The item itself (`GET …/items/ID`) has
/// every value.
enum ResultItem {
  /// How many values of a list field a search result shows at least: what a row draws.
  static let listValuesOnAPage = 2
  /// How many matched values of a list field a search result shows at most (a one-letter
  /// query matches most of a city's names).
  static let matchedValues = 10

  static func json(
    _ item: Item, collection: FilteredCollection, explanation: MatchExplanation? = nil,
    listValues: Int? = nil
  ) -> JSONValue {
    let schema = collection.schema
    var members: [(String, JSONValue)] = [
      ("id", .string(item.id.rawValue)),
      ("title", .string(item[schema.titleField]?.displayText ?? "")),
    ]
    var highlights: [JSONValue] = []
    var more: [(String, JSONValue)] = []
    for field in schema.fields {
      guard let value = item[field.name] else { continue }
      let named = !["id", "title", "highlights", "explain", "more"].contains(field.name)
      let highlighted = field.kind != .number
      let texts = value.strings
      // The values to write, each with where it matched.
      var shown: [(text: String, ranges: [Range<String.Index>])] = []
      if case .texts = value, let listValues {
        let mayMatch =
          collection.valuesThatMayMatch(field: field.name, of: item.id).flatMap {
            $0.count == texts.count ? $0 : nil
          } ?? texts.map { _ in true }
        var unmatched: [String] = []
        for (text, candidate) in zip(texts, mayMatch) {
          guard shown.count < Self.matchedValues else { break }
          let ranges =
            candidate && highlighted
            ? collection.highlightRanges(in: text, field: field.name, of: item) : []
          if ranges.isEmpty { unmatched.append(text) } else { shown.append((text, ranges)) }
        }
        shown += unmatched.prefix(max(0, listValues - shown.count)).map { ($0, []) }
        if texts.count > shown.count {
          more.append((field.name, .number(Double(texts.count - shown.count))))
        }
        if named { members.append((field.name, .strings(shown.map(\.text)))) }
        for (text, ranges) in shown where !ranges.isEmpty {
          highlights.append(Self.highlight(field: field.name, text: text, ranges: ranges))
        }
        continue
      }
      if named {
        switch value {
        case .text(let text): members.append((field.name, .string(text)))
        case .texts(let texts): members.append((field.name, .strings(texts)))
        case .number(let number): members.append((field.name, .number(number)))
        }
      }
      guard highlighted else { continue }
      for text in texts {
        let ranges = collection.highlightRanges(in: text, field: field.name, of: item)
        if !ranges.isEmpty {
          highlights.append(Self.highlight(field: field.name, text: text, ranges: ranges))
        }
      }
    }
    members.append(("highlights", .array(highlights)))
    if !more.isEmpty { members.append(("more", .object(sorting: more))) }
    if let explanation { members.append(("explain", .object(explanation.jsonMembers))) }
    return .object(sorting: members)
  }

  /// Where the query matched one value, in UTF-16 offsets.
  private static func highlight(
    field: String, text: String, ranges: [Range<String.Index>]
  ) -> JSONValue {
    let utf16 = text.utf16
    let offsets = ranges.map { range -> JSONValue in
      .array([
        .number(Double(utf16.distance(from: utf16.startIndex, to: range.lowerBound))),
        .number(Double(utf16.distance(from: utf16.startIndex, to: range.upperBound))),
      ])
    }
    return .object(sorting: [
      ("field", .string(field)), ("value", .string(text)), ("ranges", .array(offsets)),
    ])
  }
}
#endif
