#if Server
import Hummingbird
import Sift

/// What the searches answer, as JSON: one catalog's page, several catalogs' at once, a
/// category's values, recorded searches to suggest, and what each catalog offers.
extension SiftServer {
  /// One catalog's answer to a search: its page, indicator, suggestions and (asked) facets as
  /// JSON, and how many items matched (what a recorded search's "found" reads). `forced`: a
  /// tenant token's filters, searched as the request's base filter — the catalog answers as if
  /// it held only the tenant's rows (`SearchCriteria.base`).
  static func searchAnswer(
    _ catalog: any SearchCatalog, _ parameters: SearchParameters, forced: ForcedFilters? = nil
  ) async throws(ServerError) -> (json: JSONValue, matched: Int) {
    let request = try Self.request(parameters.input, catalog: catalog, forced: forced)
    if forced == nil, case .like(let id)? = request.vector?.source {
      // Said to who may see every item; a tenant asking of one outside its rows finds nothing,
      // as it would were the item not there.
      try await Self.checkLike(id, in: catalog)
    }
    let page = try await answering { () async throws(CatalogFailure) in
      try await catalog.search(request, page: parameters.page)
    }
    if let unknown = page.unknownCategory, forced == nil {
      throw ServerError.refused(unknown, catalog: catalog.name)
    }
    // A tenant's scope buttons: those its rows hold, counted by the same search.
    let json = SearchResponse.json(
      catalog: catalog.name, page: page, schema: catalog.schema, tokens: request.tokens,
      sort: request.sort, distinct: request.distinct, scopeTitles: page.heldScopes.map(Set.init))
    return (json, page.indicator.matchCount)
  }

  /// `like=ID` names an item of `catalog` that has a vector: a 400 that says which is not so.
  static func checkLike(_ id: ItemID, in catalog: any SearchCatalog) async throws(ServerError) {
    let problem = try await answering { () async throws(CatalogFailure) in
      try await catalog.likeProblem(id)
    }
    if let problem { throw .badRequest("like: \(problem)") }
  }

  /// `input` read against `catalog`, a tenant's filters as its base; a refusal names the
  /// parameter at fault.
  static func request(
    _ input: SearchRequestInput, catalog: any SearchCatalog, forced: ForcedFilters?
  ) throws(ServerError) -> SearchRequest {
    // Each alternative is a search of its own: a query of hundreds is hundreds of searches.
    let alternatives = Query(parsing: input.text, schema: catalog.schema).terms.reduce(0) {
      if case .either(let groups) = $1.condition { return $0 + groups.count }
      return $0
    }
    guard alternatives <= SearchParameters.maximumAlternatives else {
      throw ServerError.badRequest(
        "q: \(alternatives) alternatives (| or OR), more than the \(SearchParameters.maximumAlternatives) a search may have"
      )
    }
    do throws(SearchRequestError) {
      var input = input
      input.base = forced?.identifiers ?? []
      return try SearchRequest(input, schema: catalog.schema)
    } catch {
      var meaning = "vector"
      if case .like? = input.vector?.source { meaning = "like" }
      throw ServerError.refused(
        error, catalog: catalog.name, place: input.near == nil ? "within_box" : "near",
        meaning: meaning)
    }
  }

  /// Counts a finished search (`record=1`: the page says so once the typing stops), whether
  /// it found anything, in the searcher's frame — when the server records searches.
  func recordIfFinished(
    _ parameters: SearchParameters, found: Bool, forced: ForcedFilters?, access: Access,
    in catalog: any SearchCatalog
  ) async {
    guard recordsSearches, parameters.record, !parameters.input.text.isEmpty else { return }
    var anonymous = false
    if case .anonymous = access { anonymous = true }
    try? await recorder.record(
      parameters.input.text, found: found, tenant: Self.frame(forced), anonymous: anonymous,
      in: catalog)
  }

  /// The frame a search is recorded in: a tenant's filters, or empty for everyone else (as
  /// `SearchCatalog.suggestions(from:startingWith:base:limit:)` reads it).
  static func frame(_ forced: ForcedFilters?) -> String {
    forced?.identifiers.joined(separator: " & ") ?? ""
  }

  /// `GET /catalogs/NAME/suggestions?q=PREFIX`: the searches of the caller's frame that start
  /// with `prefix` (`SearchHistory.suggestions`) and still find something now, most made
  /// first; with `withFailed`, those that found nothing too.
  func suggestionsAnswer(
    _ catalog: any SearchCatalog, prefix: String, limit: Int, forced: ForcedFilters?,
    withFailed: Bool
  ) async throws(ServerError) -> JSONValue {
    let history = try await Self.answering { () async throws(CatalogFailure) in
      try await recorder.history(of: catalog)
    }
    let frame = Self.frame(forced)
    let suggested = try await Self.answering { () async throws(CatalogFailure) in
      try await catalog.suggestions(
        from: history, startingWith: prefix, base: forced?.identifiers ?? [], limit: limit)
    }
    func json(_ entries: [SearchHistory.Entry]) -> JSONValue { .array(entries.map(\.json)) }
    var members: [(String, JSONValue)] = [
      ("catalog", .string(catalog.name)), ("suggestions", json(suggested)),
    ]
    if withFailed { members.append(("found_nothing", json(history.failed(tenant: frame)))) }
    return .object(sorting: members)
  }

