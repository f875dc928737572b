#if Server
import Sift

extension PostgresCatalog {
  /// "Did you mean": when `input` found nothing, the catalog word nearest its last word — the
  /// app's `SearchController.spellingSuggestion`, looked up in the word dictionary.
  public func spellingSuggestion(
    for input: SearchRequest, indicator: ResultsIndicator
  ) async throws(PostgresError) -> String? {
    guard let last = SearchController.spellingTerm(text: input.text, indicator: indicator)
    else { return nil }
    let suggestion = try await nearestCatalogWord(to: last)
    return suggestion == TextFolding.fold(last) ? nil : suggestion
  }

  /// The engine's `nearestCatalogWord(to:)`: fewest edits, then the word most items hold in one
  /// searchable field; ties go to the earlier field, then the word first in byte order.
  public func nearestCatalogWord(to term: String) async throws(PostgresError) -> String? {
    guard let typo = TypoTolerance.nearSpellingTerm(word: term) else { return nil }
    let near = try await nearSpellings(typo)
    let columns = layout.textFields.indices.filter { layout.textFields[$0].isSearchable }
    // Cheapest first; a word no item holds any more (the dictionary keeps deleted items'
    // words) is passed over for the next cost.
    for cost in Set(near.map(\.cost)).sorted() {
      let words = near.filter { $0.cost == cost }.map(\.word).sorted {
        Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
      }
      var best: (items: Int, word: String)?
      for column in columns {
        let counts = Dictionary(
          uniqueKeysWithValues: try await link.rows(
            """
            SELECT word, count(*) FROM \(table), unnest(w\(column)) AS word
            WHERE w\(column) && $1::text[] AND word = ANY($1::text[]) GROUP BY word
            """, [.texts(words)], as: (String, Int).self))
        for word in words {
          let items = counts[word, default: 0]
          if items > 0, items > best?.items ?? 0 { best = (items, word) }
        }
      }
      if let best { return best.word }
    }
    return nil
  }
}
#endif
