/// One field of a catalog's schema.
public struct FieldDefinition: Hashable, Sendable, Codable {
  public enum Kind: String, Hashable, Sendable, Codable {
    /// Searched by substring; a value may hold several strings.
    case text
    /// Compared with `=`, `<`, `<=`, `>`, `>=` and ranges; plain number terms equal it.
    case number
    /// The catalog's grouping (CandySearch's category): filtered by equality, from the scope bar
    /// or a token.
    case category
  }

  /// The name used in queries (`price:<10`) and in item data.
  public var name: String
  /// What a person reads ("Intro price"); also accepted in queries, case-insensitively.
  public var label: String
  public var kind: Kind
  /// Whether plain terms search this field when no field scope is selected. For the category,
  /// whether plain terms search its values as text, ranked after every other field: `goat`
  /// finds the pets whose species is Goat, after any named Goat.
  public var isSearchable: Bool
  /// Decimals to show for a number field (prices: 2); nil shows the number as it is.
  public var decimals: Int?
  /// Whether a text field holds the item's other names (a city's alternate names, an airport's
  /// codes): it ranks like the title, so "münchen" finds Munich as a name. Any other text field
  /// describes the item (genres, breeds, a description): a value of it equal to the query never
  /// comes before a name that starts with it (README, "How results are ordered").
  public var namesItem: Bool

  public init(
    name: String, label: String? = nil, kind: Kind, isSearchable: Bool = true,
    decimals: Int? = nil, namesItem: Bool = false
  ) {
    self.name = name
    self.label = label ?? name.prefix(1).uppercased() + name.dropFirst()
    self.kind = kind
    self.isSearchable = isSearchable
    self.decimals = decimals
    self.namesItem = namesItem && kind == .text
  }

  /// A text field; `names: true` when it holds the item's other names (`namesItem`).
  public static func text(
    _ name: String, label: String? = nil, searchable: Bool = true, names: Bool = false
  ) -> Self {
    Self(name: name, label: label, kind: .text, isSearchable: searchable, namesItem: names)
  }

  public static func number(
    _ name: String, label: String? = nil, searchable: Bool = true, decimals: Int? = nil
  ) -> Self {
    Self(name: name, label: label, kind: .number, isSearchable: searchable, decimals: decimals)
  }

  /// The category; `searchable: true` lets plain terms find its values too, as the weakest
  /// text (an import's category is searched unless it says `--no-search-category`).
  public static func category(_ name: String, label: String? = nil, searchable: Bool = false)
    -> Self
  {
    Self(name: name, label: label, kind: .category, isSearchable: searchable)
  }

  /// The value as this field shows it.
  public func display(_ value: FieldValue) -> String {
    if case .number(let number) = value, let decimals, number.isFinite, abs(number) < 1e15 {
      return Self.fixed(number, decimals: decimals)
    }
    return value.displayText
  }

  /// The value as this field shows it in a one-line summary: a long list (a city's hundred
  /// alternate names) cut to its first `maximumValues`, with how many more there are, and big
  /// numbers grouped ("1,276,000").
  public func display(_ value: FieldValue, maximumValues: Int) -> String {
    if case .number(let number) = value, decimals == nil { return FieldValue.grouped(number) }
    guard case .texts(let values) = value, values.count > maximumValues else {
      return display(value)
    }
    return values.prefix(maximumValues).joined(separator: ", ")
      + " (+\(values.count - maximumValues) more)"
  }

  /// `display(_:maximumValues:)` of a value that shows something: nil for a missing value or
  /// one that reads blank (a city without alternate names), which rows leave out rather than
  /// show as a bare label.
  public func summary(_ value: FieldValue?, maximumValues: Int) -> String? {
    guard let value else { return nil }
    let shown = display(value, maximumValues: maximumValues)
    return shown.allSatisfy(\.isWhitespace) ? nil : shown
  }

  private static func fixed(_ value: Double, decimals: Int) -> String {
    let digits = max(0, min(decimals, 9))
    var scale: Int64 = 1
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int64((abs(value) * Double(scale)).rounded())
    let whole = scaled / scale
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard digits > 0 else { return "\(sign)\(whole)" }
    let fraction = String(scaled % scale)
    return "\(sign)\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
  }

  private enum CodingKeys: String, CodingKey {
    case name, label, kind, searchable, decimals, names
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let name = try container.decode(String.self, forKey: .name)
    let kind = try container.decode(Kind.self, forKey: .kind)
    self.init(
      name: name, label: try container.decodeIfPresent(String.self, forKey: .label), kind: kind,
      isSearchable: try container.decodeIfPresent(Bool.self, forKey: .searchable)
        ?? (kind != .category),
      decimals: try container.decodeIfPresent(Int.self, forKey: .decimals),
      namesItem: try container.decodeIfPresent(Bool.self, forKey: .names) ?? false)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(label, forKey: .label)
    try container.encode(kind, forKey: .kind)
    try container.encode(isSearchable, forKey: .searchable)
    try container.encodeIfPresent(decimals, forKey: .decimals)
    if namesItem { try container.encode(true, forKey: .names) }
  }
}
