#if Server
import Sift

extension PostgresSearchResult {
  /// Near spellings always looked for: the page's items searched alone must match what the
  /// whole catalog's search matched when that search included near spellings.
  private static let nearSpellingsIncluded = TypoTolerance(threshold: Int.max)

  /// The page's items searched alone by the engine with the search's criteria: where the query
  /// matched them (highlights) and why they rank where they do, as the engine gives them on the
  /// whole catalog — an item's rank depends on it alone. nil for a schema the engine refuses.
  public func page(
    _ items: [Item], criteria: SearchCriteria, schema: CatalogSchema
  ) -> FilteredCollection? {
    let tolerance: TypoTolerance = includesNearSpellings ? Self.nearSpellingsIncluded : .off
    guard var page = try? FilteredCollection(schema: schema, items: items, typoTolerance: tolerance)
    else { return nil }
    page.filter(by: criteria)
    return page
  }

  /// Why the item with `id` is where it is, from `page(…)`, with its place in the catalog's
  /// order (not the page's).
  public func explanation(of id: ItemID, in page: FilteredCollection) -> MatchExplanation? {
    guard let row = page.row(of: id), var explanation = page.explanation(forRow: row) else {
      return nil
    }
    if let index = ids.firstIndex(of: id) { explanation.catalogOrder = catalogOrders[index] }
    return explanation
  }
}
#endif
