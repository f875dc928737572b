@testable import Sift

/// The simplest possible implementation of DESIGN §3's matching and ordering: fold every string
/// again for every item, search it byte by byte. The engine's buffers, scans, refinement and
/// ranking must agree with it exactly.
struct ReferenceMatcher {
  let schema: CatalogSchema

  func rows(items: [Item], criteria: SearchCriteria) -> [ItemID] {
    let resolved = ResolvedCriteria(criteria, schema: schema)
    let matching = items.enumerated().filter { matches($0.element, resolved) }
    let titleNeedles = resolved.allTerms.compactMap { term -> String? in
      guard !term.isNegated, let text = term.textCondition,
        text.field == nil || text.field == schema.titleField
      else { return nil }
      return text.needle
    }
    return matching.map {
      (tier: tier($0.element, titleNeedles), position: $0.offset, id: $0.element.id)
    }
    .sorted { ($0.tier, $0.position) < ($1.tier, $1.position) }
    .map(\.id)
  }

  func matches(_ item: Item, _ resolved: ResolvedCriteria) -> Bool {
    var textFields = schema.fields.filter { $0.kind == .text && $0.isSearchable }.map(\.name)
    var numberFields = schema.fields.filter { $0.kind == .number && $0.isSearchable }.map(\.name)
    switch resolved.scope?.filter {
    case .category(let value):
      guard let field = schema.categoryField,
        let category = item[field]?.strings.first,
        TextFolding.fold(category) == TextFolding.fold(value)
      else { return false }
    case .fields(let names):
      textFields = schema.fields.filter { $0.kind == .text && names.contains($0.name) }.map(\.name)
      numberFields = schema.fields.filter { $0.kind == .number && names.contains($0.name) }.map(
        \.name)
    default: break
    }
    for term in resolved.allTerms {
      let hit: Bool
      switch term.condition {
      case .text(let condition):
        let fields = condition.field.map { [$0] } ?? textFields
        let needle = Array(condition.needle.utf8)
        hit =
          fields.contains { field in
            SearchIndex.strings(of: item[field]).contains { string in
              Self.contains(Array(TextFolding.fold(string).utf8), needle)
                || (condition.matchesInitials
                  && TextFolding.initialConsonants(of: string).map {
                    Self.contains(Array($0.utf8), needle)
                  } == true)
            }
          }
          || (condition.field == nil
            && condition.number.map { number in
              numberFields.contains { SearchIndex.number(of: item[$0]) == number }
            } == true)
      case .number(let field, let predicate):
        hit = SearchIndex.number(of: item[field]).map(predicate.matches) ?? false
      case .category(let field, let value):
        hit = item[field]?.strings.first.map { TextFolding.fold($0) == value } ?? false
      }
      if hit == term.isNegated { return false }
    }
    return true
  }

  func tier(_ item: Item, _ needles: [String]) -> Int {
    guard !needles.isEmpty else { return 0 }
    let title = Array(TextFolding.fold(item[schema.titleField]?.strings.first ?? "").utf8)
    if title == Array(needles.joined(separator: " ").utf8) { return 0 }
    var wordStarts = true
    for needle in needles {
      let bytes = Array(needle.utf8)
      let starts = Self.offsets(title, bytes)
      if starts.isEmpty { return 3 }
      if !starts.contains(where: { $0 == 0 || Self.isBoundary(title[$0 - 1]) }) {
        wordStarts = false
      }
    }
    return wordStarts ? 1 : 2
  }

  static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    !offsets(haystack, needle).isEmpty
  }

  static func offsets(_ haystack: [UInt8], _ needle: [UInt8]) -> [Int] {
    guard !needle.isEmpty, needle.count <= haystack.count else { return [] }
    return (0...(haystack.count - needle.count)).filter {
      Array(haystack[$0..<$0 + needle.count]) == needle
    }
  }

  static func isBoundary(_ byte: UInt8) -> Bool {
    byte < 0x80 && !(byte >= 0x30 && byte <= 0x39) && !(byte >= 0x61 && byte <= 0x7A)
      && !(byte >= 0x41 && byte <= 0x5A)
  }
}
