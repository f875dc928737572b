#if Server
import Sift

/// The JSON answer to a search: the results indicator and counts as the app shows them, the
/// requested page of results in the engine's order — each with its id, title, every field under
/// its own name and where the query matched — and, when asked, the facet counts and why each
/// result stands where it does. `suggestions` are the tokens offered for the word being typed
/// (`#` alone offers them all) and `didYouMean` the catalog word nearest a query that found
/// nothing, as the app offers them. `tokens`, when the request had any, are its tokens as the
/// catalog shows them (`country:BR` as "BR" with its icon), for a page to draw as chips; `sort`,
/// the order asked for (`price:desc`); `distinct`, the field results are grouped by (then
/// `matched` counts groups, facets items); `scopeTitles`, the scope buttons a tenant sees (its own
/// categories). Keys sorted, so the same answer is the same bytes.
enum SearchResponse {
  static func json(
    catalog: String, page: SearchPage, schema: CatalogSchema, tokens: [SearchToken] = [],
    sort: SearchSort? = nil, distinct: String? = nil, scopeTitles: Set<String>? = nil
  ) -> JSONValue {
    let indicator = page.indicator
    var members: [(String, JSONValue)] = [
      ("catalog", .string(catalog)), ("indicator", .string(indicator.text)),
      ("total", .number(Double(indicator.totalCount))),
      ("matched", .number(Double(indicator.matchCount))),
      ("offset", .number(Double(page.offset))),
      ("results", .array(page.results.map { ResultItem.json($0, schema: schema) })),
      ("suggestions", .array(page.suggestions.map(json))),
      ("diagnostics", .strings(page.diagnostics.map(\.description))),
    ]
    if !tokens.isEmpty { members.append(("tokens", .array(tokens.map(json)))) }
    if let sort { members.append(("sort", .string(sort.description))) }
    if let distinct { members.append(("distinct", .string(distinct))) }
    if let facets = page.facets {
      members.append(("facets", facets.json(schema: schema, scopeTitles: scopeTitles)))
    }
    if let didYouMean = page.didYouMean { members.append(("didYouMean", .string(didYouMean))) }
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
  static func json(_ result: PageResult, schema: CatalogSchema) -> JSONValue {
    let item = result.item
    var members: [(String, JSONValue)] = [
      ("id", schema.json(item.id)),
      ("title", .string(item[schema.titleField]?.displayText ?? "")),
    ]
    let kept = Set(schema.storedFields.map(\.name))
    var highlights: [JSONValue] = []
    var more: [(String, JSONValue)] = []
    for field in result.fields {
      if !["id", "title", "highlights", "explain", "more"].contains(field.name) {
        if let value = field.value.resultJSON(kept: kept.contains(field.name)) {
          members.append((field.name, value))
        }
      }
      for shown in field.highlights {
        highlights.append(Self.highlight(field: field.name, text: shown.text, ranges: shown.ranges))
      }
      if field.omitted > 0 { more.append((field.name, .number(Double(field.omitted)))) }
    }
    members.append(("highlights", .array(highlights)))
    if !more.isEmpty { members.append(("more", .object(sorting: more))) }
    // Fields cut to a snippet (`crop=N`): the item holds their whole text.
    if !result.croppedFields.isEmpty { members.append(("cropped", .strings(result.croppedFields))) }
    if let distance = result.distanceKilometers {
      members.append(("distance_km", .number(distance)))
    }
    if let similarity = result.similarity {
      members.append(("similarity", .number(MatchExplanation.rounded(similarity))))
    }
    if let explanation = result.explanation {
      members.append(("explain", .object(explanation.jsonMembers)))
    }
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
