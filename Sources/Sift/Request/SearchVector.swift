/// A search by meaning: the items whose vectors (`CatalogSchema.vector`) are nearest a query
/// vector, or nearest another item's — alone, or with text in one ranking that fuses the text
/// rules' order with nearness (`semanticRatio`).
///
/// Filters come first: tokens, the scope, a tenant's rows, an area and a radius keep items
/// before the nearest are chosen, so a filter never empties a page of neighbours.
public struct SearchVector: Hashable, Sendable {
  /// Where the query vector comes from.
  public enum Source: Hashable, Sendable {
    /// A vector of the catalog's length (an embedding of what the searcher typed or picked).
    case vector([Float])
    /// The vector of the item with this id: items like it, itself first.
    case like(ItemID)
  }

  public var source: Source
  /// How much nearness weighs against the text rules' order when there is text: 0 is the text
  /// alone, 1 nearness alone, 0.5 (the default) both alike. Without text, nearness orders.
  public var semanticRatio: Double
  /// How many nearest items the search finds (with text, these join the text's matches).
  public var neighbors: Int

  /// The nearest items a search finds unless told otherwise.
  public static let defaultNeighbors = 100
  /// The most nearest items a search may ask for.
  public static let maximumNeighbors = 10_000

  public init(
    _ source: Source, semanticRatio: Double = 0.5, neighbors: Int = SearchVector.defaultNeighbors
  ) {
    self.source = source
    self.semanticRatio = semanticRatio
    self.neighbors = neighbors
  }

  /// The first thing wrong with it for `schema`, if any: a catalog without vectors, a vector
  /// of another length or with a number past a float's range, a ratio outside 0…1, a count of
  /// neighbours outside 1…`maximumNeighbors`.
  public func problem(for schema: CatalogSchema) -> SearchRequestError? {
    guard let field = schema.vector else { return .noVectors(catalog: schema.name) }
    if case .vector(let floats) = source {
      if case .failure(let problem) = field.vector(in: .vector(floats)) {
        return .invalidVector(problem)
      }
    }
    guard (0...1).contains(semanticRatio) else { return .invalidSemanticRatio(semanticRatio) }
    guard (1...Self.maximumNeighbors).contains(neighbors) else {
      return .invalidNeighbors(neighbors)
    }
    return nil
  }
}
