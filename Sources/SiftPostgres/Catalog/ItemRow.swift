#if Server
import Foundation
import Sift

/// One item as its `items` row: its id and its fields as JSON. Nothing else is kept beside
/// them: nodes search the items in memory with the engine (`PostgresNode`).
struct ItemRow: Sendable {
  var id: String
  var fields: String

  /// The item's row; PostgreSQL's text cannot hold NUL, nor jsonb its escape: the error says
  /// which item, not the server.
  init(_ item: Item, schema: CatalogSchema) throws(PostgresError) {
    id = item.id.rawValue
    fields = Self.json(item, schema)
    let place =
      id.utf8.contains(0)
      ? "its id" : fields.contains(#"\u0000"#) ? "a field value" : nil
    if let place {
      let item =
        id.isEmpty ? "the new item" : "item \"\(id.replacingOccurrences(of: "\0", with: "␀"))\""
      throw .unsupported("\(item): PostgreSQL cannot hold the NUL character (in \(place))")
    }
  }

  /// The item's fields as a JSON object, in schema order (searched, then stored): strings,
  /// string arrays, numbers.
  static func json(_ item: Item, _ schema: CatalogSchema) -> String {
    var members: [(String, JSONValue)] = []
    for field in schema.allFields {
      if let value = item[field.name] { members.append((field.name, value.json)) }
    }
    return JSONValue.object(members).text
  }

  /// The item back from its JSON fields.
  static func item(id: String, fields json: String) throws(PostgresError) -> Item {
    guard let parsed = try? JSONValue.parse(Data(json.utf8)),
      let item = Item(id: ItemID(id), fieldsJSON: parsed)
    else { throw .unsupported("item \"\(id)\": its fields are not a JSON object") }
    return item
  }

  /// Every one of `fields` as a JSON object, in name order: an import's record, whose
  /// stored fields the schema gets only once every record was read.
  static func json(_ fields: [String: FieldValue]) -> String {
    Item(id: "", fields: fields).fieldsJSON.text
  }

  /// The row in COPY's text format (`id`, `ord`, `fields`): tab-separated, backslash escapes.
  func copyLine(order: Int64) -> String {
    Self.copyText(id) + "\t\(order)\t" + Self.copyText(fields) + "\n"
  }

  /// `text` as one field of COPY's text format: its backslashes, tabs and line breaks escaped.
  static func copyText(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
    else { return text }
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count + 8)
    for character in text.unicodeScalars {
      switch character {
      case "\\": escaped += "\\\\"
      case "\t": escaped += "\\t"
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      default: escaped.unicodeScalars.append(character)
      }
    }
    return escaped
  }
}
#endif
