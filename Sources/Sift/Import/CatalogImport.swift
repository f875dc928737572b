/// One record read from an import file, checked against the spec.
public struct ImportRecord: Hashable, Sendable {
  /// Where the record starts in the file (1-based).
  public var line: Int
  /// The id it gives its item; nil: the next free number.
  public var id: ItemID?
  public var fields: [String: FieldValue]
  /// Whether the record gave its id as a JSON number (`{"sku": 7}`) or a string; nil when
  /// its file cannot tell (a CSV cell is text).
  public var idIsNumber: Bool?
  /// The number fields whose value the record gave as a JSON string that reads as a number
  /// (`"year": "2007"`): imported as the number, and counted in the summary.
  public var numbersFromTexts: [String] = []

  public init(line: Int, id: ItemID?, fields: [String: FieldValue], idIsNumber: Bool? = nil) {
    self.line = line
    self.id = id
    self.fields = fields
    self.idIsNumber = idIsNumber
  }
}

/// The rules of an import, the same whichever store keeps the catalog: how the import's
/// fields join the catalog's schema, how records become items (a known id updates its item in
/// place, a new one is added at the end, a record without one gets the next free number), and
/// when the category makes a scope bar. A .sqlite catalog applies them in SQL, a record at a
/// time; a catalog in PostgreSQL to its items in memory (`apply(_:spec:to:)`), then writes them
/// back in one transaction.
public enum CatalogImport {
  /// How many records added items and how many updated one, and what the file lacked.
  public struct Summary: Hashable, Sendable {
    public var added: Int
    public var updated: Int
    /// The stored fields this file's records hold: kept and shown, not searched.
    public var kept: [String]
    /// The catalog's vectors and how many of this file's records held one.
    public var vectors: Vectors?
    /// Records whose item has no place (a coordinate missing, null or not a number) in a
    /// catalog with a location: last near a place, never within a radius.
    public var placeless: Absence?
    /// Searched fields (besides the title) that no record of the file holds.
    public var unfilled: [String] = []
    /// Records that gave a number field's value as a string that reads as a number, and the
    /// fields they gave so.
    public var numbersFromTexts: Absence?
    public var textNumberFields: [String] = []
    /// Records that did not fit and were passed over (`--skip-invalid`).
    public var skipped = 0
    public var total: Int { added + updated }

    /// The vector field (`VectorField`) and the records that gave a vector.
    public struct Vectors: Hashable, Sendable {
      public var field: VectorField
      public var records: Int
    }

    /// How many records lacked something, and the line of the first.
    public struct Absence: Hashable, Sendable {
      public var count: Int
      public var firstLine: Int
    }

    public init(added: Int = 0, updated: Int = 0, kept: [String] = []) {
      self.added = added
      self.updated = updated
      self.kept = kept
    }

    /// What `records` held of `schema`'s fields: the stored fields they hold, the records
    /// without a place, the searched fields none holds (not counted for `--merge`, which
    /// changes only the fields a record names).
    public mutating func describe(
      _ records: [ImportRecord], schema: CatalogSchema, merges: Bool
    ) {
      var tally = Tally(location: schema.location)
      for record in records { tally.add(record) }
      describe(tally, schema: schema, merges: merges)
    }

    /// What the records a `tally` counted held of `schema`'s fields, as `describe(_:schema:merges:)`.
    public mutating func describe(_ tally: Tally, schema: CatalogSchema, merges: Bool) {
      kept = schema.storedFields.map(\.name).filter {
        tally.present.contains($0) && $0 != schema.vector?.field
      }
      vectors = schema.vector.map { Vectors(field: $0, records: tally.vectors) }
      numbersFromTexts =
        tally.numbersFromTexts == 0
        ? nil : Absence(count: tally.numbersFromTexts, firstLine: tally.firstNumberFromText)
      textNumberFields = tally.textNumberFields.sorted()
      placeless =
        tally.placeless == 0 || merges || schema.location == nil
        ? nil : Absence(count: tally.placeless, firstLine: tally.firstPlaceless)
      unfilled =
        merges || tally.records == 0
        ? []
        : schema.fields.map(\.name).filter {
          $0 != schema.titleField && !tally.present.contains($0)
        }
    }

