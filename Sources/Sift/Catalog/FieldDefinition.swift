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
  /// comes before a name that starts with it (docs/ranking.md).
  public var namesItem: Bool

  public init(
    name: String, label: String? = nil, kind: Kind, isSearchable: Bool = true,
    decimals: Int? = nil, namesItem: Bool = false
  ) {
    self.name = name
    self.label = label ?? Self.words(of: name)
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
    var label = try container.decodeIfPresent(String.self, forKey: .label)
    // Catalogs saved before labels were words kept the name with a capital ("Primary_breed"):
    // that label was never given, so it reads as words now.
    if label == name.prefix(1).uppercased() + name.dropFirst() { label = nil }
    self.init(
      name: name, label: label, kind: kind,
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

extension FieldDefinition {
  /// A field's or catalog's name as words a person reads, for a label nobody gave:
  /// `primary_breed` → "Primary breed", `avgRating` → "Avg rating", `userID` → "User ID",
  /// `HTMLTitle` → "HTML title". Words are split at `_`, `-`, `.` and spaces, and where a
  /// lowercase letter or digit meets a capital or a run of capitals meets a capitalised word; a word
  /// in capitals keeps them, any other is lowercased, and the first letter is a capital.
  static func words(of name: String) -> String {
    var words: [[Character]] = []
    var word: [Character] = []
    let characters = Array(name)
    func finishWord() {
      if !word.isEmpty { words.append(word) }
      word = []
    }
    for (index, character) in characters.enumerated() {
      if character == "_" || character == "-" || character == "." || character.isWhitespace {
        finishWord()
        continue
      }
      if character.isUppercase, let previous = word.last {
        let next = index + 1 < characters.count ? characters[index + 1] : nil
        // `avgRating`, `mp3Player`: a capital after a lowercase letter or a digit;
        // `HTMLTitle`: the capital that starts a lowercase word after a run of capitals.
        if previous.isLowercase || previous.isNumber
          || (previous.isUppercase && next?.isLowercase == true)
        {
          finishWord()
        }
      }
      word.append(character)
    }
    finishWord()
    guard !words.isEmpty else { return name }
    let shown = words.enumerated().map { place, word -> String in
      let text = String(word)
      let isCapitals =
        word.count > 1 && word.allSatisfy { !$0.isLowercase }
        && word.contains { $0.isUppercase }
      if isCapitals { return text }
      let lower = text.lowercased()
      return place == 0 ? lower.prefix(1).uppercased() + lower.dropFirst() : lower
    }
    return shown.joined(separator: " ")
  }
}
