extension SearchCatalog {
  /// Why `page`, the answer to `request`, is empty when the reason is a `category:` token whose
  /// value no item has; nil otherwise. Asked only of an empty page, and answered from the
  /// items as they are now, so a category an edit added is known at once (the schema's list of
  /// categories is the import's).
  public func unknownCategory(in request: SearchRequest, page: SearchPage)
    async throws(CatalogFailure) -> SearchRequestError?
  {
    guard page.indicator.matchCount == 0 else { return nil }
    for token in request.tokens {
      guard case .success(let term) = Query.term(forToken: token.identifier, schema: schema),
        !term.isNegated, case .category = term.condition,
        let alone = try? SearchRequest(
          SearchRequestInput(text: "", tokens: [token.identifier]), schema: schema)
      else { continue }
      let found = try await search(alone, page: PageRequest(offset: 0, limit: 0))
      if found.indicator.matchCount == 0 {
        let known = schema.suggestedTokens.compactMap { suggestion -> String? in
          guard suggestion.identifier.hasPrefix("category:") else { return nil }
          return String(suggestion.identifier.dropFirst("category:".count))
        }
        // A category no suggestion lists reads as its value, as typed (`SearchRequest`).
        return .unknownCategory(
          token.text, token: token.identifier, catalog: name, known: Array(known.prefix(3)))
      }
    }
    return nil
  }
}