    /// What an import's records held, counted a record at a time: what a summary reports of
    /// records no longer in memory (an import writes them a batch at a time).
    public struct Tally: Sendable {
      let location: LocationFields?
      /// The fields some record held.
      public private(set) var present: Set<String> = []
      public private(set) var records = 0
      /// Records without a place (a coordinate missing or not a number), and the first's line.
      public private(set) var placeless = 0
      public private(set) var firstPlaceless = 0
      /// Records with a number given as text, the first's line, and the fields.
      public private(set) var numbersFromTexts = 0
      public private(set) var firstNumberFromText = 0
      public private(set) var textNumberFields: Set<String> = []
      /// Records that held a vector (`FieldValue.vector`).
      public private(set) var vectors = 0

      /// A tally of records for a catalog whose place is in `location`'s fields.
      public init(location: LocationFields?) {
        self.location = location
      }

      public mutating func add(_ record: ImportRecord) {
        records += 1
        if !record.numbersFromTexts.isEmpty {
          if numbersFromTexts == 0 { firstNumberFromText = record.line }
          numbersFromTexts += 1
          textNumberFields.formUnion(record.numbersFromTexts)
        }
        for (name, value) in record.fields {
          if !present.contains(name) { present.insert(name) }
          if case .vector = value { vectors += 1 }
        }
        if let location,
          record.fields[location.latitude].indexedNumber == nil
            || record.fields[location.longitude].indexedNumber == nil
        {
          if placeless == 0 { firstPlaceless = record.line }
          placeless += 1
        }
      }
    }

    /// "Imported 3 items into c.sqlite (2 added, 1 updated)"; the fields it keeps without
    /// searching them, with how to search one; and what `file` lacked, once each, with a
    /// count and the first line.
    public func report(into catalog: String, from file: String? = nil) -> String {
      var text =
        "Imported \(total) item\(total == 1 ? "" : "s") into \(catalog) (\(added) added, \(updated) updated)"
      if let vectors, vectors.records > 0 {
        let count = vectors.records
        text +=
          "\nVectors: \(vectors.field.field), \(vectors.field.dimensions) numbers each, in \(FieldValue.grouped(Double(count), from: 10_000)) record\(count == 1 ? "" : "s") (search by meaning with --vector FILE or --like ID)"
      }
      if !kept.isEmpty {
        text +=
          "\nKept, not searched: \(kept.joined(separator: ", ")) (search one with --text FIELD or --number FIELD)"
      }
      if let placeless {
        let place = file.map { "\($0):\(placeless.firstLine)" } ?? "line \(placeless.firstLine)"
        text +=
          "\nWithout a place: \(placeless.count) item\(placeless.count == 1 ? "" : "s") (a coordinate missing or null; the first at \(place)): last near a place, and never within a radius"
      }
      if !unfilled.isEmpty {
        text +=
          "\nSearched but in no record\(file.map { " of \($0)" } ?? ""): \(unfilled.joined(separator: ", "))"
      }
      if let numbersFromTexts {
        let place =
          file.map { "\($0):\(numbersFromTexts.firstLine)" } ?? "line \(numbersFromTexts.firstLine)"
        let count = numbersFromTexts.count
        text +=
          "\nRead as numbers: \(textNumberFields.joined(separator: ", ")) given as text in \(count) record\(count == 1 ? "" : "s") (\"12\" for 12; the first at \(place))"
      }
      if skipped > 0 {
        text += "\nSkipped \(skipped) record\(skipped == 1 ? "" : "s") that did not fit"
      }
      return text
    }
  }

  /// The most category values that still make a scope bar; more are offered as tokens only.
  public static let maximumScopeCategories = 8

  /// The schema of a catalog an import creates: the import's fields, with an "All" scope when
  /// it has a category.
  public static func newSchema(name: String, spec: ImportSpec) -> CatalogSchema {
    CatalogSchema(
      name: name, title: spec.catalogTitle, fields: spec.fields, titleField: spec.titleField,
      categoryField: spec.categoryField, scopes: spec.categoryField == nil ? [] : [.all()],
      rankingField: spec.rankingField, location: spec.location)
  }

