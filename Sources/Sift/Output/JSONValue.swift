/// JSON written straight to bytes, for `sift search --json` and `sift serve` alike: keys in the
/// order given (`object(sorting:)` sorts them), numbers as people write them
/// (`FieldValue.format`), strings escaped per RFC 8259 — and beyond it DEL, the C1 controls and
/// U+2028/U+2029 too, so that no JSON line can drive a terminal or break a script. Foundation's
/// `JSONEncoder` took 45% of a search the server answered from memory; this takes a small part.
package enum JSONValue: Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case strings([String])
  case array([JSONValue])
  case object([(String, JSONValue)])

  package static func object(sorting members: [(String, JSONValue)]) -> JSONValue {
    .object(members.sorted { $0.0 < $1.0 })
  }

  /// A string, or null.
  package static func optional(_ value: String?) -> JSONValue {
    value.map(JSONValue.string) ?? .null
  }

  /// A number, or null.
  package static func optional(_ value: Double?) -> JSONValue {
    value.map(JSONValue.number) ?? .null
  }

  package var bytes: [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(256)
    write(to: &output)
    return output
  }

  package var text: String { String(decoding: bytes, as: UTF8.self) }

  package func write(to output: inout [UInt8]) {
    switch self {
    case .null: output.append(contentsOf: "null".utf8)
    case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
    case .number(let value):
      output.append(contentsOf: (value.isFinite ? FieldValue.format(value) : "null").utf8)
    case .string(let value): Self.write(string: value, to: &output)
    case .strings(let values): JSONValue.array(values.map(JSONValue.string)).write(to: &output)
    case .array(let values):
      output.append(UInt8(ascii: "["))
      for (index, value) in values.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        value.write(to: &output)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let members):
      output.append(UInt8(ascii: "{"))
      for (index, (key, value)) in members.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        Self.write(string: key, to: &output)
        output.append(UInt8(ascii: ":"))
        value.write(to: &output)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  static func write(string value: String, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    var value = value
    value.withUTF8 { bytes in
      // Byte by byte, copying runs that need no escape; the escaped scalars above ASCII are
      // C1 (C2 80…C2 9F) and U+2028/U+2029 (E2 80 A8, E2 80 A9).
      var runStart = 0
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        var escaped: UInt32?
        var length = 1
        switch byte {
        case 0..<0x20, 0x22, 0x5C, 0x7F: escaped = UInt32(byte)
        case 0xC2 where index + 1 < bytes.count && (0x80..<0xA0).contains(bytes[index + 1]):
          escaped = UInt32(bytes[index + 1])
          length = 2
        case 0xE2
        where index + 2 < bytes.count && bytes[index + 1] == 0x80
          && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
          escaped = 0x2000 | UInt32(bytes[index + 2] - 0x80)
          length = 3
        default: break
        }
        if let escaped {
          output.append(contentsOf: bytes[runStart..<index])
          append(escape: escaped, to: &output)
          runStart = index + length
        }
        index += length
      }
      output.append(contentsOf: bytes[runStart..<bytes.count])
    }
    output.append(UInt8(ascii: "\""))
  }

  private static func append(escape scalar: UInt32, to output: inout [UInt8]) {
    switch scalar {
    case 0x22: output.append(contentsOf: #"\""#.utf8)
    case 0x5C: output.append(contentsOf: #"\\"#.utf8)
    case 0x0A: output.append(contentsOf: #"\n"#.utf8)
    case 0x0D: output.append(contentsOf: #"\r"#.utf8)
    case 0x09: output.append(contentsOf: #"\t"#.utf8)
    default:
      let hex = Array("0123456789ABCDEF".utf8)
      output.append(contentsOf: #"\u"#.utf8)
      for shift in stride(from: 12, through: 0, by: -4) {
        output.append(hex[Int((scalar >> UInt32(shift)) & 0xF)])
      }
    }
  }
}

extension MatchExplanation {
  /// The rule values as `sift search --json --explain` and `sift serve`'s `explain=1` give
  /// them: typos, exactness and the value that decided it, the best match, popularity, catalog
  /// order, the sort's field and value when sorted. The highlights are left to the caller (character or UTF-16 offsets).
  package var jsonMembers: [(String, JSONValue)] {
    var members: [(String, JSONValue)] = []
    if pinned { members.append(("pinned", .bool(true))) }
    if let synonym { members.append(("via_synonym", .string(synonym))) }
    // Found by meaning alone, no word placed it: the text's rules have nothing to say.
    if !isByMeaningAlone {
      members += [
        ("typos", .number(Double(rank.typos))), ("exactness", .string(rank.exactness.name)),
      ]
      if let exactField {
        members += [("exact_field", .string(exactField)), ("exact_value", .optional(exactValue))]
      }
      if let typedWeight {
        members += [
          ("typed_magnitude", .number(Double(typedWeight.magnitude))),
          ("typed_points", .number(Double(typedWeight.points))),
          ("typed_edits", .number(Double(typedWeight.edits))),
        ]
      }
      members += [
        ("attribute", .number(Double(rank.attribute))), ("field", .optional(field)),
        ("value", .optional(value)),
      ]
      if let readBy { members.append(("read_by", .string(readBy))) }
      if ranksByAgreement, let title = rank.titleHoldsTerms, let equal = rank.equalFields {
        members += [("title_holds_terms", .bool(title)), ("equal_fields", .number(Double(equal)))]
      } else {
        members.append(("position", .number(Double(rank.wordPosition))))
        if ranksByAgreement, let covered = rank.titleCovered {
          members.append(("title_covered", .bool(covered)))
        }
      }
    }
    if let rankingField {
      members += [
        ("ranking_field", .string(rankingField)),
        ("popularity", popularity.map(JSONValue.number) ?? .null),
      ]
    }
    if !hidesCatalogOrder { members.append(("catalog_order", .number(Double(catalogOrder)))) }
    if let sortField {
      members += [("sort_field", .string(sortField)), ("sort_value", .optional(sortValue))]
    }
    if let distanceKilometers { members.append(("distance_km", .number(distanceKilometers))) }
    if let meaning {
      members += [
        ("similarity", .optional(meaning.similarity.map(MatchExplanation.rounded))),
        ("near_rank", .optional(meaning.nearRank.map(Double.init))),
        ("text_rank", .optional(meaning.textRank.map(Double.init))),
        ("text_rank_past", .optional(meaning.textRankPast.map(Double.init))),
        ("fused_score", .optional(meaning.fusedScore.map(MatchExplanation.rounded))),
        ("name_equals_query", .bool(meaning.nameEqualsQuery)),
      ]
    }
    members.append(("ahead_of_next", .optional(aheadOfNext)))
    return members
  }
}

extension Facets {
  /// `{"scopes": [{"title", "count"}…], "categories": [{"value", "count"}…], "ranges": [{"field",
  /// "min", "max"}…]}`, categories as
  /// `namedCategories(schema:)` orders them: what `sift search --facets --json` and
  /// `sift serve`'s `facets=1` answer.
  /// `scopeTitles`: the scope buttons to write, when not every one (a tenant's).
  package func json(schema: CatalogSchema, scopeTitles: Set<String>? = nil) -> JSONValue {
    .object([
      (
        "scopes",
        .array(
          zip(schema.scopeTitles, scopes).compactMap { title, count in
            guard scopeTitles?.contains(title) ?? true else { return nil }
            return .object([("title", .string(title)), ("count", .number(Double(count)))])
          })
      ),
      (
        "categories",
        .array(
          namedCategories(schema: schema).map { value, count in
            .object([("value", .string(value)), ("count", .number(Double(count)))])
          })
      ),
      (
        "ranges",
        .array(
          schema.fields.compactMap { field in
            ranges[field.name].map {
              .object([
                ("field", .string(field.name)), ("min", .number($0.lowerBound)),
                ("max", .number($0.upperBound)),
              ])
            }
          })
      ),
    ])
  }
}