  /// `GET /catalogs/NAME/facets/FIELD?q=…`: the values of the category `field` that match
  /// `q`, with how many results of the search the parameters describe hold each
  /// (`Facets.categories(matching:schema:limit:)`). A tenant counts only its rows.
  static func facetAnswer(
    _ catalog: any SearchCatalog, field: String, _ parameters: FacetParameters,
    forced: ForcedFilters? = nil
  ) async throws(ServerError) -> JSONValue {
    let schema = catalog.schema
    if let problem = schema.categoryProblem(named: field) {
      throw .badRequest("facets/\(field.prefix(40)): \(problem)")
    }
    let request = try Self.request(parameters.search.input, catalog: catalog, forced: forced)
    let (values, matched) = try await answering { () async throws(CatalogFailure) in
      try await catalog.categoryValues(
        matching: parameters.text, in: request, limit: parameters.limit)
    }
    return .object(sorting: [
      ("catalog", .string(catalog.name)), ("field", .string(schema.categoryField ?? field)),
      ("matched", .number(Double(matched))),
      (
        "values",
        .array(
          values.map {
            .object(sorting: [("value", .string($0.value)), ("count", .number(Double($0.count)))])
          })
      ),
    ])
  }

  /// `GET /search?catalog=a&catalog=b&q=…`: each catalog's answer under its name, searched at
  /// once; the first refusal (a scope or token one of them lacks) is the answer, its message
  /// naming that catalog.
  static func searchAnswers(
    _ chosen: [(any SearchCatalog, ForcedFilters?)], _ parameters: SearchParameters
  ) async throws(ServerError) -> JSONValue {
    // Each task answers with the name of the catalog it searched, and answers are filed under
    // that name: never under a position that only the order of the tasks ties to a catalog
    // (a release build once filed products' answer under candies and back, one time in three).
    let answers = await withTaskGroup(of: (String, Result<JSONValue, ServerError>).self) {
      group in
      for index in chosen.indices {
        let catalog = chosen[index].0
        let forced = chosen[index].1
        group.addTask {
          do throws(ServerError) {
            return (
              catalog.name,
              .success(try await searchAnswer(catalog, parameters, forced: forced).json)
            )
          } catch {
            return (catalog.name, .failure(error))
          }
        }
      }
      var answers: [String: Result<JSONValue, ServerError>] = [:]
      for await (name, answer) in group { answers[name] = answer }
      return answers
    }
    var members: [(String, JSONValue)] = []
    for (catalog, _) in chosen {
      switch answers[catalog.name] {
      case .success(let json)?: members.append((catalog.name, json))
      case .failure(let error)?:
        throw ServerError(error.status, "catalog \(catalog.name): " + error.message)
      case nil:
        throw ServerError(.internalServerError, "catalog \(catalog.name): no answer")
      }
    }
    return .object(sorting: [("catalogs", .object(sorting: members))])
  }

  /// Waits until `catalog` shows `version` (a search's `after`); 503 naming where it is when it
  /// does not within `SearchParameters.afterPatience`.
  static func reach(_ version: Int64?, _ catalog: any SearchCatalog) async throws(ServerError) {
    guard let version else { return }
    try await answering { () async throws(CatalogFailure) in
      try await catalog.reach(version, within: SearchParameters.afterPatience)
    }
  }

  /// `GET /catalogs`: each catalog's name, title, title field, fields, scopes, token kinds, the
  /// fields it sorts by, ranking field and item count (a tenant's: its rows).
  static func catalogList(
    _ served: [(any SearchCatalog, ForcedFilters?)]
  ) async throws(ServerError) -> JSONValue {
    var entries: [JSONValue] = []
    for (catalog, forced) in served {
      let schema = catalog.schema
      // The searched fields, then the stored ones (`"stored": true`: shown, not searched).
      let stored = Set(schema.storedFields.map(\.name))
      let fields = schema.allFields.map { field -> JSONValue in
        .object(
          sorting: [
            ("name", .string(field.name)), ("label", .string(field.label)),
            ("kind", .string("\(field.kind)")), ("searchable", .bool(field.isSearchable)),
          ] + (stored.contains(field.name) ? [("stored", .bool(true))] : [])
            + (field.decimals.map { [("decimals", .number(Double($0)))] } ?? []))
      }
      let tokenKinds = Set(
        schema.suggestedTokens.map {
          $0.identifier.split(separator: ":").first.map(String.init) ?? ""
        })
      // A tenant sees its rows' count and the scope buttons of its own categories only.
      var tenant: (count: Int, scopes: [String])?
      if let forced { tenant = try await tenantView(of: catalog, forced: forced) }
      let scopes = tenant?.scopes ?? schema.scopeTitles
      let count: Int
      if let tenant { count = tenant.count } else { count = try await Self.count(of: catalog) }
      var members: [(String, JSONValue)] = [
        ("name", .string(catalog.name)), ("title", .string(schema.title)),
        ("titleField", .string(schema.titleField)), ("fields", .array(fields)),
        ("scopes", .strings(scopes)),
        ("tokenKinds", .strings(tokenKinds.sorted())),
        // What `sort=` takes: a page's sort menu.
        ("sortable", .strings(schema.sortableFields.map(\.name))),
        ("items", .number(Double(count))),
        // The catalog's version this server shows: what `after=` waits for.
        ("version", .number(Double(catalog.version))),
      ]
      if let ranking = schema.rankingField {
        members.append(("rankingField", .string(ranking.field)))
      }
      // What `near=` measures from: the catalog's latitude and longitude fields.
      if let location = schema.location {
        members.append(
          (
            "location",
            .object([
              ("latitude", .string(location.latitude)), ("longitude", .string(location.longitude)),
            ])
          ))
      }
      // What `like=` and a body's `vector` search: the field and the length a vector has.
      if let vector = schema.vector {
        members.append(
          (
            "vector",
            .object([
              ("field", .string(vector.field)), ("dimensions", .number(Double(vector.dimensions))),
            ])
          ))
      }
      entries.append(.object(sorting: members))
    }
    return .object([("catalogs", .array(entries))])
  }
}
#endif