  /// The first record that would add an item without a title: with `ImportSpec.merges` a
  /// record may leave the title out, which keeps the title of an item the catalog has.
  public static func untitledNewRecord(
    in records: [ImportRecord], titleField: String, isKnown: (ItemID) -> Bool
  ) -> ImportRecord? {
    records.first { record in
      record.fields[titleField] == nil && !(record.id.map(isKnown) ?? false)
    }
  }

  /// The fields `records` hold that `spec` does not name, each kept as a stored field: a
  /// number field when every value is a number, else a text field; in name order.
  public static func storedFields(
    in records: [ImportRecord], spec: ImportSpec
  ) -> [FieldDefinition] {
    var stored = StoredFields(spec: spec)
    for record in records { stored.add(record) }
    return stored.fields
  }

  /// The fields records hold that a spec does not name, gathered a record at a time (an
  /// import writes its records a batch at a time): `storedFields(in:spec:)` of all of them.
  public struct StoredFields: Sendable {
    private let named: Set<String>
    /// Per field: whether every value so far was a number.
    private var isNumber: [String: Bool] = [:]
    private var numberIDs = false
    private var wholeNumberTexts = false

    /// Whether the records gave their ids as numbers (`CatalogSchema.idsAreNumbers`): some did,
    /// and none gave a whole number as a string. Nil: no record said either way.
    public var idsAreNumbers: Bool? {
      wholeNumberTexts ? false : numberIDs ? true : nil
    }

    public init(spec: ImportSpec) {
      named = spec.namedFields
    }

    /// Adds what `record` holds; true when it holds a field none before held, or a text in a
    /// field that held only numbers until now.
    @discardableResult
    public mutating func add(_ record: ImportRecord) -> Bool {
      var changed = false
      if record.idIsNumber == true {
        if !numberIDs { changed = !wholeNumberTexts }
        numberIDs = true
      } else if record.idIsNumber == false, !wholeNumberTexts, let id = record.id,
        Int64(id.rawValue) != nil
      {
        wholeNumberTexts = true
        changed = numberIDs
      }
      for (name, value) in record.fields where !named.contains(name) {
        let number: Bool
        if case .number = value { number = true } else { number = false }
        let before = isNumber[name]
        let now = (before ?? true) && number
        if before != now {
          isNumber[name] = now
          changed = true
        }
      }
      return changed
    }

    /// Each field kept as a stored field: a number field when every value is a number, else
    /// a text field; in name order.
    public var fields: [FieldDefinition] {
      isNumber.keys.sorted().map { name in
        isNumber[name] == true ? .number(name, searchable: false) : .text(name, searchable: false)
      }
    }
  }

