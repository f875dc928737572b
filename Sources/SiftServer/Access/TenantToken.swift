#if Server
import Crypto
import Foundation
import Sift

/// A tenant token: what a shop's backend hands a browser so that it can search some catalogs,
/// each with filters it cannot remove (`seller:42`), until a time — without a round trip to
/// the server to make it. A JSON Web Token (RFC 7519) signed with HMAC-SHA256:
///
///     header   {"alg": "HS256", "typ": "JWT"}
///     payload  {"key": "KEY_ID", "exp": 1798761600,
///               "catalogs": {"products": {"filter": ["seller:42"]}}}
///
/// signed with the key's signing secret, the hex HMAC-SHA256 of the text `sift tenant token`
/// keyed by the key (`signingSecret(of:)`), so the server checks it without keeping the key.
/// The key must be able to search every catalog the token names; revoking the key revokes
/// its tokens. A filter is a token identifier of the catalog that names a category or a number
/// (`category:Chocolate`, `seller:42`, `year:>=2010`, `-category:Hidden`): exact conditions, never
/// text that might match by prefix or typo.
public struct TenantToken: Sendable, Equatable {
  /// The id of the key that signed it.
  public var keyID: String
  /// Each catalog it may search, with the filters every search of it gets.
  public var filters: [String: [String]]
  public var expires: Date

  public init(keyID: String, filters: [String: [String]], expires: Date) {
    self.keyID = keyID
    self.filters = filters
    self.expires = expires
  }

  /// What the server checks a token made from `key` with.
  public static func signingSecret(of key: String) -> String {
    let code = HMAC<SHA256>.authenticationCode(
      for: Data("sift tenant token".utf8), using: SymmetricKey(data: Data(key.utf8)))
    return APIKey.hex(code)
  }

  /// The token, signed with the key `key` (the secret `POST /keys` gave).
  public func signed(withKey key: String) -> String {
    let header = Self.base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    let catalogs = filters.map { name, filters in
      (name, JSONValue.object([("filter", .strings(filters))]))
    }
    let payload = JSONValue.object(sorting: [
      ("key", .string(keyID)), ("exp", .number(expires.timeIntervalSince1970.rounded(.down))),
      ("catalogs", .object(sorting: catalogs)),
    ])
    let signed = header + "." + Self.base64URL(Data(payload.bytes))
    return signed + "." + Self.signature(signed, secret: Self.signingSecret(of: key))
  }

  /// The members a token's payload may have: its own, and JWT's registered claims.
  static let payloadMembers: Set<String> = [
    "key", "exp", "catalogs", "iat", "nbf", "iss", "sub", "aud", "jti",
  ]

  /// Whether `text` has the shape of a token (three base64url parts), not of a key.
  static func looksLikeToken(_ text: String) -> Bool {
    text.split(separator: ".", omittingEmptySubsequences: false).count == 3
  }

