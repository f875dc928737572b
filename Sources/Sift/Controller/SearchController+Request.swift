/// A search asked for in words rather than keystrokes — a scope by its title, tokens by their
/// identifiers, the text — as `sift search` and `sift serve` receive it: one way to read it, so
/// the command line and HTTP give the same items for the same input.
public struct SearchRequestInput: Hashable, Sendable {
  public var text: String
  /// A scope-bar title, any case; nil for the first scope.
  public var scope: String?
  /// Token identifiers (`category:Chocolate`, `year:>=2010`), in order.
  public var tokens: [String]

  public init(text: String, scope: String? = nil, tokens: [String] = []) {
    self.text = text
    self.scope = scope
    self.tokens = tokens
  }
}

/// Why a `SearchRequestInput` cannot be searched; the description names the part at fault.
public enum SearchRequestError: Error, Hashable, Sendable, CustomStringConvertible {
  case unknownScope(String, catalog: String, scopes: [String])
  case invalidToken(String, catalog: String)

  public var description: String {
    switch self {
    case .unknownScope(let scope, let catalog, let scopes):
      let known =
        scopes.isEmpty ? "it has no scope bar" : "its scopes are \(scopes.joined(separator: ", "))"
      return "unknown scope \"\(scope)\" for catalog \(catalog): \(known)"
    case .invalidToken(let token, let catalog):
      return
        "invalid token \"\(token)\": not one filter of catalog \(catalog) (e.g. category:VALUE, FIELD:<NUMBER)"
    }
  }
}

extension SearchController {
  /// Activates the search and applies `input`: the scope, then the tokens (a suggested token
  /// keeps its display text and icon), then the text.
  ///
  /// - Throws: `SearchRequestError` for a scope the catalog does not have or a token that is
  ///   not one of its filters; the controller is then unchanged.
  public mutating func apply(_ input: SearchRequestInput) throws(SearchRequestError) {
    let schema = self.schema
    var scopeIndex = 0
    if let scope = input.scope {
      guard
        let index = schema.scopeTitles.firstIndex(where: { $0.lowercased() == scope.lowercased() })
      else {
        throw .unknownScope(scope, catalog: schema.name, scopes: schema.scopeTitles)
      }
      scopeIndex = index
    }
    for identifier in input.tokens {
      if case .failure = Query.term(forToken: identifier, schema: schema) {
        throw .invalidToken(identifier, catalog: schema.name)
      }
    }
    send(.activate)
    if input.scope != nil { send(.selectScope(scopeIndex)) }
    for (position, identifier) in input.tokens.enumerated() {
      let known = schema.suggestedTokens.first { $0.identifier == identifier }
      send(
        .insertToken(known ?? SearchToken(text: identifier, identifier: identifier), at: position))
    }
    send(.setText(input.text))
  }
}
