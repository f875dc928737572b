import Foundation
import Sift

/// A record's raw values before checking: what JSON Lines and CSV have in common.
enum RawValue {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([RawValue])
  /// Its members in key order.
  case object([(String, RawValue)])

  /// A JSON value as a record holds it: a nested object's members in key order.
  init(_ value: JSONValue) {
    switch value {
    case .null: self = .null
    case .bool(let value): self = .bool(value)
    case .number(let number): self = .number(number)
    case .string(let string): self = .string(string)
    case .strings(let strings): self = .array(strings.map(RawValue.string))
    case .array(let elements): self = .array(elements.map(RawValue.init))
    case .object(let members):
      self = .object(
        Dictionary(members, uniquingKeysWith: { $1 }).sorted { $0.key < $1.key }
          .map { ($0.key, RawValue($0.value)) })
    }
  }

  /// An array's element that is not a string.
  struct NotAString: Error {
    var element: RawValue
    var kindName: String { element.kindName }
  }

  var kindName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}

extension ImportSpec {
  /// The fields of a spec that checking a record reads, worked out once for a whole file
  /// rather than for every record.
  struct RecordFields: Sendable {
    /// `namedFields`: every other field of a record is kept as it came.
    let named: Set<String>
    /// `allNumberFields`.
    let numbers: [String]

    init(_ spec: ImportSpec) {
      named = spec.namedFields
      numbers = spec.allNumberFields
    }
  }

  /// Checks one record's values and turns them into item fields.
  ///
  /// - Parameters:
  ///   - numbersFromText: CSV cells are all text, so numbers are read from it there.
  ///   - emptyIsNothing: an empty text is a field the record does not have — a CSV cell, but
  ///     not one an export wrote (`CSVExportCells` has left out its empty ones already).
  ///   - known: `RecordFields(self)`.
  func record(
    _ values: [String: RawValue], line: Int, numbersFromText: Bool, emptyIsNothing: Bool? = nil,
    known: RecordFields
  ) -> Result<ImportRecord, RecordProblem> {
    var fields: [String: FieldValue] = [:]
    fields.reserveCapacity(values.count)
    var numbersFromTexts: [String] = []
    switch values[titleField] ?? .null {
    case .string(let titleText):
      // A row shows its title first: an empty one would draw as nothing.
      guard !titleText.allSatisfy(\.isWhitespace) else {
        return .failure("title field \"\(titleField)\" is empty")
      }
      fields[titleField] = .text(titleText)
    case .null where merges:
      break  // the item's own title stays; a new item without one is refused when written
    case .null: return .failure("missing title field \"\(titleField)\"")
    case let value:
      return .failure("title field \"\(titleField)\" must be a string, not \(value.kindName)")
    }
    for name in textFields where name != titleField {
      switch values[name] ?? .null {
      case .null: break
      case .string(let text): fields[name] = .text(text)
      case .array(let elements):
        switch Self.strings(elements) {
        case .success(let strings): fields[name] = .texts(strings)
        case .failure(let element):
          return .failure(
            "field \"\(name)\" must be a string or an array of strings; it holds \(element.kindName)"
          )
        }
      case let other:
        return .failure(
          "field \"\(name)\" must be a string or an array of strings, not \(other.kindName)")
      }
    }
    for name in known.numbers where name != titleField {
      switch values[name] ?? .null {
      case .null: break
      case .number(let number): fields[name] = .number(number)
      case .string(let text):
        // A CSV cell is text; a JSON string that reads as a number ("12") is one too, and the
        // import says how many it read so.
        let trimmed = text.trimmingSpaces
        if trimmed.isEmpty, numbersFromText { break }
        guard let number = NumberText.parse(trimmed) else {
          return .failure("field \"\(name)\" must be a number, not \"\(text.prefix(60))\"")
        }
        fields[name] = .number(number)
        if !numbersFromText { numbersFromTexts.append(name) }
      case let other:
        return .failure("field \"\(name)\" must be a number, not \(other.kindName)")
      }
    }
    // A place off the earth is a mistake in the file, not a far-away item.
    if let (name, reason) = location?.problem(in: fields) {
      return .failure("field \"\(name)\" is \(reason)")
    }
    if let vectorField {
      switch RawValue.vector(values[vectorField] ?? .null, dimensions: vectorDimensions) {
      case .success(let floats): if let floats { fields[vectorField] = .vector(floats) }
      case .failure(let problem): return .failure("field \"\(vectorField)\" \(problem)")
      }
    }
    if let categoryField, categoryField != titleField {
      switch values[categoryField] ?? .null {
      case .null: break
      case .string(let text): if !text.isEmpty { fields[categoryField] = .text(text) }
      case .array(let elements):
        // An item in several categories (a film's genres): each counts, each keeps it.
        switch Self.strings(elements) {
        case .success(let strings):
          let values = strings.filter { !$0.isEmpty }
          if !values.isEmpty { fields[categoryField] = .texts(values) }
        case .failure(let element):
          return .failure(
            "category field \"\(categoryField)\" must be a string or an array of strings; it holds \(element.kindName)"
          )
        }
      case let other:
        return .failure(
          "category field \"\(categoryField)\" must be a string or an array of strings, not \(other.kindName)"
        )
      }
    }
    var id: ItemID?
    // A CSV cell cannot tell a number from text.
    var idIsNumber: Bool? = numbersFromText ? nil : false
    if let idField {
      switch values[idField] ?? .null {
      case .string(let text) where !text.isEmpty: id = ItemID(text)
      case .number(let number) where number == number.rounded() && abs(number) < 1e15:
        id = ItemID(String(Int64(number)))
        idIsNumber = true
      case .null where numbersRecordsWithoutID: break
      case .null, .string: return .failure("missing id field \"\(idField)\"")
      case let other:
        return .failure(
          "id field \"\(idField)\" must be a string or an integer, not \(other.kindName)")
      }
    }
    // The rest of the record is kept as it came (`CatalogSchema.storedFields`).
    for (name, value) in values where !known.named.contains(name) && name != vectorField {
      if let kept = value.kept(emptyIsNothing: emptyIsNothing ?? numbersFromText) {
        fields[name] = kept
      }
    }
    if let field = CatalogStore.fieldHoldingNUL(id: id, idField: idField ?? "id", fields: fields) {
      return .failure("\(StoreError.unstorableText(field: field))")
    }
    var record = ImportRecord(line: line, id: id, fields: fields, idIsNumber: idIsNumber)
    record.numbersFromTexts = numbersFromTexts
    return .success(record)
  }
}

