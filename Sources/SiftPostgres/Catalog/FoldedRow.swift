#if Server
import Foundation
import Sift

/// One item as its `items` row: the fields as JSON, and Sift's folding of them in the columns
/// beside (`CatalogLayout`) — written by Sift, never by the database's own text functions.
struct FoldedRow: Sendable {
  var id: String
  var fields: String
  var category: String?
  /// Per text field: the folded values joined, and the initial-consonant keys (nil: no Hangul).
  var texts: [(folded: String, initials: String?)]
  var numbers: [Double?]
  /// What a one-letter search reads of it.
  var letters: LetterSummary
  /// Its popularity (the ranking field's number), as the letters table keeps it.
  var popularity: Double?

  init(_ item: Item, schema: SearchSchema<Item>, layout: CatalogLayout) throws(PostgresError) {
    id = item.id.rawValue
    let values = schema.indexedValues(of: item)
    texts = values.texts.map { strings in
      var folded: [UInt8] = []
      var initials: [UInt8] = []
      var hasInitials = false
      for (index, string) in strings.enumerated() {
        if index > 0 { folded.append(0x1F) }
        TextFolding.append(string, to: &folded)
        var key: [UInt8] = []
        if TextFolding.appendInitialConsonants(of: string, to: &key) {
          if hasInitials { initials.append(0x1F) }
          initials += key
          hasInitials = true
        }
      }
      return (
        String(decoding: folded, as: UTF8.self),
        hasInitials ? String(decoding: initials, as: UTF8.self) : nil
      )
    }
    numbers = values.numbers.map { $0.flatMap { $0.isNaN ? nil : $0 } }
    popularity = layout.rankingColumn.flatMap { [numbers] in numbers[$0] }
    letters = layout.letterSummary(
      folded: texts.map { folded, _ in folded }, popularity: popularity)
    category = values.category.map(TextFolding.fold)
    fields = Self.json(item, layout.schema)
    // PostgreSQL's text cannot hold NUL, nor jsonb its escape: say which item, not the server.
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
      switch item[field.name] {
      case .none: continue
      case .text(let text): members.append((field.name, .string(text)))
      case .texts(let texts): members.append((field.name, .strings(texts)))
      case .number(let number): members.append((field.name, .number(number)))
      }
    }
    return JSONValue.object(members).text
  }

  /// The item back from its JSON fields.
  static func item(id: String, fields json: String) throws(PostgresError) -> Item {
    guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    else { throw .unsupported("item \"\(id)\": its fields are not a JSON object") }
    var fields: [String: FieldValue] = [:]
    for (name, value) in object {
      switch value {
      case let text as String: fields[name] = .text(text)
      case let texts as [String]: fields[name] = .texts(texts)
      case let number as NSNumber: fields[name] = .number(number.doubleValue)
      default: continue
      }
    }
    return Item(id: ItemID(id), fields: fields)
  }

  /// The row in COPY's text format: tab-separated, `\N` for null, backslash escapes.
  func copyLine(order: Int64) -> String {
    var line = Self.escape(id) + "\t\(order)\t" + Self.escape(fields) + "\t"
    line += category.map(Self.escape) ?? "\\N"
    for text in texts {
      line += "\t" + Self.escape(text.folded) + "\t" + (text.initials.map(Self.escape) ?? "\\N")
    }
    for number in numbers {
      line += "\t" + (number.map(Self.number) ?? "\\N")
    }
    return line + "\t\(letters.held)\t\(letters.startingWords)\t\(letters.startingValues)\n"
  }

  /// The item's rows of the letters table in COPY's text format (`CatalogLayout.letterTables`).
  func letterLines(order: Int64) -> String {
    Self.letterLines(letters.ranks, popularity: popularity, order: order, category: category)
  }

  static func letterLines(
    _ ranks: [LetterRank], popularity: Double?, order: Int64, category: String?
  ) -> String {
    let tail =
      "\t" + (popularity.map(number) ?? "\\N") + "\t\(order)\t"
      + (category.map(escape) ?? "\\N") + "\n"
    return ranks.map { "\($0.letter)\t\($0.rank)" + tail }.joined()
  }

  /// A double as PostgreSQL reads it.
  private static func number(_ value: Double) -> String {
    value.isInfinite ? (value < 0 ? "-Infinity" : "Infinity") : String(value)
  }

  private static func escape(_ text: String) -> String {
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
