#if Server
import Sift

/// `GET /catalogs/NAME/search?q=…&scope=…&token=…&sort=…&near=LAT,LON&within=KM&within_box=S,W,N,E&distinct=FIELD&limit=…&offset=…&facets=1&explain=1&crop=N&after=VERSION`,
/// checked: every value has a bound, and one out of it is a 400 that names the parameter.
package struct SearchParameters: Sendable, Equatable {
  var input: SearchRequestInput
  var limit: Int
  var offset: Int
  var facets: Bool
  /// Each result says why it is where it is, as `sift search --explain` does.
  var explain: Bool
  /// The search is finished (`record=1`: the typing stopped, or Enter): a server that records
  /// searches counts it.
  var record: Bool
  /// Text values cut to this many words around their matches.
  var crop: Int?
  /// The answer shows at least this version of the catalog (an edit's, made through another
  /// node): the node waits for it, up to `afterPatience`.
  var after: Int64?

  /// How long a search waits for the version `after` names.
  static let afterPatience = Duration.seconds(2)

  /// Longest query text, in characters: far past what anyone types, short of what hurts.
  static let maximumQueryLength = 1_000
  static let maximumTokens = 32
  static let defaultLimit = 20
  static let maximumLimit = 1_000
  /// The deepest result a page may reach: `offset + limit`.
  static let resultWindow = 10_000
  /// The most alternatives (`a | b`, `a OR b`) a query may hold, in all its groups: each is a
  /// search of its own.
  static let maximumAlternatives = 32

  /// - Parameter textParameter: the parameter that holds the search's text: `q`, or `search`
  ///   where `q` is another text (`FacetParameters`).
  /// - Parameter vector: the query vector a `POST` body gave (`SearchBody`); a URL has none.
  init(
    _ query: QueryString, textParameter: String = "q", vector: [Float]? = nil
  ) throws(ServerError) {
    let text = query[textParameter] ?? ""
    guard text.count <= Self.maximumQueryLength else {
      throw .badRequest(
        "\(textParameter): \(text.count) characters, more than the \(Self.maximumQueryLength) a query may have"
      )
    }
    let tokens = query.all("token")
    guard tokens.count <= Self.maximumTokens else {
      throw .badRequest("token: \(tokens.count) tokens, more than \(Self.maximumTokens)")
    }
    guard tokens.allSatisfy({ $0.count <= Self.maximumQueryLength }) else {
      throw .badRequest("token: longer than \(Self.maximumQueryLength) characters")
    }
    let scope = query["scope"].flatMap { $0.isEmpty ? nil : $0 }
    if let scope, scope.count > Self.maximumQueryLength {
      throw .badRequest("scope: longer than \(Self.maximumQueryLength) characters")
    }
    var sort: SearchSort?
    if let text = query["sort"], !text.isEmpty {
      guard let parsed = SearchSort(parsing: text), text.count <= Self.maximumQueryLength else {
        throw .badRequest(
          "sort: \"\(text.prefix(40))\" is not FIELD, FIELD:asc or FIELD:desc")
      }
      sort = parsed
    }
    let distinct = query["distinct"].flatMap { $0.isEmpty ? nil : $0 }
    if let distinct, distinct.count > Self.maximumQueryLength {
      throw .badRequest("distinct: longer than \(Self.maximumQueryLength) characters")
    }
    input = SearchRequestInput(
      text: text, scope: scope, tokens: tokens, sort: sort, near: try Self.place(query),
      withinBox: try Self.box(query), distinct: distinct,
      vector: try Self.meaning(query, vector: vector))
    limit = try Self.number(query, "limit", default: Self.defaultLimit, in: 0...Self.maximumLimit)
    offset = try Self.number(query, "offset", default: 0, in: 0...Int(Int32.max))
    // Ranking reads every row before the page: a page this deep costs a whole catalog's
    // ranking, as many times as it is asked (Elasticsearch's max_result_window is the same).
    guard offset + limit <= Self.resultWindow else {
      throw .badRequest(
        "offset: \(offset) + limit \(limit) reach past result \(FieldValue.grouped(Double(Self.resultWindow))), the deepest a search pages to; narrow the search instead"
      )
    }
    facets = try Self.flag(query, "facets")
    explain = try Self.flag(query, "explain")
    record = try Self.flag(query, "record")
    crop =
      query["crop"] == nil
      ? nil : try Self.number(query, "crop", default: 0, in: 1...Self.maximumCrop)
    after =
      query["after"].flatMap { $0.isEmpty ? nil : $0 } == nil
      ? nil : Int64(try Self.number(query, "after", default: 0, in: 0...Int(Int64.max)))
  }

  /// `near=LAT,LON` and `within=KM`, each error under its parameter's name.
  private static func place(_ query: QueryString) throws(ServerError) -> SearchNear? {
    let within = query["within"].flatMap { $0.isEmpty ? nil : $0 }
    guard let near = query["near"], !near.isEmpty else {
      if within != nil { throw .badRequest("within: needs near=LAT,LON") }
      return nil
    }
    let point: GeoPoint
    do throws(GeoPointError) {
      point = try GeoPoint(parsing: String(near.prefix(Self.maximumQueryLength)))
    } catch {
      throw .badRequest("near: \(error)")
    }
    do throws(GeoPointError) {
      return SearchNear(point, withinKilometers: try within.map(SearchNear.kilometers(parsing:)))
    } catch {
      throw .badRequest("within: \(error)")
    }
  }

  /// `like=ID` or a body's `vector`, with `semantic_ratio=R` and `neighbors=N`: a search by
  /// meaning; nil with neither.
  private static func meaning(
    _ query: QueryString, vector: [Float]?
  ) throws(ServerError) -> SearchVector? {
    let like = query["like"].flatMap { $0.isEmpty ? nil : $0 }
    let ratioText = query["semantic_ratio"].flatMap { $0.isEmpty ? nil : $0 }
    let neighborsGiven = query["neighbors"].map { !$0.isEmpty } ?? false
    let source: SearchVector.Source
    switch (like, vector) {
    case (let like?, nil):
      guard like.count <= 200 else { throw .badRequest("like: an id is at most 200 characters") }
      source = .like(ItemID(like))
    case (nil, let vector?): source = .vector(vector)
    case (_?, _?): throw .badRequest("like: give either like or vector, not both")
    case (nil, nil):
      if ratioText != nil { throw .badRequest("semantic_ratio: needs vector or like") }
      if neighborsGiven { throw .badRequest("neighbors: needs vector or like") }
      return nil
    }
    var ratio = 0.5
    if let ratioText {
      guard let read = Double(ratioText), (0...1).contains(read) else {
        throw .badRequest(
          "semantic_ratio: \"\(ratioText.prefix(40))\" is not a number from 0 (the text alone) to 1 (meaning alone)"
        )
      }
      ratio = read
    }
    let neighbors = try number(
      query, "neighbors", default: SearchVector.defaultNeighbors,
      in: 1...SearchVector.maximumNeighbors)
    return SearchVector(source, semanticRatio: ratio, neighbors: neighbors)
  }

  /// `within_box=SOUTH,WEST,NORTH,EAST`; nil when absent or empty.
  private static func box(_ query: QueryString) throws(ServerError) -> GeoBox? {
    guard let text = query["within_box"], !text.isEmpty else { return nil }
    do throws(GeoBoxError) {
      return try GeoBox(parsing: String(text.prefix(Self.maximumQueryLength)))
    } catch {
      throw .badRequest("within_box: \(error)")
    }
  }

  /// The most words a snippet may keep: past it, ask for the item.
  static let maximumCrop = 1_000

  /// What the page asks of the search besides its criteria.
  var page: PageRequest {
    PageRequest(offset: offset, limit: limit, facets: facets, explain: explain, crop: crop)
  }

  private static func flag(_ query: QueryString, _ name: String) throws(ServerError) -> Bool {
    switch query[name] {
    case nil, "0", "false": return false
    case "1", "true": return true
    case let other?: throw .badRequest("\(name): \"\(other.prefix(40))\" is not 1 or 0")
    }
  }

  static func number(
    _ query: QueryString, _ name: String, default value: Int, in range: ClosedRange<Int>
  ) throws(ServerError) -> Int {
    guard let text = query[name] else { return value }
    guard let number = Int(text), range.contains(number) else {
      throw .badRequest(
        "\(name): \"\(text.prefix(40))\" is not a whole number from \(range.lowerBound) to \(range.upperBound)"
      )
    }
    return number
  }
}

/// `GET /catalogs/NAME/facets/FIELD?q=TEXT&limit=N`, with the search whose results are counted
/// as the search endpoint takes it, its text as `search=` (`token=`, `scope=`, `near=`,
/// `within_box=`…): the values of the category that match `q`, each with how many of those
/// results hold it.
package struct FacetParameters: Sendable, Equatable {
  /// What was typed for the value.
  var text: String
  var limit: Int
  /// The search whose results are counted.
  var search: SearchParameters

  static let defaultLimit = 10

  init(_ query: QueryString) throws(ServerError) {
    text = query["q"] ?? ""
    guard text.count <= SearchParameters.maximumQueryLength else {
      throw .badRequest(
        "q: \(text.count) characters, more than the \(SearchParameters.maximumQueryLength) a query may have"
      )
    }
    limit = try SearchParameters.number(
      query, "limit", default: Self.defaultLimit, in: 1...SearchParameters.maximumLimit)
    search = try SearchParameters(query, textParameter: "search")
  }
}
#endif
