import Foundation
import Sift

/// One catalog the server answers for: its file and the collection searches start from.
///
/// Searches take the current collection (a value: copying it shares the index) with the items'
/// generation it shows, and run on `SearchWorkers` with no lock held; an edit replaces both
/// once it is written, so a search sees the catalog before an edit or after it, never half of
/// one: a page's rows are read once, as of that generation
/// (`CatalogStore.items(withIDs:fields:asOf:)`: an item changed since is what the change log
/// kept of it).
/// The last searches on the current collection are kept (`RecentSearches`): a keystroke refines
/// the one before it, and a repeated search is not searched again.
public final class StoredCatalog: SearchCatalog {
  /// The name it is served under (`/catalogs/NAME/…`): the built-in name or the file's name.
  public let name: String
  let store: CatalogStore
  private let current: Locked<State>
  /// Where edits are saved and applied, one at a time, off Swift's shared pool (they block on
  /// the file). Searches never wait for it.
  private let editQueue = DispatchQueue(label: "sift edits")
  /// A second collection that edits are made on, so that an edit changes its own copy in place
  /// instead of copying the index that searches are reading (tens of megabytes an edit, which
  /// cost a third of the searches' throughput while a client edited): the collection
  /// searches read before the last edit, and the edit it has not had yet.
  private let standby = Locked<(collection: FilteredCollection, behind: [MissedChange])?>(nil)

  /// What the standby collection has not had yet: an edit, or a setting the searches read.
  private enum MissedChange: Sendable {
    case edit(CatalogEdit)
    case synonyms(Synonyms)
    case pins(Pins)
  }

  /// The catalog this file copies and the version of it the file reflects (a PostgreSQL
  /// node's copy: `SyncSource`), as recorded in the transaction of the changes that reached it;
  /// nil for a catalog that copies none. Written on `editQueue` alone (`followUpstream`,
  /// `replaceWhole`), once the changes are searched.
  private let copied: Locked<SyncSource?>
  /// Where writes go when the file is a copy of a catalog kept elsewhere (`follow(_:)`); nil
  /// when the file is the catalog.
  private let upstreamLink = Locked<(any CatalogUpstream)?>(nil)

  /// Reads the file's change log now and then (`followsFile`); nil when it does not.
  private let fileFollower = Locked<Task<Void, Never>?>(nil)

  /// The collection searches start from, its edit count, and the searches answered on it.
  private struct State: Sendable {
    var collection: FilteredCollection
    /// Edits made to `collection` since the start: a search is remembered only if no edit
    /// replaced the collection it searched.
    var edits = 0
    /// The items' generation `collection` shows: pages read their rows as of it.
    var generation: Int64
    var recent: RecentSearches
  }

  /// What opening it said (the index rebuilt, and why); nil when the index was current.
  public let openNotice: String?

  /// Opens `store`'s collection (its index read from the file, or rebuilt and saved);
  /// `recentSearches` is how many answered searches are kept to refine (0: none).
  /// `editable`: edits are expected (the server takes a token), so the standby copy edits
  /// change is made when the server starts rather than by the first two edits — memory for a
  /// second copy of the index, which a read-only server does not need.
  /// `warmsUp`: the near-spelling dictionaries and trigrams are built at once in the
  /// background, for the requests to come; a command that searches once builds what its
  /// search needs, when it needs it.
  /// `followsFile`: what other processes write to the file (`sift import`, `sift pins`,
  /// `sift synonyms`, another server, the terminal app) is read from its change log every
  /// `followInterval` and searched from then on (`catchUpWithFile()`), until `close()`.
  /// `progress` hears of an index rebuilt on opening, as it starts.
  public convenience init(
    name: String, store: CatalogStore, typoTolerance: TypoTolerance = .automatic,
    recentSearches: Int = 64, editable: Bool = true, warmsUp: Bool = true,
    followsFile: Bool = false, followInterval: Duration = .milliseconds(250),
    progress: (String) -> Void = { _ in }
  ) throws(StoreError) {
    // Pages read a snapshot of the file taken with each edit: that needs a pool. Without
    // edits they read the file the collection was opened from.
    let store =
      store.allowsConcurrentReads || !editable
      ? store : try CatalogStore.open(at: store.url, concurrentReads: true)
    let (collection, report) = try store.openCollection(
      typoTolerance: typoTolerance, progress: progress)
    try self.init(
      name: name, store: store, collection: collection, generation: report.generation,
      notice: report.notice, typoTolerance: typoTolerance, recentSearches: recentSearches,
      editable: editable, warmsUp: warmsUp, followsFile: followsFile,
      followInterval: followInterval)
  }

