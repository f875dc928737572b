/// The finished searches of a catalog, counted — what `sift serve --record-searches` keeps — so
/// that an empty search field can suggest what people search for, and whoever maintains the
/// data can see what found nothing. Searches are kept per searcher's frame (`tenant`: a tenant
/// token's filter; empty for everyone else), and a frame sees only its own.
///
/// A search is known by its folded text, spaces aside (`TextFolding.phraseKey`: "Rose" and
/// "rose " are one); it shows as most people typed it. It is bounded: texts up to
/// `maximumTextLength`, `maximumEntries` per frame (the least made go first).
public struct SearchHistory: Hashable, Sendable {
  /// One search, with how often it was made.
  public struct Entry: Hashable, Sendable, Codable {
    /// The frame it was made in: a tenant's filter, or empty.
    public var tenant: String
    /// As most people typed it ("star wars" made three times beats "stär wars" made once).
    public var text: String
    public var count: Int
    /// Whether it found something the last time it was made.
    public var found: Bool
    /// How often each spelling was typed (a few at most): what `text` follows.
    public var spellings: [String: Int]

    public init(
      tenant: String = "", text: String, count: Int, found: Bool, spellings: [String: Int] = [:]
    ) {
      self.tenant = tenant
      self.text = text
      self.count = count
      self.found = found
      self.spellings = spellings
    }

    /// The entry's key: its folded text, spaces aside.
    public var key: String { TextFolding.phraseKey(text) }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      self.init(
        tenant: try container.decodeIfPresent(String.self, forKey: .tenant) ?? "",
        text: try container.decode(String.self, forKey: .text),
        count: try container.decode(Int.self, forKey: .count),
        found: try container.decode(Bool.self, forKey: .found),
        spellings: try container.decodeIfPresent([String: Int].self, forKey: .spellings) ?? [:])
    }
  }

  /// Two histories are equal when they hold the same entries, whatever is left to save.
  public static func == (lhs: SearchHistory, rhs: SearchHistory) -> Bool {
    lhs.entries == rhs.entries
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(entries) }

  /// A search longer than this is not kept: nobody types it twice, and it would only take room.
  public static let maximumTextLength = 100
  /// The most searches kept per frame; past it the least made go (ties: any of them).
  public static let maximumEntries = 5_000
  /// The most spellings an entry counts.
  static let maximumSpellings = 4

  /// Per frame and key (`Pins.key`), the entry.
  private var entries: [String: [String: Entry]] = [:]
  /// What changed since `takeChanges()`, by frame and key: a store writes only these.
  private var changed: Set<EntryKey> = []

  /// An entry's place: its frame and key.
  public struct EntryKey: Hashable, Sendable {
    public var tenant: String
    public var key: String
    public init(tenant: String, key: String) {
      self.tenant = tenant
      self.key = key
    }
  }

  /// What changed since the last `takeChanges()`: entries to write, and keys whose entry went.
  public struct Changes: Sendable {
    public var written: [Entry]
    public var removed: [EntryKey]
    public var isEmpty: Bool { written.isEmpty && removed.isEmpty }
  }

  public init(_ entries: [Entry] = []) {
    for entry in entries {
      self.entries[entry.tenant, default: [:]][entry.key] = entry
    }
  }

  /// Every entry, most made first, ties by text.
  public var all: [Entry] {
    Self.mostMadeFirst(entries.values.flatMap(\.values))
  }

  public var isEmpty: Bool { entries.isEmpty }

  /// Counts one finished search of `text` in `tenant`'s frame, and whether it found something;
  /// a text longer than `maximumTextLength` is not counted. Past `maximumEntries` in a frame,
  /// the least made tenth of it goes.
  public mutating func record(_ text: String, found: Bool, tenant: String = "") {
    let typed = text.trimmingWhitespace()
    guard typed.count <= Self.maximumTextLength else { return }
    let key = TextFolding.phraseKey(typed)
    guard !key.isEmpty else { return }
    var entry = entries[tenant]?[key] ?? Entry(tenant: tenant, text: typed, count: 0, found: found)
    entry.count += 1
    entry.found = found
    if entry.spellings[typed] != nil || entry.spellings.count < Self.maximumSpellings {
      entry.spellings[typed, default: 0] += 1
    }
    // The spelling most typed, the latest of equals.
    let best = entry.spellings.max {
      ($0.value, $0.key == typed ? 1 : 0) < ($1.value, $1.key == typed ? 1 : 0)
    }
    entry.text = best?.key ?? typed
    entries[tenant, default: [:]][key] = entry
    changed.insert(EntryKey(tenant: tenant, key: key))
    if entries[tenant]!.count > Self.maximumEntries { evict(tenant: tenant) }
  }

  /// The least made tenth of `tenant`'s frame, gone.
  private mutating func evict(tenant: String) {
    guard let frame = entries[tenant] else { return }
    let going = frame.values.sorted { ($0.count, $0.text) < ($1.count, $1.text) }
      .prefix(max(1, frame.count / 10))
    for entry in going {
      entries[tenant]?[entry.key] = nil
      changed.insert(EntryKey(tenant: tenant, key: entry.key))
    }
  }

  /// What changed since the last call, and from now on nothing.
  public mutating func takeChanges() -> Changes {
    var changes = Changes(written: [], removed: [])
    for place in changed {
      if let entry = entries[place.tenant]?[place.key] {
        changes.written.append(entry)
      } else {
        changes.removed.append(place)
      }
    }
    changed = []
    return changes
  }

  /// Marks the places of `changes` changed again (a save that failed).
  public mutating func restore(_ changes: Changes) {
    for entry in changes.written { changed.insert(EntryKey(tenant: entry.tenant, key: entry.key)) }
    changed.formUnion(changes.removed)
  }

  /// Past searches of `tenant`'s frame that found something, whose words start with the words
  /// of `prefix` as a category's values are searched (near spellings when none does), most
  /// made first; every one for an empty prefix.
  public func suggestions(
    startingWith prefix: String, tenant: String = "", limit: Int = 10
  ) -> [Entry] {
    let found = Self.mostMadeFirst((entries[tenant] ?? [:]).values.filter(\.found))
    return Array(FacetValueMatcher(prefix).filter(found, name: \.text).prefix(max(0, limit)))
  }

  /// The searches of `tenant`'s frame that found nothing the last time, most made first: what
  /// the data lacks.
  public func failed(tenant: String = "", limit: Int = 10) -> [Entry] {
    Array(
      Self.mostMadeFirst((entries[tenant] ?? [:]).values.filter { !$0.found })
        .prefix(max(0, limit)))
  }

  /// `entries`, most made first, ties by text.
  private static func mostMadeFirst(_ entries: some Sequence<Entry>) -> [Entry] {
    entries.sorted { ($1.count, $0.text) < ($0.count, $1.text) }
  }
}
