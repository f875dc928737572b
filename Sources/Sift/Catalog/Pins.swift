/// Curated results: for one query, an item pinned at a position of the results, or an item
/// hidden from them. "iphone" shows the current model first whatever the ranking says; a
/// recalled product never shows for "charger". The query is folded like everything else, and
/// spaces do not count, so "iPhone", "iphone" and "iphone " are one query.
///
/// A pinned item stands at its position whatever the ranking, the scope and the tokens allow —
/// it need not match at all — but never outside what the searcher may see (a tenant's rows, an
/// area: `SearchCriteria.base`). `--explain` says "pinned". Kept in the catalog with its
/// synonyms, in its change log, and in what `sift sync` and `sift export` copy.
public struct Pins: Hashable, Sendable, Codable {
  /// One item pinned or hidden for one query.
  public struct Entry: Hashable, Sendable, Codable {
    /// The query as given.
    public var query: String
    public var id: ItemID
    /// The row it is pinned at, 1 for the first; nil: hidden.
    public var position: Int?

    /// `id` at row `position` (1 for the first) of `query`'s results.
    public init(query: String, id: ItemID, position: Int) {
      self.query = query
      self.id = id
      self.position = max(1, position)
    }

    /// `id` never among `query`'s results.
    public init(query: String, hiding id: ItemID) {
      self.query = query
      self.id = id
      position = nil
    }

    /// "iphone → 42 at 1", "charger: 7 hidden".
    public var description: String {
      position.map { "\(query) → \(id) at \($0)" } ?? "\(query): \(id) hidden"
    }

    private enum CodingKeys: String, CodingKey { case query, id, at, hidden }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      query = try container.decode(String.self, forKey: .query)
      id = try container.decode(ItemID.self, forKey: .id)
      position = try container.decodeIfPresent(Int.self, forKey: .at).map { max(1, $0) }
      if position == nil, try container.decodeIfPresent(Bool.self, forKey: .hidden) != true {
        throw DecodingError.dataCorruptedError(
          forKey: .at, in: container, debugDescription: "a pin needs \"at\" or \"hidden\": true")
      }
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(query, forKey: .query)
      try container.encode(id, forKey: .id)
      if let position {
        try container.encode(position, forKey: .at)
      } else {
        try container.encode(true, forKey: .hidden)
      }
    }
  }

  /// What one query's entries ask, read once.
  package struct Rule: Hashable, Sendable {
    /// One pinned item and its row (0 for the first).
    package struct Pin: Hashable, Sendable {
      package var id: ItemID
      package var row: Int
    }

    /// Each pinned item, by row.
    package var pinned: [Pin]
    package var hidden: Set<ItemID>
  }

  public var entries: [Entry] {
    didSet { rules = Self.rules(entries) }
  }
  /// Per query key, its rule: a search reads it at every keystroke.
  private var rules: [String: Rule]

  public init(_ entries: [Entry] = []) {
    self.entries = entries
    rules = Self.rules(entries)
  }

  public var isEmpty: Bool { entries.isEmpty }

  /// The key a query is known by (`TextFolding.phraseKey`).
  public static func key(_ query: String) -> String { TextFolding.phraseKey(query) }

  /// What `query` is curated with; nil when nothing is.
  package func rule(for query: String) -> Rule? {
    rules.isEmpty ? nil : rules[Self.key(query)]
  }

  /// Pins `id` at `position` of `query`'s results, in place of what the query said of it.
  public mutating func pin(_ id: ItemID, at position: Int, for query: String) {
    remove(id, for: query)
    entries.append(Entry(query: query, id: id, position: position))
  }

  /// Hides `id` from `query`'s results, in place of what the query said of it.
  public mutating func hide(_ id: ItemID, for query: String) {
    remove(id, for: query)
    entries.append(Entry(query: query, hiding: id))
  }

  /// Forgets what `query` says of `id`; returns whether it said anything.
  @discardableResult
  public mutating func remove(_ id: ItemID, for query: String) -> Bool {
    let key = Self.key(query)
    let before = entries.count
    entries.removeAll { Self.key($0.query) == key && $0.id == id }
    return entries.count < before
  }

  /// The entries whose item `item` finds and `visible` admits: what a reader framed by
  /// `visible` (a tenant's copy) may learn of the pins — never the ids of rows it cannot see.
  public func visible(to visible: FeedVisibility, item: (ItemID) -> Item?) -> Pins {
    Pins(entries.filter { entry in item(entry.id).map(visible) ?? false })
  }

  /// What is wrong with `entry`, if anything: a query with no word, an empty id, a row past
  /// `maximumPosition`.
  public static func problem(with entry: Entry) -> String? {
    if key(entry.query).isEmpty { return "the query has no word to pin for" }
    if entry.id.rawValue.isEmpty { return "the id is empty" }
    if let position = entry.position, position > maximumPosition {
      return "at: \(position) is past row \(maximumPosition), the last a pin may take"
    }
    return nil
  }

  /// The last row a pin may take: far past a first page, short of a mistake.
  public static let maximumPosition = 1_000

  private static func rules(_ entries: [Entry]) -> [String: Rule] {
    var rules: [String: Rule] = [:]
    for entry in entries {
      let key = key(entry.query)
      var rule = rules[key] ?? Rule(pinned: [], hidden: [])
      if let position = entry.position {
        rule.pinned.append(Rule.Pin(id: entry.id, row: position - 1))
      } else {
        rule.hidden.insert(entry.id)
      }
      rules[key] = rule
    }
    for key in rules.keys {
      // By row; two at one row keep the order given.
      rules[key]!.pinned = rules[key]!.pinned.enumerated().sorted {
        ($0.element.row, $0.offset) < ($1.element.row, $1.offset)
      }.map(\.element)
    }
    return rules
  }

  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode([Entry].self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(entries)
  }

  public static func == (a: Pins, b: Pins) -> Bool { a.entries == b.entries }

  public func hash(into hasher: inout Hasher) { hasher.combine(entries) }
}