  /// Serves `index`, of the items `store` holds at `generation`, as built by whoever wrote
  /// them (a PostgreSQL node's load): not read back from an index file, which may be saved
  /// meanwhile. `store` must allow concurrent reads.
  package convenience init(
    name: String, store: CatalogStore, index: SearchIndex<ItemID>, generation: Int64,
    typoTolerance: TypoTolerance = .automatic, recentSearches: Int = 64, warmsUp: Bool = true
  ) throws(StoreError) {
    let schema = try store.loadSchema()
    let collection = FilteredCollection(
      index: index, schema: try store.searchSchema(schema),
      source: CatalogItemSource(store: store, schema: schema), typoTolerance: typoTolerance)
    try self.init(
      name: name, store: store, collection: collection, generation: generation, notice: nil,
      typoTolerance: typoTolerance, recentSearches: recentSearches, editable: true,
      warmsUp: warmsUp, followsFile: false, followInterval: .milliseconds(250))
  }

  private init(
    name: String, store: CatalogStore, collection: FilteredCollection, generation: Int64,
    notice: String?, typoTolerance: TypoTolerance, recentSearches: Int, editable: Bool,
    warmsUp: Bool, followsFile: Bool, followInterval: Duration
  ) throws(StoreError) {
    self.name = name
    self.typoTolerance = typoTolerance
    self.editable = editable
    self.followsFile = followsFile
    self.store = store
    openNotice = notice
    copied = Locked(try store.syncSource())
    if warmsUp { collection.index.prepareForSearchingInBackground() }
    current = Locked(
      State(
        collection: collection, generation: generation,
        recent: RecentSearches(capacity: recentSearches)))
    if editable {
      editQueue.async { [weak self] in self?.prepareForEditing() }
    }
    if followsFile {
      fileFollower.withLock {
        $0 = Task { [weak self] in
          while !Task.isCancelled {
            try? await Task.sleep(for: followInterval)
            guard let self else { return }
            try? await self.catchUpWithFile()
          }
        }
      }
    }
  }

  private let typoTolerance: TypoTolerance
  private let editable: Bool
  /// Whether the file's change log is followed: read every `followInterval` and before each of
  /// this catalog's own writes.
  private let followsFile: Bool

  /// Makes the standby copy, and has each copy change once in memory, off the request path:
  /// the first change of a copy opened from the mapped index file copies its buffers out of it
  /// (89 and 34 ms for the 235k cities), which the first two edits after a start paid before.
  /// The change is the first item replaced by itself: nothing a search can see. It runs on
  /// `editQueue`, ahead of any edit.
  private func prepareForEditing() {
    guard standby.withLock({ $0 == nil }) else { return }
    let searched = current.withLock { $0.collection }
    guard let item = searched.element(atRow: 0) else { return }
    var first = searched
    var second: FilteredCollection
    do {
      try first.update(item)
      second = first
      try second.update(item)
    } catch {
      return
    }
    current.withLock { state in
      state.collection = first
      state.edits += 1
      state.recent.removeAll()
    }
    standby.withLock { $0 = (second, []) }
  }

  public var schema: CatalogSchema { collection.schema }

  public func count() -> Int { collection.totalCount }

  /// The collection as it is now, to search without holding anything.
  var collection: FilteredCollection { current.withLock { $0.collection } }

