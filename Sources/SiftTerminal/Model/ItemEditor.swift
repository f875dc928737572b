import Foundation
import Sift

/// The add/edit form: one line of text per field of the schema, the stored ones too (an edit
/// replaces the item, so a field the form left out would be lost).
public struct ItemEditor: Hashable, Sendable {
  /// The item being edited; nil for a new item.
  public var itemID: ItemID?
  public var fields: [FieldDefinition]
  /// The catalog's coordinates, checked before a save as an import checks them.
  let location: LocationFields?
  public var values: [String]
  /// Fields that held several strings: edited as one line, separated by " | ".
  public var listFields: Set<String>
  /// Kept fields that held a JSON value other than text (`true`, `null`, `[120, 140]`, an
  /// object): edited as their JSON, and saved as the JSON the line then holds.
  public var jsonFields: Set<String>
  /// The field whose value names a new item, in a catalog imported with `--id FIELD`; nil
  /// when the catalog numbers new items. `idOnly`: the id field is not one of the catalog's
  /// fields, so the form shows it first and saves it only as the id.
  public var idField: String?
  var idOnly = false
  public var focus = 0
  /// Where the cursor is in the focused field's value, in characters.
  public var cursor = 0

  static let listSeparator = " | "

  /// A form for a new item (empty) or for `item`.
  public init(schema: CatalogSchema, item: Item? = nil) {
    itemID = item?.id
    location = schema.location
    fields = schema.allFields
    if item == nil, let name = schema.idField {
      idField = name
      if !fields.contains(where: { $0.name == name }) {
        fields.insert(.text(name), at: 0)
        idOnly = true
      }
    }
    values = fields.map { field in
      guard let value = item?[field.name] else { return "" }
      switch value {
      case .text(let text): return text
      case .texts(let texts): return texts.joined(separator: Self.listSeparator)
      case .number(let number): return field.display(.number(number))
      case .bool, .null, .list, .object, .vector: return value.json.text
      }
    }
    listFields = Set(
      fields.filter {
        if case .texts = item?[$0.name] { return true }
        return false
      }.map(\.name))
    jsonFields = Set(fields.filter { item?[$0.name]?.isTextOrNumber == false }.map(\.name))
    // Start in the title field.
    focus = fields.firstIndex { $0.name == schema.titleField } ?? 0
    cursor = values.indices.contains(focus) ? values[focus].count : 0
  }

  /// The focused field as a line editor.
  public var line: LineEditor {
    LineEditor(values.indices.contains(focus) ? values[focus] : "", cursor: cursor)
  }

  public var isNew: Bool { itemID == nil }

  /// Focuses another field, its cursor at the end of its value.
  mutating func moveFocus(by offset: Int) {
    guard !fields.isEmpty else { return }
    focus = (focus + offset + fields.count) % fields.count
    cursor = values[focus].count
  }

  /// Applies an editing key to the focused field (`LineEditor`).
  mutating func edit(_ key: Key) -> LineEditor.Outcome {
    guard values.indices.contains(focus) else { return .ignored }
    var line = self.line
    let outcome = line.handle(key)
    values[focus] = line.text
    cursor = line.cursor
    return outcome
  }

  /// The edit the form describes — an add for a new item (the catalog names it), else an
  /// update — or why it cannot be saved (the field is named). Numbers are read by `NumberText`,
  /// as in queries and CSV files.
  func edit(titleField: String) -> Result<CatalogEdit, EditorProblem> {
    var result: [String: FieldValue] = [:]
    for (field, raw) in zip(fields, values) {
      let text = raw.trimmingCharacters(in: .whitespaces)
      if text.isEmpty {
        if field.name == titleField { return .failure(EditorProblem("\(field.label) is required")) }
        continue
      }
      switch field.kind {
      case .number:
        guard let number = NumberText.parse(text) else {
          return .failure(EditorProblem("\(field.label) must be a number, not \"\(text)\""))
        }
        result[field.name] = .number(number)
      case _ where jsonFields.contains(field.name):
        let json = try? JSONValue.parse(Data(text.utf8))
        result[field.name] = json.map(FieldValue.init(json:)) ?? .text(text)
      case .text where listFields.contains(field.name),
        .category where listFields.contains(field.name):
        result[field.name] = .texts(
          raw.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
          })
      case .text, .category:
        result[field.name] = .text(text)
      }
    }
    if let (name, reason) = location?.problem(in: result) {
      let label = fields.first { $0.name == name }?.label ?? name
      return .failure(EditorProblem("\(label) must be \(reason)"))
    }
    if let itemID { return .success(.update(Item(id: itemID, fields: result))) }
    guard let idField, let given = result[idField] else {
      return .success(.add(nil, fields: result))
    }
    if idOnly { result[idField] = nil }
    let id =
      switch given {
      case .number(let number) where number == number.rounded() && abs(number) < 1e15:
        String(Int64(number))
      default: given.displayText
      }
    return .success(.add(ItemID(id), fields: result))
  }
}

/// Why a form cannot be saved.
struct EditorProblem: Error, Hashable {
  var message: String
  init(_ message: String) { self.message = message }
}
