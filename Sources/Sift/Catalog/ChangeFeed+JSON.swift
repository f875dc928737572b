import Foundation

/// The feed's pages in JSON, written and read without Foundation's coders for the items (a
/// first copy moves every item of the catalog): the same shape as their `Codable` form, which
/// an app may decode them with.
extension CatalogSnapshotPage {
  package var jsonBytes: [UInt8] {
    var output = feedHeader(
      catalog: catalog, identity: identity, version: version, next: next,
      capacity: items.count * 160 + 4_096)
    if let last { output.append(contentsOf: #","last":\#(last)"#.utf8) }
    output.append(contentsOf: #","schema":"#.utf8)
    output.append(contentsOf: (try? JSONEncoder().encode(schema)) ?? Data("null".utf8))
    output.append(contentsOf: #","items":["#.utf8)
    for (index, item) in items.enumerated() {
      if index > 0 { output.append(UInt8(ascii: ",")) }
      output.append(contentsOf: #"{"position":\#(item.position),"item":"#.utf8)
      item.item.json.write(to: &output)
      output.append(UInt8(ascii: "}"))
    }
    output.append(contentsOf: "]}".utf8)
    return output
  }

  package init(json: JSONValue) throws(FeedReadingError) {
    let reader = FeedReader(json)
    let items = try reader.array("items")
    var positioned: [PositionedItem] = []
    positioned.reserveCapacity(items.count)
    for entry in items {
      let entryReader = FeedReader(entry)
      positioned.append(
        PositionedItem(
          position: try entryReader.whole("position"),
          item: try Item(json: entryReader.value("item"))))
    }
    self.init(
      catalog: try reader.string("catalog"), identity: try reader.string("identity"),
      version: try reader.whole("version"), schema: try reader.decoded("schema"),
      items: positioned, next: try reader.optionalWhole("next"),
      last: try reader.optionalWhole("last"))
  }
}

extension ChangeFeedPage {
  package var jsonBytes: [UInt8] {
    var output = feedHeader(
      catalog: catalog, identity: identity, version: version, next: next,
      capacity: changes.count * 160 + 256)
    output.append(contentsOf: #","changes":["#.utf8)
    for (index, change) in changes.enumerated() {
      if index > 0 { output.append(UInt8(ascii: ",")) }
      output.append(contentsOf: #"{"version":\#(change.version)"#.utf8)
      if let item = change.put {
        output.append(contentsOf: #","put":"#.utf8)
        item.json.write(to: &output)
      }
      if let position = change.position {
        output.append(contentsOf: #","position":\#(position)"#.utf8)
      }
      if let id = change.delete {
        output.append(contentsOf: #","delete":"#.utf8)
        JSONValue.write(string: id.rawValue, to: &output)
      }
      if let synonyms = change.synonyms {
        output.append(contentsOf: #","synonyms":"#.utf8)
        output.append(contentsOf: (try? JSONEncoder().encode(synonyms)) ?? Data("null".utf8))
      }
      if let pins = change.pins {
        output.append(contentsOf: #","pins":"#.utf8)
        output.append(contentsOf: (try? JSONEncoder().encode(pins)) ?? Data("null".utf8))
      }
      output.append(UInt8(ascii: "}"))
    }
    output.append(contentsOf: "]}".utf8)
    return output
  }

  package init(json: JSONValue) throws(FeedReadingError) {
    let reader = FeedReader(json)
    var changes: [CatalogChange] = []
    for entry in try reader.array("changes") {
      let entryReader = FeedReader(entry)
      var change = CatalogChange(version: try entryReader.whole("version"))
      if let put = entry["put"] {
        change.put = try Item(json: put)
        change.position = try entryReader.whole("position")
      }
      if entry["delete"] != nil { change.delete = ItemID(try entryReader.string("delete")) }
      if entry["synonyms"] != nil { change.synonyms = try entryReader.decoded("synonyms") }
      if entry["pins"] != nil { change.pins = try entryReader.decoded("pins") }
      changes.append(change)
    }
    self.init(
      catalog: try reader.string("catalog"), identity: try reader.string("identity"),
      version: try reader.whole("version"), changes: changes,
      next: try reader.optionalWhole("next"))
  }
}

/// The members every page starts with: `{"catalog", "identity", "version", "next"` (the object
/// left open for the page's own).
private func feedHeader(
  catalog: String, identity: String, version: Int64, next: Int64?, capacity: Int
) -> [UInt8] {
  var output: [UInt8] = []
  output.reserveCapacity(capacity)
  output.append(contentsOf: #"{"catalog":"#.utf8)
  JSONValue.write(string: catalog, to: &output)
  output.append(contentsOf: #","identity":"#.utf8)
  JSONValue.write(string: identity, to: &output)
  output.append(contentsOf: #","version":\#(version),"next":"#.utf8)
  output.append(contentsOf: (next.map { "\($0)" } ?? "null").utf8)
  return output
}

extension Item {
  /// `{"id": …, "fields": {…}}`, as `Codable` writes it.
  package var json: JSONValue {
    .object([
      ("id", .string(id.rawValue)),
      ("fields", fieldsJSON),
    ])
  }

  /// The item's fields as one JSON object, in name order: what a feed, a log entry and a
  /// PostgreSQL row hold of it.
  package var fieldsJSON: JSONValue {
    .object(sorting: fields.map { ($0.key, $0.value.json) })
  }

  /// The item with `id` whose fields `json` holds as one object; nil for another value.
  package init?(id: ItemID, fieldsJSON json: JSONValue) {
    guard case .object(let members) = json else { return nil }
    var fields: [String: FieldValue] = [:]
    fields.reserveCapacity(members.count)
    for (name, value) in members { fields[name] = FieldValue(json: value) }
    self.init(id: id, fields: fields)
  }

  package init(json: JSONValue) throws(FeedReadingError) {
    let reader = FeedReader(json)
    let id = ItemID(try reader.string("id"))
    guard let fields = json["fields"], let item = Item(id: id, fieldsJSON: fields) else {
      throw FeedReadingError(reason: "an item without \"fields\"")
    }
    self = item
  }
}

/// What in a feed's JSON is not as the feed writes it.
package struct FeedReadingError: Error, Hashable, Sendable, CustomStringConvertible {
  package var reason: String
  package var description: String { reason }
}

/// Members of one JSON object, each read as what the feed writes there.
private struct FeedReader {
  let object: JSONValue

  init(_ object: JSONValue) { self.object = object }

  func value(_ key: String) throws(FeedReadingError) -> JSONValue {
    guard let value = object[key] else { throw FeedReadingError(reason: "no \"\(key)\"") }
    return value
  }

  func string(_ key: String) throws(FeedReadingError) -> String {
    guard case .string(let text) = try value(key) else {
      throw FeedReadingError(reason: "\"\(key)\" is not a string")
    }
    return text
  }

  func whole(_ key: String) throws(FeedReadingError) -> Int64 {
    guard case .number(let number) = try value(key), let whole = Int64(exactly: number) else {
      throw FeedReadingError(reason: "\"\(key)\" is not a whole number")
    }
    return whole
  }

  func optionalWhole(_ key: String) throws(FeedReadingError) -> Int64? {
    if object[key] == nil { return nil }
    if case .null? = object[key] { return nil }
    return try whole(key)
  }

  func array(_ key: String) throws(FeedReadingError) -> [JSONValue] {
    switch try value(key) {
    case .array(let values): return values
    case .strings(let texts): return texts.map(JSONValue.string)
    default: throw FeedReadingError(reason: "\"\(key)\" is not an array")
    }
  }

  /// The member read by its `Decodable` form (the schema, the synonyms: small, once a page).
  func decoded<Value: Decodable>(_ key: String) throws(FeedReadingError) -> Value {
    do {
      return try JSONDecoder().decode(Value.self, from: Data(try value(key).bytes))
    } catch let error as FeedReadingError {
      throw error
    } catch {
      throw FeedReadingError(reason: "\"\(key)\" cannot be read: \(error)")
    }
  }
}