  /// The items' generation the collection searched now shows: every change to the items moves
  /// it, in the change's transaction. A copy served for its upstream answers the upstream's
  /// version instead (`upstreamVersion`).
  public var version: Int64 {
    if upstream != nil, let version = upstreamVersion { return version }
    return current.withLock { $0.generation }
  }

  /// The items' generation the collection searched now shows (the file's own version).
  private var generation: Int64 { current.withLock { $0.generation } }

  /// Writes `edit` to the file, then makes it what the next search sees; returns the item's id
  /// (for an add without one, the id the catalog gave it) and the items' generation with it.
  /// Searches go on meanwhile, on the collection before it. The write runs on `editQueue`.
  /// A copy's edit is saved upstream, which shows it here before answering.
  public func commit(_ edit: CatalogEdit) async throws(CatalogFailure) -> CatalogCommit {
    if let upstream { return try await upstream.commit(edit) }
    return try await onEditQueue { () throws(CatalogFailure) in
      let id = try self.commitNow(edit)
      return CatalogCommit(id: id, version: self.generation)
    }
  }

  /// The version of the catalog this file copies that it reflects (`copied`); nil for a
  /// catalog that copies none.
  package var upstreamVersion: Int64? { copied.withLock { $0?.version } }

  /// Makes this the served copy of `upstream` (nil: none again): writes, the change feed and
  /// the versions answered are the upstream's from now on; searches and items stay this
  /// file's.
  package func follow(_ upstream: (any CatalogUpstream)?) {
    upstreamLink.withLock { $0 = upstream }
  }

  private var upstream: (any CatalogUpstream)? { upstreamLink.withLock { $0 } }

  public var answersFromRemoteStore: Bool { upstream != nil }

  /// Writes what the catalog this one copies changed (a PostgreSQL node's upstream) to the
  /// file, with the upstream's version, in one transaction (`CatalogStore.applySynced`), then
  /// makes it what the next search sees: an item put in place is replaced, one that took a new
  /// place in catalog order joins the end, a delete of an id the copy lacks is nothing.
  ///
  /// `changes` are the upstream's log after version `start` up to `source.version`. They are
  /// applied here, on `editQueue`, in version order whoever brings them — the node's follower
  /// or its own edit, in either order: what the copy has (a change at or before the version it
  /// reflects) is passed over. Returns how many versions the copy moved on (0: it had them
  /// all); nil, with nothing applied, when the copy is behind `start` (a gap: read the log
  /// from `upstreamVersion`).
  @discardableResult
  package func followUpstream(
    _ changes: [CatalogChange], after start: Int64? = nil, source: SyncSource
  ) async throws(CatalogFailure) -> Int64? {
    try await onEditQueue { () throws(CatalogFailure) -> Int64? in
      let held = self.copied.withLock { $0?.identity == source.identity ? $0?.version : nil }
      if let start, start > held ?? .min { return nil }
      if let held, source.version <= held { return 0 }
      let fresh = held.map { held in changes.filter { $0.version > held } } ?? changes
      let report: SyncReport
      do {
        report = try self.store.applySynced(fresh, source: source)
      } catch {
        throw .unavailable("the copy could not be written: \(error)")
      }
      if let generation = try? self.store.itemsGeneration() {
        self.applyFollowed(report.changes, reaching: generation)
      }
      // Only now: a reader that waits for the version (`after=`) finds it searched.
      self.copied.withLock { $0 = source }
      // Moved from the version held, else from the batch's start, else (a first batch
      // without a start) by one version a change.
      let movedFrom = held ?? start ?? source.version - Int64(fresh.count)
      return source.version - movedFrom
    }
  }

