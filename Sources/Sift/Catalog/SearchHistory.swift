/// The finished searches of a catalog, counted — what `sift serve --record-searches` keeps — so
/// that an empty search field can suggest what people search for, and whoever maintains the
/// data can see what found nothing. Searches are kept per searcher's frame (`tenant`: a tenant
/// token's filter; empty for everyone else), and a frame sees only its own.
///
/// A search is known by its folded text, spaces aside (`TextFolding.phraseKey`: "Rose" and
/// "rose " are one); it shows as it was last typed.
public struct SearchHistory: Hashable, Sendable {
  /// One search, with how often it was made.
  public struct Entry: Hashable, Sendable, Codable {
    /// The frame it was made in: a tenant's filter, or empty.
    public var tenant: String
    /// As it was last typed.
    public var text: String
    public var count: Int
    /// Whether it found something the last time it was made.
    public var found: Bool

    public init(tenant: String = "", text: String, count: Int, found: Bool) {
      self.tenant = tenant
      self.text = text
      self.count = count
      self.found = found
    }
  }

  /// Per frame and key (`Pins.key`), the entry.
  private var entries: [String: [String: Entry]] = [:]

  public init(_ entries: [Entry] = []) {
    for entry in entries {
      self.entries[entry.tenant, default: [:]][TextFolding.phraseKey(entry.text)] = entry
    }
  }

  /// Every entry, most made first, ties by text.
  public var all: [Entry] {
    Self.mostMadeFirst(entries.values.flatMap(\.values))
  }

  public var isEmpty: Bool { entries.isEmpty }

  /// Counts one finished search of `text` in `tenant`'s frame, and whether it found something.
  public mutating func record(_ text: String, found: Bool, tenant: String = "") {
    let key = TextFolding.phraseKey(text)
    guard !key.isEmpty else { return }
    var entry = entries[tenant]?[key] ?? Entry(tenant: tenant, text: text, count: 0, found: found)
    entry.text = text.trimmingWhitespace()
    entry.count += 1
    entry.found = found
    entries[tenant, default: [:]][key] = entry
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
