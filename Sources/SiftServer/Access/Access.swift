#if Server
import Foundation
import Hummingbird
import Sift

/// Who a request comes from, read once from its `Authorization` header, and what that lets it
/// do: the route asks (`SiftServer.searchFilters`, `authorizeEdit`, `authorizeAdmin`).
enum Access: Sendable {
  /// No `Authorization` header.
  case anonymous
  /// The token of `--token-file`: everything, keys included.
  case admin
  case key(APIKey)
  /// A tenant token, and the key that signed it.
  case tenant(TenantToken, key: APIKey)

  /// The key whose rate a request counts against.
  var key: APIKey? {
    switch self {
    case .key(let key), .tenant(_, let key): key
    case .anonymous, .admin: nil
    }
  }
}

/// What a tenant token forces on every search of one catalog: its filters, read against the
/// catalog's schema.
struct ForcedFilters: Sendable {
  /// The token identifiers, as the token carries them.
  var identifiers: [String]
  var terms: [QueryTerm]

  /// Whether `item` holds every filter: what decides that `GET …/items/ID` may show it.
  func admits(_ item: Item) -> Bool {
    terms.allSatisfy { term in
      let holds: Bool
      switch term.condition {
      case .category(let field, let value):
        holds = item[field]?.strings.contains { TextFolding.fold($0) == value } ?? false
      case .number(let field, let predicate):
        holds = item[field]?.number.map(predicate.matches) ?? false
      case .text, .either:
        holds = false
      }
      return holds != term.isNegated
    }
  }
}

extension SiftServer {
  /// Reads the `Authorization` header: none, the admin token, a key or a tenant token. A key
  /// or token that is not valid is a 401 even where none is needed, so that a client hears of
  /// it rather than seeing what anyone sees. Counts the request against its key's rate.
  func access(_ request: Request) throws(ServerError) -> Access {
    // A server without an admin token or keys opens nothing to anyone: what a request carries
    // does not matter (an edit hears that the server is read-only).
    guard let header = request.headers[.authorization], !isReadOnly else { return .anonymous }
    guard let given = Self.bearerToken(header) else {
      throw ServerError(.unauthorized, "Authorization: expected Bearer KEY")
    }
    if let writeToken, Self.constantTimeEqual(given, writeToken) { return .admin }
    let now = clock()
    let access: Access
    if let keys, TenantToken.looksLikeToken(given) {
      do throws(TenantTokenError) {
        let (token, key) = try verifiedTokens.verified(given, keys: keys, now: now)
        access = .tenant(token, key: key)
      } catch {
        throw ServerError(.unauthorized, "Authorization: tenant token: \(error)")
      }
    } else if let key = keys?.key(secret: given) {
      if key.isExpired(at: now), let expires = key.expires {
        throw ServerError(
          .unauthorized, "Authorization: key \(key.id) expired at \(KeyRequest.dateText(expires))")
      }
      access = .key(key)
    } else {
      throw ServerError(
        .unauthorized, "Authorization: a Bearer token that this server accepts is required")
    }
    // Each tenant token has a bucket of its own (named by its signature), so that one tenant
    // cannot spend every other tenant's requests, nor its key's.
    let bucket: String? =
      switch access {
      case .tenant(_, let key):
        key.id + " tenant " + (given.split(separator: ".").last.map(String.init) ?? "")
      default: access.key?.id
      }
    if let key = access.key, let bucket, let limit = key.requestsPerMinute ?? rateLimit,
      let wait = rates.take(bucket, perMinute: limit, now: now)
    {
      throw ServerError.tooManyRequests(key: key.id, limit: limit, retryAfter: wait)
    }
    return access
  }

  /// No admin token and no key: nothing can edit, and nothing a request carries matters.
  var isReadOnly: Bool { writeToken == nil && (keys?.isEmpty ?? true) }

  /// What a search of `catalog` by `access` must add: nil for none; the tenant token's filters.
  /// Refuses what `access` may not search: a private server without a key, a key or tenant token
  /// for other catalogs.
  func searchFilters(
    _ access: Access, catalog: any SearchCatalog
  ) throws(ServerError) -> ForcedFilters? {
    switch access {
    case .anonymous:
      if isPrivate {
        throw ServerError(
          .unauthorized,
          "Authorization: this server is private: searching needs a key (Authorization: Bearer KEY)"
        )
      }
      return nil
    case .admin:
      return nil
    case .key(let key):
      guard key.allows(.search, catalog: catalog.name) else {
        throw ServerError(.forbidden, "key \(key.id) may not search catalog \(catalog.name)")
      }
      return nil
    case .tenant(let token, _):
      guard let identifiers = token.filters[catalog.name] else {
        throw ServerError(.forbidden, "this tenant token may not search catalog \(catalog.name)")
      }
      switch TenantToken.terms(identifiers, schema: catalog.schema) {
      case .success(let terms): return ForcedFilters(identifiers: identifiers, terms: terms)
      case .failure(let error):
        throw ServerError(.forbidden, "Authorization: tenant token: \(error)")
      }
    }
  }

  /// Refuses an edit of `catalog` that `access` may not make.
  func authorizeEdit(_ access: Access, catalog: String) throws(ServerError) {
    switch access {
    case .admin: return
    case .key(let key):
      guard key.allows(.edit, catalog: catalog) else {
        throw ServerError(.forbidden, "key \(key.id) may not edit catalog \(catalog)")
      }
    case .tenant:
      throw ServerError(.forbidden, "a tenant token only searches; edits need a key")
    case .anonymous:
      guard !isReadOnly else {
        throw ServerError(
          .forbidden,
          "this server is read-only: start it with --token-file, or make an edit key (sift keys create), to allow edits"
        )
      }
      throw ServerError(
        .unauthorized, "Authorization: a Bearer token that this server accepts is required")
    }
  }

  /// The catalog the request's path names, once its caller is known to be allowed to edit it.
  func editable(_ context: SiftRequestContext) throws(ServerError) -> any SearchCatalog {
    let catalog = try context.catalog()
    try authorizeEdit(context.access, catalog: catalog.name)
    return catalog
  }

  /// Refuses what only an admin may do: keys, and the metrics of a private server.
  func authorizeAdmin(_ access: Access) throws(ServerError) {
    switch access {
    case .admin: return
    case .key(let key) where key.allows(.admin, catalog: nil): return
    case .key(let key):
      throw ServerError(.forbidden, "key \(key.id) is not an admin key")
    case .tenant:
      throw ServerError(.forbidden, "a tenant token only searches")
    case .anonymous:
      throw ServerError(
        .unauthorized, "Authorization: the admin key (the token of --token-file) is required")
    }
  }
}
#endif
