/// Search within a category's values: for a category of thousands (countries, brands,
/// authors), the values whose name matches what was typed, with how many results of the
/// current search hold each — what a filter list's own search field shows, and what `#fra`
/// offers as tokens.
///
/// A value matches as a search does, folded ("cote" finds "Côte d'Ivoire"): when some word of
/// its name starts with the text (each typed word the start of a word, in order, for "united
/// sta"). Only when no value matches so does one within the typo budget of a search match
/// ("frnace" finds "France": one edit in a word of four to seven letters, two from eight; an
/// edit of the first letter counts twice).
public struct FacetValue: Hashable, Sendable {
  /// The value as the catalog spells it.
  public var value: String
  /// How many results of the current search hold it.
  public var count: Int

  public init(value: String, count: Int) {
    self.value = value
    self.count = count
  }
}

extension Facets {
  /// The categories with a result whose name matches `text` (folded; near spellings when none
  /// matches as written), most results first, ties by name; every category with a result for
  /// an empty text.
  ///
  /// - Parameters:
  ///   - text: what was typed for the value.
  ///   - schema: the catalog, for the values' spellings.
  ///   - limit: the most values to give.
  public func categories(
    matching text: String, schema: CatalogSchema, limit: Int = .max
  ) -> [FacetValue] {
    let named = namedCategories(schema: schema).map { FacetValue(value: $0.value, count: $0.count) }
    let matcher = FacetValueMatcher(text)
    return Array(matcher.filter(named, name: \.value).prefix(max(0, limit)))
  }
}

extension CatalogSchema {
  /// Why `name` cannot be searched as a category's values — "not a category of catalog
  /// products; its category is type" — or nil when it names the category field.
  public func categoryProblem(named name: String) -> String? {
    guard let categoryField else {
      return "not a category of catalog \(self.name); it has no category"
    }
    guard field(named: name)?.name == categoryField else {
      return "not a category of catalog \(self.name); its category is \(categoryField)"
    }
    return nil
  }
}

extension SearchCatalog {
  /// The category's values that match `text`, with how many results of `request` hold each
  /// (`Facets.categories(matching:schema:limit:)`), and how many results it has: what
  /// `sift facets` prints and `GET /catalogs/NAME/facets/FIELD` answers.
  public func categoryValues(
    matching text: String, in request: SearchRequest, limit: Int
  ) async throws(CatalogFailure) -> (values: [FacetValue], matched: Int) {
    let page = try await search(request, page: PageRequest(limit: 0, facets: true))
    let values = (page.facets ?? Facets(scopes: [], categories: [:])).categories(
      matching: text, schema: schema, limit: limit)
    return (values, page.indicator.matchCount)
  }
}

/// The rule `Facets.categories(matching:schema:limit:)` and token suggestions share: which
/// names match what was typed, as written or else within the typo budget.
struct FacetValueMatcher {
  /// The typed words, folded.
  private let words: [[UInt8]]

  init(_ text: String) { words = Self.words(of: TextFolding.fold(text)) }

  /// Whether nothing was typed: every name matches.
  var isEmpty: Bool { words.isEmpty }

  /// `candidates` whose `name` matches as written; when none does, those within the budget. In
  /// the order given.
  func filter<Candidate>(
    _ candidates: [Candidate], name: (Candidate) -> String
  ) -> [Candidate] {
    guard !isEmpty else { return candidates }
    let folded = candidates.map { Self.words(of: TextFolding.fold(name($0))) }
    let exact = candidates.indices.filter { matches(folded[$0], nearSpellings: false) }
    if !exact.isEmpty { return exact.map { candidates[$0] } }
    return candidates.indices.filter { matches(folded[$0], nearSpellings: true) }.map {
      candidates[$0]
    }
  }

  /// Whether each typed word starts a word of `name` (its words, folded), in order: exactly,
  /// or within its budget.
  func matches(_ name: [[UInt8]], nearSpellings: Bool) -> Bool {
    var next = 0
    for word in words {
      guard
        let found = name[next...].firstIndex(where: {
          Self.starts($0, with: word, nearSpellings: nearSpellings)
        })
      else { return false }
      next = found + 1
    }
    return true
  }

  /// Whether `word` (of the name) starts with `typed`, or within `typed`'s budget of it.
  private static func starts(_ word: [UInt8], with typed: [UInt8], nearSpellings: Bool) -> Bool {
    if word.starts(with: typed) { return true }
    guard nearSpellings else { return false }
    let letters = NearSpelling.scalars(typed)
    let budget = TypoTolerance.budget(letters: letters.count)
    guard budget > 0, letters.count <= 64 else { return false }
    var rows = NearSpelling.Rows(term: letters, budget: budget)
    return word.withUnsafeBufferPointer { NearSpelling.bestPrefix(of: $0, rows: &rows) != nil }
  }

  /// The words of folded text.
  static func words(of folded: String) -> [[UInt8]] {
    let bytes = Array(folded.utf8)
    var words: [[UInt8]] = []
    bytes.withUnsafeBufferPointer { bytes in
      NearSpelling.forEachWord(in: bytes, range: 0..<bytes.count) { words.append(Array(bytes[$0])) }
    }
    return words
  }
}
