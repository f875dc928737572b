/// The value of one field of an item: a string, several strings (alternate names, tags) or a
/// number — what a catalog searches — or, in a field it keeps without searching, any other JSON
/// value as it came: `true`, `null`, a list of numbers, an object. In JSON each is written as
/// it came, so that an app's `true` comes back `true` from every door (search, the HTTP API,
/// the change feed, `sift sync`, export and import).
public enum FieldValue: Hashable, Sendable, Codable {
  case text(String)
  case texts([String])
  case number(Double)
  /// A JSON boolean.
  case bool(Bool)
  /// A JSON `null` that a record gave: kept, unlike a field the record leaves out.
  case null
  /// A JSON array that is not all strings (`[120, 140]`, a list of objects).
  case list([FieldValue])
  /// A JSON object, its members by name.
  case object([String: FieldValue])
  /// The catalog's vector (`VectorField`): numbers kept as 32-bit floats, written in JSON as
  /// the list of numbers they are.
  case vector([Float])

  /// Every string the value holds (none for a number).
  public var strings: [String] {
    switch self {
    case .text(let value): [value]
    case .texts(let values): values
    case .number, .bool, .null, .list, .object, .vector: []
    }
  }

  /// The number, for a number value.
  public var number: Double? {
    if case .number(let value) = self { return value }
    return nil
  }

  /// The value as a person reads it: numbers without a needless ".0", lists joined by commas.
  public var displayText: String {
    switch self {
    case .text(let value): value
    case .texts(let values): values.joined(separator: ", ")
    case .number(let value): FieldValue.format(value)
    case .bool(let value): value ? "true" : "false"
    case .null: ""
    case .list(let values): values.map(\.displayText).joined(separator: ", ")
    case .object(let members):
      members.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.displayText)" }
        .joined(separator: ", ")
    case .vector(let values):
      // Hundreds of numbers read as noise: the first few and how many.
      values.prefix(3).map { FieldValue.format(FieldValue.shortestDouble($0)) }
        .joined(separator: ", ")
        + (values.count > 3 ? ", … (\(values.count) numbers)" : "")
    }
  }

  /// Formats a number the way people write it: integers without decimals, others in the
  /// shortest form that reads back as the same number ("16.99", "10.5").
  public static func format(_ value: Double) -> String {
    if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
      return String(Int64(value))
    }
    return String(value)
  }

  /// A number for reading: like `format(_:)`, with thousands grouped by commas from 10,000 on
  /// ("1,276,000"), so years still read "2007". Locale-independent.
  public static func grouped(_ value: Double) -> String { grouped(value, from: 10_000) }

  /// `grouped(_:)` from `threshold` on: a count or a version reads "1,234".
  public static func grouped(_ value: Double, from threshold: Double) -> String {
    let plain = format(value)
    guard value.isFinite, abs(value) >= threshold else { return plain }
    let negative = plain.hasPrefix("-")
    let digits = negative ? plain.dropFirst() : plain[...]
    let whole = digits.prefix { $0 != "." }
    let rest = digits.dropFirst(whole.count)
    var grouped = ""
    for (index, digit) in whole.enumerated() {
      if index > 0, (whole.count - index) % 3 == 0 { grouped.append(",") }
      grouped.append(digit)
    }
    return (negative ? "-" : "") + grouped + rest
  }

  /// Whether the value is of a kind a catalog searches: a string, strings or a number.
  public var isTextOrNumber: Bool {
    switch self {
    case .text, .texts, .number: true
    case .bool, .null, .list, .object, .vector: false
    }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let text = try? container.decode(String.self) {
      self = .text(text)
    } else if let texts = try? container.decode([String].self) {
      self = .texts(texts)
    } else if let values = try? container.decode([FieldValue].self) {
      self = .list(values)
    } else if let members = try? container.decode([String: FieldValue].self) {
      self = .object(members)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "expected a JSON value")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .text(let value): try container.encode(value)
    case .texts(let values): try container.encode(values)
    case .number(let value): try container.encode(value)
    case .bool(let value): try container.encode(value)
    case .null: try container.encodeNil()
    case .list(let values): try container.encode(values)
    case .object(let members): try container.encode(members)
    case .vector(let values): try container.encode(values)
    }
  }
}

extension FieldValue {
  /// The value as JSON, as it came: a list of strings as one, an object's members by name.
  package var json: JSONValue {
    switch self {
    case .text(let text): .string(text)
    case .texts(let texts): .strings(texts)
    case .number(let number): .number(number)
    case .bool(let value): .bool(value)
    case .null: .null
    case .list(let values): .array(values.map(\.json))
    case .object(let members): .object(sorting: members.map { ($0.key, $0.value.json) })
    case .vector(let values): .array(values.map { .number(FieldValue.shortestDouble($0)) })
    }
  }

  /// The double whose shortest form is the float's (0.1 for the float nearest 0.1), so that a
  /// vector's JSON reads as it was written and reads back as the same floats.
  static func shortestDouble(_ value: Float) -> Double {
    Double(value.description) ?? Double(value)
  }

  /// The value as a result's JSON writes it under its field's name; nil for an empty text in a
  /// searched field, which is no value (an empty CSV cell). A kept field's `""` is kept.
  package func resultJSON(kept: Bool) -> JSONValue? {
    if !kept, case .text(let text) = self, text.isEmpty { return nil }
    return json
  }

  /// A JSON value as an item keeps it: a string, a number, a boolean or null as itself, an
  /// array of strings (an empty one too) as `texts`, any other array as a `list`.
  package init(json: JSONValue) {
    switch json {
    case .string(let text): self = .text(text)
    case .strings(let texts): self = .texts(texts)
    case .number(let number): self = .number(number)
    case .bool(let value): self = .bool(value)
    case .null: self = .null
    case .array(let values):
      var texts: [String] = []
      texts.reserveCapacity(values.count)
      for value in values {
        guard case .string(let text) = value else {
          self = .list(values.map(FieldValue.init(json:)))
          return
        }
        texts.append(text)
      }
      self = .texts(texts)
    case .object(let members):
      self = .object(
        Dictionary(members.map { ($0.0, FieldValue(json: $0.1)) }, uniquingKeysWith: { $1 }))
    }
  }
}
