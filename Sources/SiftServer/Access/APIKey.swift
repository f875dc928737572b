#if Server
import Crypto
import Foundation
import Sift

/// What a key lets its holder do. `admin` is everything: searching and editing every catalog it
/// names, and managing keys (`/keys`).
public enum KeyAction: String, Codable, CaseIterable, Comparable, Sendable {
  case search, edit, admin

  public static func < (lhs: KeyAction, rhs: KeyAction) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// A key as the server keeps it: never the key itself, only its SHA-256, so that a stolen key
/// file opens nothing. What it may do: `actions` on `catalogs` (`*`: every one) until `expires`.
public struct APIKey: Codable, Hashable, Sendable {
  /// Names the key in `GET /keys`, `DELETE /keys/ID` and tenant tokens; tells nothing of it.
  public var id: String
  /// The key's first characters, for a person to tell keys apart in a list.
  public var prefix: String
  public var description: String?
  public var catalogs: [String]
  public var actions: [KeyAction]
  public var expires: Date?
  public var created: Date
  /// Requests a minute the key may make; nil: the server's `--rate-limit`, if any.
  public var requestsPerMinute: Int?
  /// Hex SHA-256 of the key.
  var hash: String
  /// What tenant tokens made from this key are signed with (`TenantToken.signingSecret(of:)`):
  /// derived from the key, so the key itself is still not kept.
  var signingSecret: String

  /// Whether the key may do `action` on `catalog` (nil: no catalog, such as `/keys`).
  public func allows(_ action: KeyAction, catalog: String?) -> Bool {
    guard actions.contains(action) || actions.contains(.admin) else { return false }
    guard let catalog else { return action == .admin ? covers("*") : true }
    return covers(catalog)
  }

  /// Whether `catalogs` names `catalog` or every one.
  func covers(_ catalog: String) -> Bool {
    catalogs.contains("*") || catalogs.contains(catalog)
  }

  /// Whether `secret` is this key.
  public func matches(secret: String) -> Bool {
    SiftServer.constantTimeEqual(Self.hashText(secret), hash)
  }

  public func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

  /// As `GET /keys` lists it: everything but the hash and the signing secret.
  package var json: JSONValue { .object(sorting: jsonMembers) }

  package var jsonMembers: [(String, JSONValue)] {
    var members: [(String, JSONValue)] = [
      ("id", .string(id)), ("prefix", .string(prefix)), ("catalogs", .strings(catalogs)),
      ("actions", .strings(actions.map(\.rawValue))),
      ("created", .string(KeyRequest.dateText(created))),
    ]
    if let description { members.append(("description", .string(description))) }
    if let expires { members.append(("expires", .string(KeyRequest.dateText(expires)))) }
    if let requestsPerMinute {
      members.append(("requestsPerMinute", .number(Double(requestsPerMinute))))
    }
    return members
  }

  /// A new key for `request`: the secret to hand out once, and the record to keep.
  static func make(_ request: KeyRequest, now: Date) -> (secret: String, record: APIKey) {
    let secret = "sift_" + randomText(bytes: 30)
    let record = APIKey(
      id: randomHex(bytes: 8), prefix: String(secret.prefix(9)),
      description: request.description, catalogs: request.catalogs,
      actions: request.actions.sorted(), expires: request.expires, created: now,
      requestsPerMinute: request.requestsPerMinute, hash: hashText(secret),
      signingSecret: TenantToken.signingSecret(of: secret))
    return (secret, record)
  }

  /// Hex SHA-256 of `secret`, as kept.
  static func hashText(_ secret: String) -> String {
    hex(SHA256.hash(data: Data(secret.utf8)))
  }