  /// Makes the file a copy of the catalog file at `other` whole — its items, schema and
  /// rules — reflecting `source` (`CatalogStore.replaceContents`), and searches it from now on:
  /// what a copy does when the upstream's log cannot explain the way from where it is (it was
  /// imported again, or the copy fell behind the log it keeps). Searches go on meanwhile, on
  /// the collection before it. `index`, of `other`'s items, is saved as the file's, so that
  /// the copy is searched at once rather than indexed again.
  package func replaceWhole(
    with other: URL, schema: CatalogSchema, source: SyncSource, index: SearchIndex<ItemID>? = nil
  ) async throws(CatalogFailure) {
    try await onEditQueue { () throws(CatalogFailure) in
      do {
        _ = try self.store.replaceContents(
          with: other, schema: schema, source: source, index: index)
      } catch {
        throw .unavailable("the copy could not be written: \(error)")
      }
      try self.reopen()
      // Only now: a reader that waits for the version finds it searched.
      self.copied.withLock { $0 = source }
    }
  }

  /// Runs `work` on `editQueue`, after the edits before it.
  private func onEditQueue<Value: Sendable>(
    _ work: @escaping @Sendable () throws(CatalogFailure) -> Value
  ) async throws(CatalogFailure) -> Value {
    let outcome = await withCheckedContinuation { continuation in
      editQueue.async {
        continuation.resume(returning: Result { () throws(CatalogFailure) in try work() })
      }
    }
    return try outcome.get()
  }

  /// `commit(_:)`, on `editQueue`.
  private func commitNow(_ edit: CatalogEdit) throws(CatalogFailure) -> ItemID {
    // What another process wrote first: the edit is checked against the file as it is.
    if followsFile { try? catchUpWithFileNow() }
    let (searched, before) = current.withLock { ($0.collection, $0.generation) }
    var edited = caughtUpStandby() ?? searched
    var committed: CommittedEdit?
    defer {
      let generation = committed == nil ? nil : generationAfterOwnWrite(from: before)
      current.withLock { state in
        guard committed != nil else { return }
        state.collection = edited
        if let generation { state.generation = generation }
        state.edits += 1
        state.recent.removeAll()
      }
      // The collection searches read until now is the next edit's, once it has this one.
      standby.withLock {
        $0 = committed.map { (searched, [.edit($0.edit)]) } ?? (edited, [])
      }
      if committed != nil, generation == nil, followsFile { try? catchUpWithFileNow() }
    }
    do throws(CatalogEditFailure<StoreError>) {
      committed = try edited.commit(edit, to: store)
      return committed!.id
    } catch .refused(.unknownID(let id)) {
      throw .notFound("no item \"\(id.rawValue.prefix(100))\" in catalog \(name)")
    } catch .refused(.duplicateID(let id)) {
      throw .conflict("id: catalog \(name) has an item \"\(id.rawValue.prefix(100))\" already")
    } catch {
      switch error {
      case .refused(let refusal): throw .invalid("\(refusal)")
      case .notSaved(let failure): throw .unavailable("the edit was not saved: \(failure)")
      }
    }
  }

  /// Finishes the edits in flight, then checkpoints the file's write-ahead log and closes it,
  /// so that a server stopped with SIGTERM leaves one whole file and no log to replay. Searches
  /// after it fail as unavailable.
  public func close() {
    fileFollower.withLock { $0?.cancel() }
    editQueue.sync {
      standby.withLock { $0 = nil }
      try? store.checkpointAndClose()
    }
  }

  /// Saves `synonyms` in the file, then makes them what the next search uses (on `editQueue`,
  /// after the edits before them). They move the version, so that copies following the
  /// catalog hear of them.
  @discardableResult
  public func replaceSynonyms(_ synonyms: Synonyms) async throws(CatalogFailure) -> Int64 {
    if let upstream { return try await upstream.replaceSynonyms(synonyms) }
    return try await onEditQueue { () throws(CatalogFailure) in
      try self.replaceSynonymsNow(synonyms)
      return self.generation
    }
  }

  /// `replaceSynonyms(_:)`, on `editQueue`.
  private func replaceSynonymsNow(_ synonyms: Synonyms) throws(CatalogFailure) {
    try replaceSetting(
      "synonyms", save: { () throws(StoreError) in try store.saveSynonyms(synonyms) },
      in: { $0.synonyms = synonyms })
  }

