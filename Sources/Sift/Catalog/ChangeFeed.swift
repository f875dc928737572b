/// A catalog's changes after a version, for a copy that follows it (`sift sync`, `CatalogSync`):
/// what `GET /catalogs/NAME/changes?since=VERSION` answers.
///
/// A copy starts from a snapshot (`CatalogSnapshotPage`, read in catalog order a page at a
/// time, while edits go on), then asks for the changes after the version its first page was
/// read at: applying a change twice leaves what applying it once does (a put replaces the item
/// or adds it at its position; a delete of a missing id is nothing), so what changed while the
/// snapshot was read comes again in the changes and ends the same.
public struct ChangeFeedPage: Hashable, Sendable, Codable {
  /// The catalog's name where it is served.
  public var catalog: String
  /// Which catalog this is: a catalog made again (a new file, a new PostgreSQL catalog) has
  /// another identity, and a copy of the old one must start over.
  public var identity: String
  /// The catalog's version when the page was read: once a copy applied every page up to the
  /// one without `next`, it shows this version.
  public var version: Int64
  /// The changes, in version order.
  public var changes: [CatalogChange]
  /// The `since` of the next page; nil when this page reaches `version`.
  public var next: Int64?

  public init(
    catalog: String, identity: String, version: Int64, changes: [CatalogChange], next: Int64?
  ) {
    self.catalog = catalog
    self.identity = identity
    self.version = version
    self.changes = changes
    self.next = next
  }
}

/// One change of a catalog, with the version it made: an item put whole (added, or replaced)
/// at its place in catalog order, an id deleted, or the synonyms and pins replaced.
public struct CatalogChange: Hashable, Sendable, Codable {
  public var version: Int64
  /// The item as it is now.
  public var put: Item?
  /// Where `put` stands in catalog order (greater is later): what orders results that rank
  /// alike, so a copy keeps the server's order.
  public var position: Int64?
  public var delete: ItemID?
  public var synonyms: Synonyms?
  /// The pins, with the synonyms (nil from a server before pins: they stay as they are).
  public var pins: Pins?

  public static func put(_ item: Item, at position: Int64, version: Int64) -> CatalogChange {
    CatalogChange(version: version, put: item, position: position)
  }

  public static func delete(_ id: ItemID, version: Int64) -> CatalogChange {
    CatalogChange(version: version, delete: id)
  }

  public static func synonyms(
    _ synonyms: Synonyms, pins: Pins? = nil, version: Int64
  ) -> CatalogChange {
    CatalogChange(version: version, synonyms: synonyms, pins: pins)
  }

  init(
    version: Int64, put: Item? = nil, position: Int64? = nil, delete: ItemID? = nil,
    synonyms: Synonyms? = nil, pins: Pins? = nil
  ) {
    self.pins = pins
    self.version = version
    self.put = put
    self.position = position
    self.delete = delete
    self.synonyms = synonyms
  }
}

/// What a catalog answers for the changes after a version: a page of them, or that the copy
/// must start over from a snapshot — the version is older than the log the catalog keeps, the
/// schema changed (a new import), or the version is not one of this catalog's.
public enum ChangeFeedAnswer: Hashable, Sendable {
  case page(ChangeFeedPage)
  /// Why the changes cannot be given; the catalog's identity and version now.
  case startOver(reason: String, identity: String, version: Int64)
}

/// A page of a catalog as it is, in catalog order: what a copy starts from.
/// `GET /catalogs/NAME/snapshot?after=POSITION` answers it.
public struct CatalogSnapshotPage: Hashable, Sendable, Codable {
  public var catalog: String
  public var identity: String
  /// The catalog's version when the page was read. A copy asks for the changes after the
  /// first page's version once it has every page.
  public var version: Int64
  /// The schema, with the synonyms.
  public var schema: CatalogSchema
  public var items: [PositionedItem]
  /// The `after` of the next page; nil on the last one.
  public var next: Int64?
  /// The last position in catalog order when the page was read (nil from a server before
  /// it said). A reader that goes through the pages while edits go on stops at the first
  /// page's: an item added or moved since comes after it, and in the changes since the first
  /// page's version — without it, steady edits would keep moving the end away.
  public var last: Int64?

  public init(
    catalog: String, identity: String, version: Int64, schema: CatalogSchema,
    items: [PositionedItem], next: Int64?, last: Int64? = nil
  ) {
    self.catalog = catalog
    self.identity = identity
    self.version = version
    self.schema = schema
    self.items = items
    self.next = next
    self.last = last
  }

  /// The `after` of the page that follows this one, for a reader that started at a page
  /// whose `last` was `end`: nil once the pages reach it.
  public func next(endingAt end: Int64?) -> Int64? {
    guard let next else { return nil }
    if let end, next >= end { return nil }
    return next
  }
}

/// An item and its place in catalog order.
public struct PositionedItem: Hashable, Sendable, Codable {
  public var position: Int64
  public var item: Item

  public init(position: Int64, item: Item) {
    self.position = position
    self.item = item
  }
}

/// Which items a reader of the feed may see (a tenant token's filters); nil: every one. An
/// item it may not see never arrives with its fields, and its id only as a delete when the
/// reader could have seen it before.
public typealias FeedVisibility = @Sendable (Item) -> Bool

extension ChangeFeedPage {
  /// The page as `visible` lets a reader see it: a put it may not see is a delete, and a
  /// delete is given only for an item `sawBefore` says the reader could have seen at the
  /// version it asked after (another tenant's items are never named).
  public func restricted(
    to visible: FeedVisibility?, sawBefore: (ItemID) -> Bool = { _ in true }
  ) -> ChangeFeedPage {
    guard let visible else { return self }
    var page = self
    page.changes = changes.compactMap { change in
      if let item = change.put {
        if visible(item) { return change }
        return sawBefore(item.id) ? .delete(item.id, version: change.version) : nil
      }
      if let id = change.delete { return sawBefore(id) ? change : nil }
      return change
    }
    return page
  }
}

/// How much of a catalog's change log is kept — one rule for every store (a .sqlite file's
/// `items_changes`, a PostgreSQL catalog's `changes`), so that a device's `sift sync` and a
/// node read the same kind of log: an entry goes only once `changes` newer versions follow it
/// *and* it is older than `days`. A copy that was away less than `days`, or fell behind by fewer
/// than `changes` edits, catches up with the changes alone; one further behind copies the
/// catalog whole again.
public struct ChangeLogRetention: Sendable, Hashable {
  public var changes: Int
  public var days: Int

  public init(changes: Int = 100_000, days: Int = 7) {
    self.changes = changes
    self.days = days
  }

  /// The newest version an entry may have and be cut, at `version`.
  public func newestCut(at version: Int64) -> Int64 { version - Int64(changes) }

  /// How long an entry is kept at least, in seconds.
  public var seconds: Int { days * 86_400 }
}
