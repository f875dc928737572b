#if Server
import Foundation
import Sift

/// The JSON body of `POST …/items` and `PUT …/items/ID`: an object of the catalog's fields
/// (searched or stored) by name (`{"title": "Tulip", "year": 2011, "type": "Weddings"}`), and on POST an optional
/// `"id"` — or the catalog's id field (`sift import --id FIELD`), which names the item the same
/// way. Checked against the schema: a field the catalog does not have, or a value of the
/// wrong kind, is a 400 that names the field.
struct ItemBody: Sendable {
  var id: ItemID?
  var fields: [String: FieldValue]

  /// Bodies past this size are refused (413) before they are read whole.
  static let maximumBytes = 64 * 1024

  init(_ data: Data, schema: CatalogSchema, requiresTitle: Bool) throws(ServerError) {
    let members = try Self.members(of: data, what: "fields")
    // A name given twice: the last value counts, as an import reads a line.
    let object = Dictionary(members, uniquingKeysWith: { $1 })
    var fields: [String: FieldValue] = [:]
    // A catalog imported with `--id FIELD` names its items by that field: a new item given
    // it takes its id from it, as a re-import would.
    let idField = schema.idField.flatMap { name in object[name] == nil ? nil : name }
    let isSearched = { (name: String) in schema.allFields.contains { $0.name == name } }
    for (name, value) in object.sorted(by: { $0.key < $1.key }) {
      if name == "id" || name == idField {
        let given = try Self.id(value, field: name)
        if let id, id != given {
          throw .badRequest(
            "\(name): \"\(given.rawValue.prefix(100))\" names another item than \"\(id.rawValue.prefix(100))\" (give one id)"
          )
        }
        id = given
        if name == "id" || !isSearched(name) { continue }
      }
      guard let field = schema.allFields.first(where: { $0.name == name }) else {
        let known = schema.allFields.map(\.name).joined(separator: ", ")
        throw .badRequest("\(name.prefix(100)): no such field in catalog \(schema.name) (\(known))")
      }
      // A searched field's null is no value; a kept one keeps it, as an import does.
      let kept = schema.storedFields.contains { $0.name == name }
      if case .null = value, !kept { continue }
      let read = try kept ? FieldValue(json: value) : Self.value(value, of: field)
      // A catalog cannot store U+0000: the client's mistake, said before anything is written.
      if read.strings.contains(where: { $0.unicodeScalars.contains("\u{0}") }) {
        throw .badRequest("\(name): a NUL character (U+0000), which a catalog cannot store")
      }
      fields[name] = read
    }
    if requiresTitle {
      guard case .text(let title)? = fields[schema.titleField],
        !title.allSatisfy(\.isWhitespace)
      else {
        throw .badRequest("\(schema.titleField): required, a string that is not blank")
      }
    }
    // A place off the earth, as an import refuses it.
    if let (name, reason) = schema.location?.problem(in: fields) {
      throw .badRequest("\(name): \(reason)")
    }
    // A vector of another length than the catalog's, checked and kept as the catalog keeps it.
    do throws(CatalogEditError) {
      fields = try schema.conforming(Item(id: ItemID(""), fields: fields)).fields
    } catch {
      if case .invalidValue(let field, let reason) = error {
        throw .badRequest("\(field): \(reason)")
      }
      throw .badRequest("body: \(error)")
    }
    self.fields = fields
  }

  /// The members of a body that must be a JSON object (of `what`: "fields"); a 400 that says
  /// what the body is instead.
  static func members(of data: Data, what: String) throws(ServerError) -> [(String, JSONValue)] {
    let parsed: JSONValue
    do {
      parsed = try JSONValue.parse(data)
    } catch {
      throw .badRequest("body: not JSON (\(error))")
    }
    guard case .object(let members) = parsed else {
      throw .badRequest("body: not a JSON object of \(what) (\(Self.kind(parsed)))")
    }
    return members
  }

  /// An id as `"id"` or the catalog's id field gives it: a string of 1 to 200 characters, or a
  /// whole number (as an import reads one).
  private static func id(_ value: JSONValue, field: String) throws(ServerError) -> ItemID {
    switch value {
    case .string(let text)
    where !text.isEmpty && text.count <= 200 && !text.unicodeScalars.contains("\u{0}"):
      return ItemID(text)
    case .number(let number) where number == number.rounded() && abs(number) < 1e15:
      return ItemID(String(Int64(number)))
    default:
      throw .badRequest(
        "\(field): an id is a string of 1 to 200 characters without NUL, or a whole number")
    }
  }

  private static func value(
    _ value: JSONValue, of field: FieldDefinition
  ) throws(ServerError) -> FieldValue {
    switch (field.kind, value) {
    case (.number, .number(let number)):
      return .number(number)
    case (.number, _):
      throw .badRequest("\(field.name): expected a number")
    case (.text, .string(let text)), (.category, .string(let text)):
      return .text(text)
    case (.text, .strings(let texts)):
      return .texts(texts)
    case (.text, .array(let values)) where values.isEmpty:
      return .texts([])
    case (.text, _):
      throw .badRequest("\(field.name): expected a string or a list of strings")
    case (.category, .strings(let texts)):
      return .texts(texts)
    case (.category, _):
      throw .badRequest("\(field.name): expected a string or a list of strings")
    }
  }

  /// What a JSON value is, for a message.
  private static func kind(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .strings, .array: "an array"
    case .object: "an object"
    }
  }
}
#endif