extension ImportSpec {
  /// The strings of an array, or the first element that is not one.
  static func strings(_ elements: [RawValue]) -> Result<[String], RawValue.NotAString> {
    var strings: [String] = []
    strings.reserveCapacity(elements.count)
    for element in elements {
      guard case .string(let text) = element else { return .failure(.init(element: element)) }
      strings.append(text)
    }
    return .success(strings)
  }
}

extension String {
  /// Without the spaces around it (`CharacterSet.whitespaces`); itself, at once, when it starts
  /// and ends with a visible ASCII character, as a number in a CSV cell does (trimming every
  /// cell took a sixth of an import of the cities as CSV).
  var trimmingSpaces: String {
    guard let first = utf8.first, let last = utf8.last,
      first < 0x80, last < 0x80, first > 0x20, last > 0x20
    else { return trimmingCharacters(in: .whitespaces) }
    return self
  }
}

extension RawValue {
  var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// The value of a field no flag named, as the item keeps it: as it came — a boolean, null,
  /// a list or an object too (`FieldValue`). Nil for an empty CSV cell (`emptyIsNothing`),
  /// which is a field the record does not have.
  /// A vector as a record gives it: an array of numbers, or in a CSV cell its JSON text
  /// (`[0.12, -0.5]`, as an export writes it); an empty cell or `null` is none.
  static func vector(
    _ raw: RawValue, dimensions: Int?
  ) -> Result<[Float]?, VectorProblem> {
    var value = raw.kept(emptyIsNothing: true)
    if case .text(let text)? = value, let json = try? JSONValue.parse(Data(text.utf8)) {
      value = FieldValue(json: json)
    }
    return VectorField.vector(in: value, dimensions: dimensions)
  }

  func kept(emptyIsNothing: Bool) -> FieldValue? {
    if emptyIsNothing, case .string(let text) = self, text.isEmpty { return nil }
    return FieldValue(json: json)
  }

  private var json: JSONValue {
    switch self {
    case .null: .null
    case .bool(let value): .bool(value)
    case .number(let number): .number(number)
    case .string(let text): .string(text)
    case .array(let elements): .array(elements.map(\.json))
    case .object(let members): .object(members.map { ($0.0, $0.1.json) })
    }
  }
}

/// Why one record was refused; the importer adds the file and line.
struct RecordProblem: Error, ExpressibleByStringInterpolation {
  var reason: String

  init(stringLiteral value: String) { reason = value }
  init(stringInterpolation: DefaultStringInterpolation) {
    reason = String(stringInterpolation: stringInterpolation)
  }
}
