#if Server
import Foundation
import PostgresNIO
import Sift

/// One item as its `items` row: its id, its fields as JSON and, apart, its vector as bytes.
/// Nothing else is kept beside them: nodes search the items in memory with the engine
/// (`PostgresNode`).
struct ItemRow: Sendable {
  var id: String
  /// Every field but the vector, as a JSON object.
  var fields: String
  /// The catalog's vector (`VectorField`), as `VectorBytes` writes it; nil for none.
  var vector: [UInt8]?

  /// The item's row; PostgreSQL's text cannot hold NUL, nor jsonb its escape: the error says
  /// which item, not the server.
  init(_ item: Item, schema: CatalogSchema) throws(PostgresError) {
    id = item.id.rawValue
    let vectorField = schema.vector?.field
    var members: [(String, JSONValue)] = []
    for field in schema.allFields {
      guard let value = item[field.name] else { continue }
      if field.name == vectorField, let floats = VectorBytes.floats(in: value) {
        vector = VectorBytes.encode(floats)
      } else {
        members.append((field.name, value.json))
      }
    }
    fields = JSONValue.object(members).text
    let place =
      id.utf8.contains(0)
      ? "its id" : fields.contains(#"\u0000"#) ? "a field value" : nil
    if let place {
      let item =
        id.isEmpty ? "the new item" : "item \"\(id.replacingOccurrences(of: "\0", with: "␀"))\""
      throw .unsupported("\(item): PostgreSQL cannot hold the NUL character (in \(place))")
    }
  }

  /// The item back from its JSON fields and its vector's bytes, kept under `vectorField`.
  static func item(
    id: String, fields json: String, vector: ByteBuffer? = nil, vectorField: String? = nil
  ) throws(PostgresError) -> Item {
    guard let parsed = try? JSONValue.parse(Data(json.utf8)),
      var item = Item(id: ItemID(id), fieldsJSON: parsed)
    else { throw .unsupported("item \"\(id)\": its fields are not a JSON object") }
    if let vector, let vectorField {
      guard let floats = VectorBytes.decode(vector.readableBytesView) else {
        throw .unsupported(
          "item \"\(id)\": its vector holds \(vector.readableBytes) bytes, not 4 a number")
      }
      item[vectorField] = .vector(floats)
    }
    return item
  }

  /// An import's record as a row's JSON and vector: every one of its fields in name order (the
  /// schema's stored fields are known only once every record was read) but `vectorField`'s
  /// vector, which goes apart.
  static func parts(
    of fields: [String: FieldValue], vectorField: String?
  ) -> (fields: String, vector: [UInt8]?) {
    guard let vectorField, let value = fields[vectorField],
      let floats = VectorBytes.floats(in: value)
    else { return (Item(id: "", fields: fields).fieldsJSON.text, nil) }
    var rest = fields
    rest[vectorField] = nil
    return (Item(id: "", fields: rest).fieldsJSON.text, VectorBytes.encode(floats))
  }

  /// The row in COPY's text format (`id`, `ord`, `fields`, `vector`): tab-separated,
  /// backslash escapes.
  func copyLine(order: Int64) -> String {
    Self.copyText(id) + "\t\(order)\t" + Self.copyText(fields) + "\t" + Self.copyBytes(vector)
      + "\n"
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

  /// `bytes` as one `bytea` field of COPY's text format: `\x` and their hex digits, its
  /// backslash escaped; `\N` (NULL) for none.
  static func copyBytes(_ bytes: [UInt8]?) -> String {
    guard let bytes else { return "\\N" }
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = Array("\\\\x".utf8)
    text.reserveCapacity(3 + 2 * bytes.count)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}

/// A vector in a `bytea`: each number a 32-bit float, big-endian — as PostgreSQL's own
/// `float4send` writes one, so SQL can make and read them too (`CatalogLayout.upgrade`). Four
/// bytes a number, where its JSON took about ten.
enum VectorBytes {
  static func encode(_ floats: [Float]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(4 * floats.count)
    for value in floats {
      withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
    }
    return bytes
  }

  /// The numbers; nil for no bytes or a length that is not a whole number of floats.
  static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [Float]? {
    guard !bytes.isEmpty, bytes.count % 4 == 0 else { return nil }
    var floats: [Float] = []
    floats.reserveCapacity(bytes.count / 4)
    var pattern: UInt32 = 0
    for (index, byte) in bytes.enumerated() {
      pattern = pattern << 8 | UInt32(byte)
      if index % 4 == 3 {
        floats.append(Float(bitPattern: pattern))
        pattern = 0
      }
    }
    return floats
  }

  /// The numbers of a vector value (`.vector`, or a list of numbers as a client gave it); nil
  /// for anything else — `null` stays in the JSON as it came.
  static func floats(in value: FieldValue) -> [Float]? {
    guard case .success(let floats?) = VectorField.floats(in: value) else { return nil }
    return floats
  }
}
#endif
