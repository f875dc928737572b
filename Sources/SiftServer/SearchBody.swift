#if Server
import Foundation
import Sift

/// The JSON body of `POST /catalogs/NAME/search`: what `GET …/search` takes in its URL, as
/// members (`{"q": "red", "token": ["category:Fruit"], "limit": 10}`), and the one thing a URL
/// cannot hold well, a query vector (`"vector": [0.12, -0.5, …]`) — a search by meaning, as
/// peers take it. A member the search does not take, or of the wrong kind, is a 400 that names
/// it.
struct SearchBody: Sendable {
  var parameters: SearchParameters

  /// A body past this size is refused (413): a vector of 8,192 numbers written long fits.
  static let maximumBytes = 256 * 1024

  /// The members a body may give besides `vector`, as `SearchParameters` reads them.
  static let members: Set<String> = [
    "q", "scope", "token", "sort", "near", "within", "within_box", "distinct", "limit",
    "offset", "facets", "explain", "record", "crop", "after", "like", "semantic_ratio",
    "neighbors",
  ]

  init(_ data: Data) throws(ServerError) {
    let members = try ItemBody.members(of: data, what: "search parameters")
    var pairs: [(name: String, value: String)] = []
    var vector: [Float]?
    for (name, value) in members {
      if name == "vector" {
        switch VectorField.floats(in: FieldValue(json: value)) {
        case .success(let floats): vector = floats
        case .failure(let problem): throw .badRequest("vector: the query vector \(problem)")
        }
        continue
      }
      guard Self.members.contains(name) else {
        let known = (Self.members.sorted() + ["vector"]).joined(separator: ", ")
        throw .badRequest("\(name.prefix(100)): not a search parameter (\(known))")
      }
      switch value {
      case .string(let text): pairs.append((name, text))
      case .number(let number): pairs.append((name, FieldValue.format(number)))
      case .bool(let flag): pairs.append((name, flag ? "1" : "0"))
      case .null: continue
      case .strings(let texts) where name == "token": pairs += texts.map { (name, $0) }
      case .array(let values) where name == "token" && values.isEmpty: continue
      default:
        throw .badRequest(
          "\(name): \(name == "token" ? "a string or a list of strings" : "a string, a number or a boolean")"
        )
      }
    }
    parameters = try SearchParameters(QueryString(pairs: pairs), vector: vector)
  }
}
#endif