  /// The searches recorded in the file. A node's copy keeps none: the server holds them while
  /// it serves it (they are the catalog's, not one node's).
  public func searchHistory() async throws(CatalogFailure) -> SearchHistory {
    guard upstream == nil else { return SearchHistory() }
    do {
      return try store.loadSearchHistory()
    } catch {
      throw .unavailable("the recorded searches could not be read: \(error)")
    }
  }

  /// Writes what changed of the searches recorded in the file, after the edits before (on
  /// `editQueue`).
  public func saveSearchChanges(_ changes: SearchHistory.Changes) async throws(CatalogFailure) {
    guard !changes.isEmpty, upstream == nil else { return }
    try await onEditQueue { () throws(CatalogFailure) in
      do {
        try self.store.saveSearchChanges(changes)
      } catch {
        throw .unavailable("the recorded searches were not saved: \(error)")
      }
    }
  }

  /// Saves `pins` in the file, then makes them what the next search uses, as
  /// `replaceSynonyms(_:)` does synonyms.
  @discardableResult
  public func replacePins(_ pins: Pins) async throws(CatalogFailure) -> Int64 {
    if let upstream { return try await upstream.replacePins(pins) }
    return try await onEditQueue { () throws(CatalogFailure) in
      try self.replacePinsNow(pins)
      return self.generation
    }
  }

  /// `replacePins(_:)`, on `editQueue`.
  private func replacePinsNow(_ pins: Pins) throws(CatalogFailure) {
    try replaceSetting(
      "pins", save: { () throws(StoreError) in try store.savePins(pins) },
      in: { $0.pins = pins })
  }

  /// Saves a setting the searches read (`save`), then sets it in the collection and the
  /// standby (`change`): the searches after it use it, the remembered answers go.
  private func replaceSetting(
    _ name: String, save: () throws(StoreError) -> Void,
    in change: (inout FilteredCollection) -> Void
  ) throws(CatalogFailure) {
    if followsFile { try? catchUpWithFileNow() }
    let before = current.withLock { $0.generation }
    do {
      try save()
    } catch {
      throw .unavailable("the \(name) were not saved: \(error)")
    }
    let generation = generationAfterOwnWrite(from: before)
    current.withLock { state in
      change(&state.collection)
      if let generation { state.generation = generation }
      state.edits += 1
      state.recent.removeAll()
    }
    standby.withLock { standby in
      if standby != nil { change(&standby!.collection) }
    }
    if followsFile, generation == nil { try? catchUpWithFileNow() }
  }

  /// The generation the file holds after one write of this catalog's made at `before` (writes
  /// are made here one at a time, and one moves it by one); nil when it cannot be read — pages
  /// then find their rows changed, and search again once it is — or, while following the file,
  /// when another process wrote in between: the log from before both is read again then
  /// (applying this write twice leaves what once does).
  private func generationAfterOwnWrite(from before: Int64) -> Int64? {
    guard let written = try? store.itemsGeneration() else { return nil }
    return followsFile && written != before + 1 ? nil : written
  }

  /// Returns once answers show `version`: a copy reads its upstream's log meanwhile; a file
  /// that is the catalog is there already, or `version` is not one of its.
  public func reach(_ version: Int64, within timeout: Duration) async throws(CatalogFailure) {
    if let upstream { return try await upstream.reach(version, within: timeout) }
    let now = generation
    guard version > now else { return }
    throw .unavailable(
      "after: catalog \(name) is at version \(now); version \(version) is not one of its")
  }

