/// The value of one field of an item: a string, several strings (alternate names, tags) or a
/// number. In JSON it is written as a plain string, array of strings or number.
public enum FieldValue: Hashable, Sendable, Codable {
  case text(String)
  case texts([String])
  case number(Double)

  /// Every string the value holds (none for a number).
  public var strings: [String] {
    switch self {
    case .text(let value): [value]
    case .texts(let values): values
    case .number: []
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

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let text = try? container.decode(String.self) {
      self = .text(text)
    } else if let texts = try? container.decode([String].self) {
      self = .texts(texts)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "expected a string, an array of strings or a number")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .text(let value): try container.encode(value)
    case .texts(let values): try container.encode(values)
    case .number(let value): try container.encode(value)
    }
  }
}