  /// Reads and checks `text` against the keys in `store` at `now`: the signature of a key
  /// that may still search what the token names, an expiry still to come.
  static func verified(
    _ text: String, keys store: KeyStore, now: Date
  ) throws(TenantTokenError) -> (token: TenantToken, key: APIKey) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3, let headerData = decodeBase64URL(parts[0]),
      let payloadData = decodeBase64URL(parts[1]),
      let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
      let payload = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any]
    else { throw .malformed("not a JSON Web Token") }
    // Only the one algorithm: a token that names another ("none") is refused, not trusted.
    guard header["alg"] as? String == "HS256" else {
      throw .malformed("alg: only HS256 is accepted")
    }
    // A member it does not know is refused, not ignored: a misspelt "filters" must not leave
    // a token that searches the whole catalog. The registered claims a JWT library may add are
    // allowed; "nbf" is honoured.
    if let unknown = payload.keys.sorted().first(where: { !Self.payloadMembers.contains($0) }) {
      throw .malformed(
        "\(unknown.prefix(40)): not a member of a tenant token (key, exp, catalogs; iat, nbf, iss, sub, aud, jti)"
      )
    }
    if let notBefore = payload["nbf"] {
      guard let number = notBefore as? NSNumber, !(notBefore is Bool) else {
        throw .malformed("nbf: seconds since 1970")
      }
      let start = Date(timeIntervalSince1970: number.doubleValue)
      guard start <= now else {
        throw .refused("it is not valid before \(KeyRequest.dateText(start))")
      }
    }
    guard let keyID = payload["key"] as? String else {
      throw .malformed("key: the id of the key that signed it is missing")
    }
    guard let key = store.key(id: keyID) else {
      throw .refused("key \(keyID.prefix(40)) is revoked or unknown")
    }
    guard
      let signature = decodeBase64URL(parts[2]),
      HMAC<SHA256>.isValidAuthenticationCode(
        signature, authenticating: Data((parts[0] + "." + parts[1]).utf8),
        using: SymmetricKey(data: Data(key.signingSecret.utf8)))
    else { throw .refused("the signature is not that of key \(keyID.prefix(40))") }
    guard let exp = payload["exp"] as? NSNumber, !(payload["exp"] is Bool) else {
      throw .malformed("exp: a tenant token needs an expiry (seconds since 1970)")
    }
    let expires = Date(timeIntervalSince1970: exp.doubleValue)
    guard expires > now else { throw .refused("it expired at \(KeyRequest.dateText(expires))") }
    if key.isExpired(at: now) { throw .refused("key \(keyID) has expired") }
    guard let catalogs = payload["catalogs"] as? [String: Any], !catalogs.isEmpty else {
      throw .malformed("catalogs: an object of catalog names, each {\"filter\": [\"seller:42\"]}")
    }
    var filters: [String: [String]] = [:]
    for (name, rule) in catalogs {
      guard let rule = rule as? [String: Any] else {
        throw .malformed(
          "catalogs.\(name.prefix(40)): an object such as {\"filter\": [\"seller:42\"]}")
      }
      if let unknown = rule.keys.sorted().first(where: { $0 != "filter" }) {
        throw .malformed(
          "catalogs.\(name.prefix(40)).\(unknown.prefix(40)): not a member (a catalog's rule has only \"filter\")"
        )
      }
      var list: [String] = []
      if let value = rule["filter"] {
        if let one = value as? String {
          list = [one]
        } else if let many = value as? [String] {
          list = many
        } else {
          throw .malformed("catalogs.\(name.prefix(40)).filter: a list of token identifiers")
        }
      }
      guard key.allows(.search, catalog: name) else {
        throw .refused("key \(keyID) may not search catalog \(name.prefix(40))")
      }
      filters[name] = list
    }
    return (TenantToken(keyID: keyID, filters: filters, expires: expires), key)
  }

  /// The forced filters for `catalog` read against its schema: each one exact term.
  static func terms(
    _ filters: [String], schema: CatalogSchema
  ) -> Result<[QueryTerm], TenantTokenError> {
    var terms: [QueryTerm] = []
    for filter in filters {
      guard case .success(let term) = Query.term(forToken: filter, schema: schema) else {
        return .failure(
          .malformed("filter \"\(filter.prefix(60))\" is not one filter of catalog \(schema.name)"))
      }
      switch term.condition {
      case .category, .number: terms.append(term)
      case .text, .either:
        return .failure(
          .malformed(
            "filter \"\(filter.prefix(60))\": a tenant filter names a category or a number (category:VALUE, FIELD:NUMBER), not text"
          ))
      }
    }
    return .success(terms)
  }

  /// Why `filters` cannot be a tenant token's filters of a catalog with `schema` (the reason the
  /// server would refuse the token with), or nil: what `sift keys token` checks before signing.
  public static func fault(of filters: [String], schema: CatalogSchema) -> String? {
    if case .failure(let error) = terms(filters, schema: schema) { return error.description }
    return nil
  }

  /// Why `filter` can be a filter of no catalog at all — text, not `FIELD:VALUE` — or nil: the
  /// check left when the catalog's schema is not at hand.
  public static func fault(ofFilter filter: String) -> String? {
    let body = filter.hasPrefix("-") ? filter.dropFirst() : Substring(filter)
    guard let colon = body.firstIndex(of: ":"), colon != body.startIndex,
      body.index(after: colon) != body.endIndex
    else {
      return
        "filter \"\(filter.prefix(60))\": a tenant filter names a category or a number (category:VALUE, FIELD:NUMBER), not text"
    }
    return nil
  }

  static func signature(_ signed: String, secret: String) -> String {
    let code = HMAC<SHA256>.authenticationCode(
      for: Data(signed.utf8), using: SymmetricKey(data: Data(secret.utf8)))
    return base64URL(Data(code))
  }

  package static func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  /// The bytes of `text` in base64url without padding (RFC 7515 §2), as JSON Web Tokens are
  /// written: `+`, `/`, `=` or any other character is refused, so that one token has one
  /// spelling.
  package static func decodeBase64URL(_ text: String) -> Data? {
    guard text.utf8.count % 4 != 1,
      text.utf8.allSatisfy({ byte in
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
          true
        default: false
        }
      })
    else { return nil }
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
      of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64)
  }
}

/// Tokens checked already, so that a browser's every keystroke does not check its signature and
/// read its JSON again: each kept until it expires, and used only while its key is still in the
/// key file as it was (revoking the key refuses its tokens at once).
final class VerifiedTokens: Sendable {
  private let tokens = Locked([String: (token: TenantToken, key: APIKey)]())
  /// Past this many, the oldest are not worth finding: all are dropped.
  private let capacity = 10_000

  func verified(
    _ text: String, keys store: KeyStore, now: Date
  ) throws(TenantTokenError) -> (token: TenantToken, key: APIKey) {
    if let known = tokens.withLock({ $0[text] }), known.token.expires > now,
      let current = store.key(id: known.key.id), current == known.key, !current.isExpired(at: now)
    {
      return known
    }
    let checked = try TenantToken.verified(text, keys: store, now: now)
    tokens.withLock { tokens in
      if tokens.count >= capacity { tokens.removeAll(keepingCapacity: true) }
      tokens[text] = checked
    }
    return checked
  }
}

/// Why a tenant token was not accepted.
public enum TenantTokenError: Error, Equatable, CustomStringConvertible {
  /// It is not a token Sift reads.
  case malformed(String)
  /// It is one, but no longer or never valid.
  case refused(String)

  public var description: String {
    switch self {
    case .malformed(let message), .refused(let message): message
    }
  }
}
#endif