  /// `schema` with the import's fields added, `stored` among the fields it keeps unsearched,
  /// the labels set and the id field remembered. The title and category must be the
  /// catalog's; a field the catalog has must keep its kind, and one it kept unsearched becomes
  /// searched when the import names it.
  public static func merged(
    _ schema: CatalogSchema, with spec: ImportSpec, stored: [FieldDefinition] = [],
    idsAreNumbers: Bool? = nil
  ) throws(ImportSchemaError) -> CatalogSchema {
    var schema = schema
    let spec = spec.continuing(schema)
    if let title = spec.catalogTitle { schema.title = title }
    guard schema.titleField == spec.titleField else {
      throw .incompatible(
        "the catalog's title field is \"\(schema.titleField)\", not \"\(spec.titleField)\"")
    }
    if let category = spec.categoryField, let existing = schema.categoryField, existing != category
    {
      throw .incompatible(
        "the catalog's category field is \"\(existing)\", not \"\(category)\"")
    }
    for field in spec.fields {
      if let index = schema.fields.firstIndex(where: { $0.name == field.name }) {
        let existing = schema.fields[index]
        guard existing.kind == field.kind else {
          throw .incompatible(
            "field \"\(field.name)\" is a \(existing.kind.rawValue) field in the catalog, not \(field.kind.rawValue)"
          )
        }
        // An import that names a field's role (`--other-names`) gives it, and one that says
        // whether the category is searched (`--[no-]search-category`) decides it.
        if field.namesItem { schema.fields[index].namesItem = true }
        if field.kind == .category, let searched = spec.searchesCategory {
          schema.fields[index].isSearchable = searched
        }
      } else if let index = schema.storedFields.firstIndex(where: { $0.name == field.name }) {
        // Kept until now, searched from here on: text may become a category, not a number.
        let kept = schema.storedFields[index]
        guard kept.kind == field.kind || (kept.kind == .text && field.kind == .category) else {
          throw .incompatible(
            "field \"\(field.name)\" is kept as a \(kept.kind.rawValue) field in the catalog, not \(field.kind.rawValue)"
          )
        }
        schema.storedFields.remove(at: index)
        var searched = field
        searched.label = kept.label
        schema.fields.append(searched)
      } else {
        schema.fields.append(field)
      }
    }
    for field in stored where !schema.fields.contains(where: { $0.name == field.name }) {
      if let index = schema.storedFields.firstIndex(where: { $0.name == field.name }) {
        // A field kept as numbers that now holds text is text.
        if schema.storedFields[index].kind != field.kind { schema.storedFields[index].kind = .text }
      } else {
        schema.storedFields.append(field)
      }
    }
    for (name, label) in spec.labels.sorted(by: { $0.key < $1.key }) {
      if let index = schema.fields.firstIndex(where: { $0.name == name }) {
        schema.fields[index].label = label
      } else if let index = schema.storedFields.firstIndex(where: { $0.name == name }) {
        schema.storedFields[index].label = label
      } else {
        throw .unknownLabelField(name, known: schema.allFields.map(\.name))
      }
    }
    if let idField = spec.idField { schema.idField = idField }
    if let idsAreNumbers { schema.idsAreNumbers = idsAreNumbers }
    if let ranking = spec.rankingField { schema.rankingField = ranking }
    if let location = spec.location { schema.location = location }
    if let field = spec.vectorField {
      if let existing = schema.vector, existing.field != field {
        throw .incompatible("the catalog's vector field is \"\(existing.field)\", not \"\(field)\"")
      }
      // Known once a record held a vector; until then the catalog has none.
      if let dimensions = spec.vectorDimensions {
        schema.vector = VectorField(field: field, dimensions: dimensions)
      }
    }
    if schema.categoryField == nil, let category = spec.categoryField {
      schema.categoryField = category
      if schema.scopes.isEmpty { schema.scopes = [.all()] }
    }
    do {
      try schema.validate()
    } catch {
      throw .invalid(error)
    }
    return schema
  }

  /// A scope per category value when there are few (CandySearch's bar), else every value as a
  /// token suggestion; scopes the catalog already had keep their order and icons.
  /// `values`: the category's distinct non-empty values, in the order of the items that first
  /// hold them.
  public static func withCategoryScopes(
    _ schema: CatalogSchema, values: [String]
  ) -> CatalogSchema {
    guard schema.categoryField != nil else { return schema }
    var schema = schema
    if values.count <= maximumScopeCategories {
      let known = Set(schema.scopeCategories)
      if schema.scopes.isEmpty { schema.scopes = [.all()] }
      schema.scopes += values.filter { !known.contains($0) }.map { Scope.category($0) }
      schema.categories = []
    } else {
      schema.scopes = schema.scopes.filter {
        if case .category = $0.filter { return false }
        return true
      }
      if schema.scopes.count == 1, case .all = schema.scopes[0].filter { schema.scopes = [] }
      schema.categories = values.sorted()
    }
    return schema
  }