  /// The changes after `version` from the file's log (`CatalogStore.changes`), or a copy's
  /// upstream's.
  public func changes(
    since version: Int64, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> ChangeFeedAnswer {
    if let upstream {
      return try await upstream.changes(since: version, limit: limit, visible: visible)
    }
    // On the search threads, as a search's reads are: never on Swift's shared pool.
    return try await SearchWorkers.shared.run { () throws(CatalogFailure) in
      do {
        return try self.store.changes(
          since: version, limit: limit, catalog: self.name, visible: visible)
      } catch {
        throw .unavailable("the changes could not be read: \(error)")
      }
    }
  }

  /// A page of the file's items in catalog order (`CatalogStore.snapshot`), or a copy's
  /// upstream's.
  public func snapshot(
    after position: Int64?, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> CatalogSnapshotPage {
    if let upstream {
      return try await upstream.snapshot(after: position, limit: limit, visible: visible)
    }
    return try await SearchWorkers.shared.run { () throws(CatalogFailure) in
      do {
        return try self.store.snapshot(
          after: position, limit: limit, catalog: self.name, visible: visible)
      } catch {
        throw .unavailable("the catalog could not be read: \(error)")
      }
    }
  }

  // MARK: - Following the file

  /// How many log entries one read brings at most.
  static let followBatch = 2_000

  /// Reads what the file's change log holds after the generation searched now — what other
  /// processes wrote — and makes it what the next search sees: each changed item as the file
  /// holds it (added, replaced or deleted), the synonyms and pins as they are. A log that
  /// cannot explain the way there (an import wrote the file again, or the log was cut past
  /// it) opens the file's collection anew. After the edits before it (on `editQueue`).
  public func catchUpWithFile() async throws(CatalogFailure) {
    try await onEditQueue { () throws(CatalogFailure) in try self.catchUpWithFileNow() }
  }

  /// `catchUpWithFile()`, on `editQueue`.
  private func catchUpWithFileNow() throws(CatalogFailure) {
    while true {
      let since = current.withLock { $0.generation }
      let answer: ChangeFeedAnswer
      do {
        guard try store.itemsGeneration() != since else { return }
        answer = try store.followedChanges(since: since, limit: Self.followBatch, catalog: name)
      } catch {
        throw .unavailable("the catalog's changes could not be read: \(error)")
      }
      switch answer {
      case .startOver:
        try reopen()
        return
      case .page(let page):
        applyFollowed(page.changes, reaching: page.next ?? page.version)
        if page.next == nil { return }
      }
    }
  }

  /// Makes `changes` — read from the file's log, or from a sync of the upstream, in the form
  /// of `SyncReport.changes` — what the next search sees, at `generation`. A put of an item
  /// held is replaced where it is; an item not held (added, or deleted just before: it took a
  /// new place) joins the end, those in the order of their places.
  private func applyFollowed(_ changes: [CatalogChange], reaching generation: Int64) {
    let searched = current.withLock { $0.collection }
    var edited = caughtUpStandby() ?? searched
    var missed: [MissedChange] = []
    func apply(_ edit: CatalogEdit) {
      if (try? edited.apply(edit)) != nil { missed.append(.edit(edit)) }
    }
    // The items that join the end, as the last change of each has them (a batch of the
    // upstream's log may put an id, then put or delete it again).
    var appended: [ItemID: (item: Item, position: Int64)] = [:]
    for change in changes {
      if let item = change.put {
        if edited.contains(id: item.id) {
          apply(.update(item))
        } else {
          appended[item.id] = (item, change.position ?? .max)
        }
      } else if let id = change.delete {
        if edited.contains(id: id) { apply(.delete(id)) }
        appended[id] = nil
      }
      if let synonyms = change.synonyms {
        edited.synonyms = synonyms
        missed.append(.synonyms(synonyms))
      }
      if let pins = change.pins {
        edited.pins = pins
        missed.append(.pins(pins))
      }
    }
    for (item, _) in appended.values.sorted(by: {
      ($0.position, $0.item.id.rawValue) < ($1.position, $1.item.id.rawValue)
    }) {
      apply(.add(item.id, fields: item.fields))
    }
    current.withLock { state in
      state.collection = edited
      state.generation = generation
      state.edits += 1
      state.recent.removeAll()
    }
    standby.withLock { $0 = (searched, missed) }
  }

  /// Opens the file's collection anew and searches it from now on: what an import that wrote
  /// the file again leaves (it saves its index, so this reads it back rather than builds it).
  private func reopen() throws(CatalogFailure) {
    let opened: (collection: FilteredCollection, report: CatalogStore.OpenReport)
    do {
      opened = try store.openCollection(typoTolerance: typoTolerance)
    } catch {
      throw .unavailable("the catalog could not be opened again: \(error)")
    }
    opened.collection.index.prepareForSearchingInBackground()
    current.withLock { state in
      state.collection = opened.collection
      state.generation = opened.report.generation
      state.edits += 1
      state.recent.removeAll()
    }
    standby.withLock { $0 = nil }
    if editable { prepareForEditing() }
  }

  /// The standby collection with the edit it missed made (in place, unless a search still
  /// holds it), taken out of `standby` so that nothing else refers to it; nil before the first
  /// edit.
  private func caughtUpStandby() -> FilteredCollection? {
    // One reference only (a second would make the edit copy the index).
    guard var standby = standby.withLock({ $0.take() }) else { return nil }
    // It was made on the searched collection, which this one was, so it fits.
    for change in standby.behind {
      switch change {
      case .edit(let edit): _ = try? standby.collection.apply(edit)
      case .synonyms(let synonyms): standby.collection.synonyms = synonyms
      case .pins(let pins): standby.collection.pins = pins
      }
    }
    return standby.collection
  }

  /// The item with `id` as the file holds it now, read on `SearchWorkers` (it blocks on the
  /// file).
  public func item(_ id: ItemID) async throws(CatalogFailure) -> Item? {
    try await SearchWorkers.shared.run { () throws(CatalogFailure) in try self.itemNow(id) }
  }

  func itemNow(_ id: ItemID) throws(CatalogFailure) -> Item? {
    do {
      return try store.item(id: id)
    } catch {
      throw .unavailable("the catalog could not be read: \(error)")
    }
  }

  /// The page of `request`, searched on `SearchWorkers` in the order requests came.
  public func search(
    _ request: SearchRequest, page: PageRequest
  ) async throws(CatalogFailure) -> SearchPage {
    // Past a server's deadline the request's task is cancelled: the search stops at its next
    // step and gives the thread back, rather than rank on for a client that has gone.
    let stop = SearchStop()
    let answer = await withTaskCancellationHandler {
      await SearchWorkers.shared.run { () -> Result<SearchPage, CatalogFailure> in
        stop.running {
          Result { () throws(CatalogFailure) in
            guard !stop.isRequested else { throw .unavailable("the search was stopped") }
            let page = try self.searchNow(request, page: page)
            if stop.isRequested { throw .unavailable("the search was stopped") }
            return page
          }
        }
      }
    } onCancel: {
      stop.request()
    }
    return try answer.get()
  }

  /// The page of `request`, its items read once from the file as the search's collection
  /// shows them (`CatalogStore.items(withIDs:fields:asOf:)`): searches never wait for an edit.
  func searchNow(_ request: SearchRequest, page: PageRequest) throws(CatalogFailure) -> SearchPage {
    let (searched, generation) = self.searched(request)
    let ids = searched.ids(atRows: page.rows)
    let items: [Item?]
    do {
      items = try store.items(withIDs: ids, fields: searched.schema.allFields, asOf: generation)
    } catch {
      throw .unavailable("the catalog could not be read: \(error)")
    }
    return searched.page(page, answering: request, items: items)
  }

  /// The current collection searched for `request` — remembered, or refined from a recent
  /// search whose text the request's extends, or searched afresh — and the items' generation
  /// it shows.
  private func searched(_ request: SearchRequest) -> (FilteredCollection, generation: Int64) {
    let (start, collection, edits, generation) = current.withLock { state in
      (state.recent.start(for: request), state.collection, state.edits, state.generation)
    }
    if let start, start.exact { return (start.collection, generation) }
    let answered = (start?.collection ?? collection).searched(request)
    // A stopped search's rows are not whole: never refined from.
    guard !SearchStop.shouldStop else { return (answered, generation) }
    current.withLock { state in
      if state.edits == edits { state.recent.remember(answered, for: request) }
    }
    return (answered, generation)
  }
}
