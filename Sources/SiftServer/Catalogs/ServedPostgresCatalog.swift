#if Server
import HTTPTypes
import Sift
import SiftPostgres

/// A catalog kept in PostgreSQL, served: every search is compiled to SQL and every edit is
/// written in its own transaction, so each server in front of the database answers with the
/// edits any of them made, on the next search. Nothing is cached between requests.
///
/// While the database is out of reach (a restart) requests get 503 with the reason; the next
/// request after it is back connects again.
package final class ServedPostgresCatalog: CatalogEndpoint {
  package let name: String
  let catalog: PostgresCatalog
  /// Turns items into answers where no search is in force: fields, no highlights.
  private let plain: FilteredCollection

  package init(name: String, catalog: PostgresCatalog) throws(ServerError) {
    self.name = name
    self.catalog = catalog
    do {
      plain = try FilteredCollection(schema: catalog.schema)
    } catch {
      throw ServerError(.internalServerError, "catalog \(name): \(error)")
    }
  }

  package var schema: CatalogSchema { catalog.schema }

  package func itemCount() async throws(ServerError) -> Int {
    try await answering { () async throws(PostgresError) in try await catalog.count() }
  }

  package func search(_ parameters: SearchParameters) async throws(ServerError) -> JSONValue {
    let input: SearchRequest
    do {
      input = try SearchRequest(parameters.input, schema: catalog.schema)
    } catch {
      throw .refused(error, catalog: name)
    }
    let catalog = self.catalog
    let (result, items, facets, didYouMean) = try await answering {
      () async throws(PostgresError) in
      let result = try await catalog.search(
        input, limit: parameters.limit, offset: parameters.offset)
      let items = try await catalog.items(result.ids)
      let facets =
        parameters.facets
        ? try await catalog.facets(input, matchCount: result.indicator.matchCount) : nil
      let didYouMean = try await catalog.spellingSuggestion(
        for: input, indicator: result.indicator)
      return (result, items, facets, didYouMean)
    }
    let results = answers(
      items, of: result, criteria: input.criteria, explain: parameters.explain)
    return SearchResponse.json(
      catalog: name, indicator: result.indicator, offset: parameters.offset, results: results,
      suggestions: input.suggestions, diagnostics: result.diagnostics,
      facets: facets?.json(schema: schema), didYouMean: didYouMean)
  }

  /// The page's results, with highlights and explanations from the page searched alone.
  private func answers(
    _ items: [Item], of result: PostgresSearchResult, criteria: SearchCriteria, explain: Bool
  ) -> [JSONValue] {
    guard let page = result.page(items, criteria: criteria, schema: schema) else {
      return items.map {
        ResultItem.json($0, collection: plain, listValues: ResultItem.listValuesOnAPage)
      }
    }
    return items.map { item in
      ResultItem.json(
        item, collection: page,
        explanation: explain ? result.explanation(of: item.id, in: page) : nil,
        listValues: ResultItem.listValuesOnAPage)
    }
  }

  package func itemAnswer(_ id: ItemID) async throws(ServerError) -> JSONValue {
    let catalog = self.catalog
    let found = try await answering { () async throws(PostgresError) in
      try await catalog.items([id]).first
    }
    guard let found else {
      throw .notFound("no item \"\(id.rawValue.prefix(100))\" in catalog \(name)")
    }
    return ResultItem.json(found, collection: plain)
  }

  package func commit(_ edit: CatalogEdit) async throws(ServerError) -> ItemID {
    let catalog = self.catalog
    let saved = try await answering(unsaved: true) { () async throws(PostgresError) -> ItemID? in
      try await catalog.commit(edit)
    }
    if let saved { return saved }
    if case .add(let id?, _) = edit {
      throw ServerError(
        .conflict, "id: catalog \(name) has an item \"\(id.rawValue.prefix(100))\" already")
    }
    throw .notFound("no item \"\(edit.id?.rawValue.prefix(100) ?? "")\" in catalog \(name)")
  }

  /// Runs `work` against the database: out of reach is a 503 (the request may be retried),
  /// a value it cannot hold a 400, anything else it refused a 500 naming the catalog.
  private func answering<Result: Sendable>(
    unsaved: Bool = false, _ work: () async throws(PostgresError) -> Result
  ) async throws(ServerError) -> Result {
    do {
      return try await work()
    } catch {
      let what = unsaved ? "the edit was not saved: " : ""
      let status: HTTPResponse.Status =
        switch error {
        case .unavailable: .serviceUnavailable
        // What the database cannot hold (a NUL in a value): the request's fault.
        case .unsupported: .badRequest
        default: .internalServerError
        }
      throw ServerError(status, what + "\(error)")
    }
  }
}
#endif