  /// `document` with `records` imported: its schema merged with the import's, a known id's
  /// item replaced by the record in its place (with `ImportSpec.merges`, given the record's
  /// fields and keeping the rest), new ones added at the end, and the scopes or tokens of the
  /// category as the items now have them.
  public static func apply(
    _ records: [ImportRecord], spec: ImportSpec, to document: CatalogDocument
  ) throws(ImportSchemaError) -> (document: CatalogDocument, summary: Summary) {
    let spec = spec.continuing(document.schema)
    var stored = StoredFields(spec: spec)
    for record in records { stored.add(record) }
    var schema = try merged(
      document.schema, with: spec, stored: stored.fields, idsAreNumbers: stored.idsAreNumbers)
    var items = document.items
    var rowOfID: [ItemID: Int] = [:]
    for (row, item) in items.enumerated() { rowOfID[item.id] = row }
    var allocator = ItemIDAllocator(ids: items.lazy.map(\.id.rawValue))
    var summary = Summary()
    if let untitled = untitledNewRecord(
      in: records, titleField: schema.titleField, isKnown: { rowOfID[$0] != nil })
    {
      throw .untitled(line: untitled.line, field: schema.titleField)
    }
    for record in records {
      let id = record.id ?? allocator.next { rowOfID[ItemID($0)] != nil }
      if let row = rowOfID[id] {
        if spec.merges {
          items[row].fields.merge(record.fields) { _, new in new }
        } else {
          items[row].fields = record.fields
        }
        summary.updated += 1
      } else {
        rowOfID[id] = items.count
        items.append(Item(id: id, fields: record.fields))
        summary.added += 1
      }
    }
    summary.describe(records, schema: schema, merges: spec.merges)
    if let category = schema.categoryField {
      var values = CategoryValues()
      for item in items { values.add(item[category]) }
      schema = withCategoryScopes(schema, values: values.inOrder)
    }
    return (CatalogDocument(schema: schema, items: items), summary)
  }
}

/// A category's distinct values in the order the items first hold them: a value, or each of a
/// list's (an item in several categories); empty ones are none.
public struct CategoryValues: Sendable {
  private var seen: Set<String> = []
  public private(set) var inOrder: [String] = []

  public init() {}

  /// Takes in an item's category value.
  public mutating func add(_ value: FieldValue?) {
    for text in value?.strings ?? [] where !text.isEmpty && seen.insert(text).inserted {
      inOrder.append(text)
    }
  }
}

/// Why an import's fields do not fit the catalog; the message names the field.
public enum ImportSchemaError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A title, category or field kind other than the catalog's.
  case incompatible(String)
  /// The merged schema is not a valid one.
  case invalid(CatalogSchemaError)
  /// A label for a field the catalog does not have.
  case unknownLabelField(String, known: [String])
  /// A record on `line` would add an item without a title (`--merge` leaves titles out only
  /// of items the catalog has).
  case untitled(line: Int, field: String)
  /// A record on `line` that does not fit what the records before it set (a vector of
  /// another length); `reason` follows `FILE:LINE:`.
  case unfitting(line: Int, reason: String)

  /// Why a record without a title cannot be imported: the reason after `FILE:LINE:`.
  public static func untitledReason(field: String) -> String {
    "missing title field \"\(field)\" (the catalog has no item with this id; --merge keeps only a known item's title)"
  }

  public var description: String {
    switch self {
    case .incompatible(let reason): reason
    case .untitled(let line, let field): "line \(line): \(Self.untitledReason(field: field))"
    case .unfitting(let line, let reason): "line \(line): \(reason)"
    case .unknownLabelField(let name, let known):
      "--label \(name)=…: the catalog has no field \"\(name)\" (its fields: \(known.joined(separator: ", ")))"
    case .invalid(let error): "invalid catalog schema: \(error)"
    }
  }
}

/// The catalog's one rule for naming new items, for edits and imports alike: the next integer
/// after the largest numeric id, skipping any id already taken (say, "12" given by an import
/// while the largest number was 11).
package struct ItemIDAllocator {
  private var candidate: Int64

  /// Starts after `largest`, the largest number an id starts with (nil: none does).
  package init(largestNumber largest: Int64?) {
    candidate = (largest ?? 0) + 1
  }

  /// Starts after the largest number any of `ids` starts with.
  package init(ids: some Sequence<String>) {
    var largest: Int64?
    for id in ids {
      let digits = id.utf8.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
      guard !digits.isEmpty, let number = Int64(String(decoding: digits, as: UTF8.self)) else {
        continue
      }
      largest = max(largest ?? number, number)
    }
    self.init(largestNumber: largest)
  }

  /// The next id for which `isTaken` is false; it is then taken for this allocator.
  package mutating func next(isTaken: (String) throws -> Bool) rethrows -> ItemID {
    while try isTaken(String(candidate)) { candidate += 1 }
    defer { candidate += 1 }
    return ItemID(String(candidate))
  }
}