  /// `bytes` from the system's secure generator, as base64url without padding.
  private static func randomText(bytes: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    let data = Data((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    return TenantToken.base64URL(data)
  }

  private static func randomHex(bytes: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    return hex((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
  }

  /// `bytes` as lower-case hex, two digits each.
  static func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }

}

/// What `POST /keys` and `sift keys create` ask for, checked: each fault names its field.
public struct KeyRequest: Sendable, Equatable {
  public var catalogs: [String]
  public var actions: [KeyAction]
  public var expires: Date?
  public var description: String?
  public var requestsPerMinute: Int?

  public init(
    catalogs: [String], actions: [KeyAction], expires: Date? = nil, description: String? = nil,
    requestsPerMinute: Int? = nil
  ) {
    self.catalogs = catalogs
    self.actions = actions
    self.expires = expires
    self.description = description
    self.requestsPerMinute = requestsPerMinute
  }

  /// The most requests a minute a key may be given.
  static let maximumRate = 10_000_000

  /// The first fault of the request, named by field; nil when it can be made at `now`.
  public func problem(now: Date) -> String? {
    if catalogs.isEmpty { return "catalogs: name at least one catalog, or \"*\" for all" }
    if let bad = catalogs.first(where: { $0.isEmpty || $0.count > 200 }) {
      return "catalogs: \"\(bad.prefix(40))\" is not a catalog name"
    }
    if actions.isEmpty { return "actions: name at least one of search, edit, admin" }
    if let expires, expires <= now {
      return "expires: \(Self.dateText(expires)) has passed"
    }
    if let description, description.count > 500 {
      return "description: more than 500 characters"
    }
    if let rate = requestsPerMinute, !(1...Self.maximumRate).contains(rate) {
      return "requestsPerMinute: \(rate) is not from 1 to \(Self.maximumRate)"
    }
    return nil
  }

  /// Reads `POST /keys`'s body: `{"catalogs": ["products"], "actions": ["search"],
  /// "expires": "2027-01-01T00:00:00Z", "description": "…", "requestsPerMinute": 600}`.
  public init(json body: Data) throws(KeyRequestError) {
    guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
      throw KeyRequestError(
        "body: expected {\"catalogs\": [\"products\"], \"actions\": [\"search\"], \"expires\": \"2027-01-01T00:00:00Z\"}"
      )
    }
    let known: Set = ["catalogs", "actions", "expires", "description", "requestsPerMinute"]
    if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
      throw KeyRequestError(
        "\(unknown.prefix(40)): not a field of a key (catalogs, actions, expires, description, requestsPerMinute)"
      )
    }
    struct Body: Decodable {
      var catalogs: [String]?
      var actions: [String]?
      var expires: String?
      var description: String?
      var requestsPerMinute: Int?
    }
    let decoded: Body
    do {
      decoded = try JSONDecoder().decode(Body.self, from: body)
    } catch let DecodingError.typeMismatch(_, context), let DecodingError.dataCorrupted(context) {
      throw KeyRequestError(Self.expected(context.codingPath.first?.stringValue ?? "body"))
    } catch {
      throw KeyRequestError("body: not a JSON object")
    }
    guard let catalogs = decoded.catalogs else {
      throw KeyRequestError(Self.expected("catalogs"))
    }
    guard let actionNames = decoded.actions else {
      throw KeyRequestError(Self.expected("actions"))
    }
    var actions: [KeyAction] = []
    for name in actionNames {
      guard let action = KeyAction(rawValue: name) else {
        throw KeyRequestError("actions: \"\(name.prefix(40))\" is not search, edit or admin")
      }
      if !actions.contains(action) { actions.append(action) }
    }
    var expires: Date?
    if let text = decoded.expires {
      guard let date = Self.date(text) else {
        throw KeyRequestError(
          "expires: a date and time such as 2027-01-01T00:00:00Z, not \(text.prefix(40))")
      }
      expires = date
    }
    let description = decoded.description
    let rate = decoded.requestsPerMinute
    self.init(
      catalogs: catalogs, actions: actions, expires: expires, description: description,
      requestsPerMinute: rate)
  }

  /// What `field` holds, for a body that gave it another type.
  private static func expected(_ field: String) -> String {
    switch field {
    case "catalogs": "catalogs: a list of catalog names, or [\"*\"] for all"
    case "actions": "actions: a list of search, edit, admin"
    case "expires": "expires: a date and time such as 2027-01-01T00:00:00Z"
    case "description": "description: a string"
    case "requestsPerMinute": "requestsPerMinute: a whole number"
    default: "\(field.prefix(40)): not a field of a key"
    }
  }

  /// `2027-01-01T00:00:00Z`, with or without fractions of a second, or a date alone
  /// (`2027-01-01`, midnight UTC).
  public static func date(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withFullDate]
    return formatter.date(from: text)
  }

  static func dateText(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}

/// A fault in a key request, its message naming the field.
public struct KeyRequestError: Error, Equatable, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
#endif
