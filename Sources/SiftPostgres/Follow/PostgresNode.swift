#if Server
import Foundation
import Sift
import SiftStore

/// A catalog kept in PostgreSQL, searched in memory: a node serves its local copy (a .sqlite
/// catalog, `LocalCopy`) as `served`, the same `StoredCatalog` a .sqlite file is — the same
/// engine, index and pages — whose upstream (`CatalogUpstream`) this is. PostgreSQL keeps the
/// truth and the order of changes; the node keeps the copy up with them:
/// - `LISTEN` tells it of a change at once; the log is read again every second besides, in
///   version order, so a notification lost with a connection costs a second, never a change;
/// - an edit through the node is one transaction in PostgreSQL (the item and its log entry),
///   durable before it is answered, and shown by the node's next search (applied as the log's
///   entry for it, in version order with everyone's, before it answers): the copy is written
///   by log entries alone, each batch with the version it reaches in one transaction;
/// - with PostgreSQL out of reach, searches go on from memory and edits fail as unavailable;
///   once it is back the node catches up by itself.
public final class PostgresNode: CatalogUpstream {
  /// The catalog served: the local copy, searched in memory, written through this node.
  public let served: StoredCatalog
  /// The catalog in PostgreSQL, which edits are written to.
  public let catalog: PostgresCatalog
  private let copy: LocalCopy
  /// The copy's file name in the cache folder.
  private let file: String
  /// The catalog copied (`LogState.identity`): a copy of another catalog under the same name
  /// (dropped and made again) is not this one's. The version the copy reflects it records
  /// itself (`StoredCatalog.upstreamVersion`).
  private let identity: Locked<String>
  /// Wakes the follower, the one task that reads the log; several wakes before it runs count
  /// as one. Changes are applied in the copy's order of edits (`StoredCatalog.followUpstream`),
  /// in version order whoever brings them: the follower or the node's own edit.
  private let wake: AsyncStream<Void>.Continuation
  private let tasks = Locked<[Task<Void, Never>]>([])
  /// The first load's index being saved beside the copy while the node serves; awaited
  /// before the copy closes.
  private let saving = Locked<Task<Void, Never>?>(nil)
  /// How many log entries this node applied, and how many times it loaded the catalog whole
  /// (tests count them: no change applied twice).
  package let counters = Locked<(applied: Int, loads: Int)>((0, 0))
  /// The node's own item edits on their way, and the highest version a notification named
  /// meanwhile. The database notifies of an edit as it commits, before the node hears that its
  /// edit is saved: woken then, the follower would read back from the log the change the node
  /// is about to apply as saved. So while an edit of its own is on its way a notification does
  /// not wake it; the last edit shown wakes it for a later version heard meanwhile (another
  /// writer's), and the edit itself reads the log when another came between (`showOwn`).
  private let ownEdits = Locked<(onTheirWay: Int, heard: Int64)>((0, 0))
  /// Why the last attempt to read the log failed; nil once it succeeds.
  private let lastFailure = Locked<String?>(nil)

  /// What opening said: loaded whole, or from the local copy with N changes since.
  public var openNotice: String? { notice.withLock { $0 } }
  private let notice = Locked<String?>(nil)
  /// Hears what the node starts doing that may take a while: loading the catalog whole, its
  /// index, the changes since the copy (`open(…progress:)`).
  private let progress: @Sendable (String) -> Void

  /// The name it is served under.
  public var name: String { served.name }

  /// The version of the catalog the copy reflects.
  public var version: Int64 { served.upstreamVersion ?? 0 }

  /// Opens the catalog at `address` for serving: from the local copy in `cacheFolder` when it
  /// has one, reading the changes since, else loaded whole (and the copy written). `follows`:
  /// keep up with the log until `close()` (a server); false for a command that searches once.
  /// `name`: the name it is served under (the catalog's by default). `progress` hears each
  /// step that may take a while as it starts ("reading catalog products from PostgreSQL"),
  /// then and later (a reload while following), for a terminal or a server's log.
  public static func open(
    _ address: PostgresAddress, name: String? = nil, cacheFolder: URL,
    typoTolerance: TypoTolerance = .automatic,
    recentSearches: Int = 64, follows: Bool = true, retention: PostgresCatalog.Retention = .init(),
    progress: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws(PostgresError) -> PostgresNode {
    let catalog = try await PostgresCatalog.open(address, retention: retention)
    do throws(PostgresError) {
      let copy: LocalCopy
      do throws(PostgresError) {
        copy = try LocalCopy(folder: cacheFolder, address: address)
      } catch .unsuitable(_, let reason)
        where !follows && reason == LocalCopy.busyReason(cacheFolder)
      {
        // A server on this machine keeps the copy: a command that searches once loads its own.
        copy = try LocalCopy.temporary(for: address)
      }
      let started = ContinuousClock.now
      let served: StoredCatalog
      let file: String
      let identity: String
      var notice: String
      var saving: Task<Void, Never>?
      let open = { (store: CatalogStore) throws(StoreError) -> StoredCatalog in
        try StoredCatalog(
          name: name ?? address.catalog, store: store, typoTolerance: typoTolerance,
          recentSearches: recentSearches, warmsUp: follows)
      }
      if let found = copy.latestCopy(), let local = try? open(found.store) {
        (served, file, identity) = (local, found.file, found.source.identity)
        notice = "opened the local copy at version \(found.source.version)"
      } else {
        file = copy.newFileName()
        let read = try await load(catalog, into: copy.url(of: file), progress: progress)
        do throws(StoreError) {
          let store = try CatalogStore.open(at: copy.url(of: file), concurrentReads: true)
          if follows {
            // A server searches the index as built, and saves it meanwhile for its next start
            // (what it serves before the save ends is replayed from the copy's log then).
            served = try StoredCatalog(
              name: name ?? address.catalog, store: store, index: read.index,
              generation: read.generation, typoTolerance: typoTolerance,
              recentSearches: recentSearches, warmsUp: false)
            saving = Task.detached {
              // Warmed up here — the dictionaries and trigrams searches share — then saved
              // with them: nothing is built twice.
              read.index.prepareForSearching()
              _ = try? store.saveIndex(
                read.index, builtAtGeneration: read.generation, evenIfChanged: true)
            }
          } else {
            // A command saves it first, for the next command, which reads it back.
            progress("saving the search index of \(grouped(read.count)) items")
            _ = try? store.saveIndex(
              read.index, builtAtGeneration: read.generation, isLastUse: true)
            served = try open(store)
          }
        } catch {
          throw PostgresError.unsuitable(
            address.description, reason: "its local copy could not be opened: \(error)")
        }
        identity = read.identity
        notice = "loaded \(served.count()) items from PostgreSQL"
      }
      copy.removeCopies(except: file)
      let node = PostgresNode(
        served: served, catalog: catalog, copy: copy, file: file, identity: identity,
        progress: progress)
      node.saving.withLock { $0 = saving }
      served.follow(node)
      let before = node.counters.withLock { $0 }
      progress("reading the changes since version \(grouped(node.version))")
      try await node.catchUp()
      let after = node.counters.withLock { $0 }
      if after.loads > before.loads {
        notice =
          "loaded \(node.served.count()) items from PostgreSQL (the local copy was of another state)"
      } else if after.applied > before.applied {
        notice += " and applied \(after.applied - before.applied) changes since"
      }
      let elapsed = ContinuousClock.now - started
      node.notice.withLock {
        $0 =
          "catalog \(address.catalog): \(notice); at version \(node.version) in \(elapsed.seconds) s"
      }
      if follows {
        node.startFollowing()
      } else if !copy.isTemporary {
        // Caught up: the copy is free for a server or the next command; this one reads it as
        // it is now.
        copy.release()
      }
      return node
    } catch {
      await catalog.close()
      throw error
    }
  }

  private init(
    served: StoredCatalog, catalog: PostgresCatalog, copy: LocalCopy, file: String,
    identity: String, progress: @escaping @Sendable (String) -> Void
  ) {
    self.progress = progress
    self.served = served
    self.catalog = catalog
    self.copy = copy
    self.file = file
    self.identity = Locked(identity)
    var continuation: AsyncStream<Void>.Continuation!
    wakes = AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation = $0 }
    wake = continuation
  }

  private let wakes: AsyncStream<Void>

  /// What `load` copied: the catalog's identity, version and schema, and the index of its
  /// items with the copy's generation (not saved yet: the caller saves it where it serves).
  private struct Loaded {
    let identity: String
    let version: Int64
    let schema: CatalogSchema
    let index: SearchIndex<ItemID>
    let generation: Int64
    var count: Int { index.count }
  }

  /// Loads the catalog whole into a new copy at `url`, its items at the catalog's positions
  /// and the version it reflects recorded in it, indexing them as they are written.
  private static func load(
    _ catalog: PostgresCatalog, into url: URL, progress: @Sendable (String) -> Void
  ) async throws(PostgresError) -> Loaded {
    progress("reading catalog \(catalog.address.catalog) from PostgreSQL")
    let read = try await catalog.snapshotPage(after: nil, limit: nil)
    progress("writing and indexing \(grouped(read.items.count)) items")
    do {
      let copied = try CatalogStore.createCopy(
        at: url, schema: read.schema, items: read.items,
        source: source(of: catalog, identity: read.state.identity, version: read.state.version))
      return Loaded(
        identity: read.state.identity, version: read.state.version, schema: read.schema,
        index: copied.index, generation: copied.generation)
    } catch {
      throw .unsuitable(
        catalog.address.description, reason: "its local copy could not be written: \(error)")
    }
  }

  /// What a copy of `catalog` records of it at `version`: its address without the password
  /// (for whoever reads the folder), its identity and the version.
  private static func source(
    of catalog: PostgresCatalog, identity: String, version: Int64
  ) -> SyncSource {
    SyncSource(
      url: catalog.address.description, catalog: catalog.address.catalog, identity: identity,
      version: version, rows: "all")
  }

  // MARK: - Following

  /// The log's entries as the changes a copy makes: a put with the item as it is now and its
  /// place, a delete, and for an entry that says the synonyms or pins changed, `settings` as
  /// they are now (read once by the caller; nil: none changed). An import's entry is none.
  static func changes(
    of logged: [PostgresCatalog.Change], settings: (synonyms: Synonyms, pins: Pins)?
  ) -> [CatalogChange] {
    logged.compactMap { entry in
      switch entry.kind {
      case .put:
        entry.item.flatMap { item in
          entry.position.map { .put(item, at: $0, version: entry.version) }
        }
      case .delete: entry.id.map { .delete($0, version: entry.version) }
      case .synonyms:
        settings.map { .synonyms($0.synonyms, pins: $0.pins, version: entry.version) }
      case .replace: nil
      }
    }
  }

  /// How many entries one read of the log brings at most.
  static let batch = 2_000

  /// Starts the follower (one task applies the log, in order), the listener, and the timer.
  private func startFollowing() {
    let follower = Task { [weak self, wakes] in
      for await _ in wakes {
        guard let self else { return }
        try? await self.catchUp()
      }
    }
    let listener = Task { [weak self] in
      while !Task.isCancelled {
        guard let catalog = self?.catalog else { return }
        do {
          try await catalog.listen(
            onListening: { [weak self] in self?.wake.yield() },
            onChange: { [weak self] version in
              guard let self, version > self.version else { return }
              let waits = self.ownEdits.withLock { own in
                own.heard = max(own.heard, version)
                return own.onTheirWay > 0
              }
              if !waits { self.wake.yield() }
            })
        } catch {}
        try? await Task.sleep(for: .milliseconds(500))
      }
    }
    let timer = Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(1))
        self?.wake.yield()
      }
    }
    tasks.withLock { $0 = [follower, listener, timer] }
  }

  /// Reads the log after the copy's version and applies it, until it is at the catalog's
  /// version; loads the catalog whole when the log cannot explain the way there (the copy is of
  /// another catalog or too far behind, or the catalog was replaced). Run by the follower
  /// alone (and once when opening, before it starts).
  private func catchUp() async throws(PostgresError) {
    do throws(PostgresError) {
      while true {
        let identity = self.identity.withLock { $0 }
        let version = self.version
        // Bounded: a database that stops answering mid-read must not stop the follower.
        let catalog = self.catalog
        let (logState, logged) = try await Self.answered(within: Self.readPatience) {
          () async throws(PostgresError) in
          try await catalog.changes(after: version, limit: Self.batch)
        }
        let reason: String? =
          if logState.identity != identity || logged.contains(where: { $0.kind == .replace }) {
            "the catalog was imported again"
          } else if version < logState.logStart {
            "the copy at version \(version) is behind the log kept, from \(logState.logStart)"
          } else if version > logState.version {
            "the copy at version \(version) is ahead of the catalog's \(logState.version)"
          } else { nil }
        if let reason {
          try await reload(because: reason)
          continue
        }
        let settings =
          logged.contains(where: { $0.kind == .synonyms })
          ? try await catalog.currentSchema() : nil
        let changes = Self.changes(of: logged, settings: settings.map { ($0.synonyms, $0.pins) })
        let full = logged.count == Self.batch
        let reached = full ? logged.last!.version : logState.version
        if reached != version {
          do {
            // The changes and the version they reach, in one transaction of the copy (what
            // the node's own edit applied meanwhile passed over).
            let moved = try await served.followUpstream(
              changes, after: version,
              source: Self.source(of: catalog, identity: identity, version: reached))
            counters.withLock { $0.applied += Int(moved ?? 0) }
          } catch {
            throw PostgresError.unsuitable(
              catalog.address.description, reason: "its local copy could not follow: \(error)")
          }
        }
        lastFailure.withLock { $0 = nil }
        if !full { return }
      }
    } catch {
      lastFailure.withLock { $0 = "\(error)" }
      throw error
    }
  }

  /// Loads the catalog whole into a new file, and makes the copy that whole
  /// (`StoredCatalog.replaceWhole`): searches read the copy as it was until then.
  private func reload(because reason: String) async throws(PostgresError) {
    progress("loading catalog \(catalog.address.catalog) whole again: \(reason)")
    let loaded = copy.url(of: copy.newFileName())
    defer { copy.removeCopies(except: file) }
    let read = try await Self.load(catalog, into: loaded, progress: progress)
    counters.withLock { $0.loads += 1 }
    do {
      try await served.replaceWhole(
        with: loaded, schema: read.schema,
        source: Self.source(of: catalog, identity: read.identity, version: read.version),
        index: read.index)
    } catch {
      throw .unsuitable(
        catalog.address.description, reason: "its local copy could not be replaced: \(error)")
    }
    identity.withLock { $0 = read.identity }
  }

  /// Shows the node's own item edit: the change as it was saved is the log's entry at its
  /// version, applied as the follower would apply it (no read back) when the copy is at the
  /// version just before; otherwise (another writer's change came between, or the copy was
  /// loaded anew meanwhile) the follower reads the log up to it.
  private func showOwn(_ change: CatalogChange) async {
    let source = Self.source(
      of: catalog, identity: identity.withLock { $0 }, version: change.version)
    if let moved = try? await served.followUpstream(
      [change], after: change.version - 1, source: source)
    {
      counters.withLock { $0.applied += Int(moved) }
    }
    _ = await caughtUp(to: change.version, within: Self.editShownWithin)
  }

  /// Returns once the copy reflects `version`, waking the follower; false when `timeout` passed
  /// first.
  private func caughtUp(to version: Int64, within timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    var pause = Duration.microseconds(200)
    while self.version < version {
      guard ContinuousClock.now < deadline else { return false }
      wake.yield()
      try? await Task.sleep(for: pause)
      pause = min(pause * 2, .milliseconds(20))
    }
    return true
  }

  /// Stops following and closes the copy and the connections.
  public func close() async {
    let tasks = self.tasks.withLock { $0 }
    for task in tasks { task.cancel() }
    wake.finish()
    // The listener gives its connection back before the connections close — unless the
    // database stopped answering (frozen): a server told to stop does not wait for it.
    await Self.waitAtMost(.seconds(2)) { for task in tasks { await task.value } }
    await saving.withLock { $0 }?.value
    served.follow(nil)
    served.close()
    await catalog.close()
    copy.release()
  }

  /// How long the follower waits for a read of the log before it tries again.
  static let readPatience = Duration.seconds(10)

  /// What `work` returns, or `unavailable` when it has not returned within `limit` (it goes on
  /// unawaited, and fails on its own).
  static func answered<Value: Sendable>(
    within limit: Duration, _ work: @escaping @Sendable () async throws(PostgresError) -> Value
  ) async throws(PostgresError) -> Value {
    let outcome = Locked<Result<Value, PostgresError>?>(nil)
    await waitAtMost(limit) {
      let result: Result<Value, PostgresError>
      do throws(PostgresError) {
        result = .success(try await work())
      } catch {
        result = .failure(error)
      }
      outcome.withLock { $0 = result }
    }
    guard let result = outcome.withLock({ $0 }) else {
      throw .unavailable("the change log", message: "no answer within \(limit)")
    }
    return try result.get()
  }

  /// Returns when `work` is done or `limit` has passed, whichever is first; `work` goes on
  /// unawaited past it (a task group would wait for it at its end).
  static func waitAtMost(_ limit: Duration, for work: @escaping @Sendable () async -> Void) async {
    let resumed = Locked(false)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resume: @Sendable () -> Void = {
        guard
          resumed.withLock({ done in
            defer { done = true }; return !done
          })
        else { return }
        continuation.resume()
      }
      Task {
        await work()
        resume()
      }
      Task {
        try? await Task.sleep(for: limit)
        resume()
      }
    }
  }

  // MARK: - CatalogUpstream

  /// The local copy's file (a .sqlite catalog).
  public var localCopyURL: URL { copy.url(of: file) }

  package func reach(_ version: Int64, within timeout: Duration) async throws(CatalogFailure) {
    guard await caughtUp(to: version, within: timeout) else {
      let reason = lastFailure.withLock { $0 }.map { ": \($0)" } ?? ""
      throw .unavailable(
        "after: catalog \(name) is at version \(self.version), not yet \(version)\(reason)")
    }
  }

  /// How long an edit waits for the node to show it before it is answered anyway (it is saved).
  static let editShownWithin = Duration.seconds(5)

  package func commit(_ edit: CatalogEdit) async throws(CatalogFailure) -> CatalogCommit {
    let catalog = self.catalog
    ownEdits.withLock { $0.onTheirWay += 1 }
    let saved: PostgresCatalog.SavedEdit?
    do {
      saved = try await Self.answering(unsaved: true) {
        () async throws(PostgresError) -> PostgresCatalog.SavedEdit? in
        try await catalog.save(edit)
      }
    } catch {
      ownEditShown()
      throw error
    }
    guard let saved else {
      ownEditShown()
      if case .add(let id?, _) = edit {
        throw .conflict("id: catalog \(name) has an item \"\(id.rawValue.prefix(100))\" already")
      }
      throw .notFound("no item \"\(edit.id?.rawValue.prefix(100) ?? "")\" in catalog \(name)")
    }
    // Saved: answered within the bound even while the copy is busy (made whole again).
    await Self.waitAtMost(Self.editShownWithin) {
      await self.showOwn(saved.change)
      self.ownEditShown()
    }
    return saved.commit
  }

  /// One of the node's own edits is shown (or failed): the last of them wakes the follower
  /// for a later version a notification named meanwhile.
  private func ownEditShown() {
    let heard = ownEdits.withLock { own -> Int64 in
      own.onTheirWay -= 1
      return own.onTheirWay == 0 ? own.heard : 0
    }
    if heard > version { wake.yield() }
  }

  package func replaceSynonyms(_ synonyms: Synonyms) async throws(CatalogFailure) -> Int64 {
    let catalog = self.catalog
    let version = try await Self.answering(unsaved: true) { () async throws(PostgresError) in
      try await catalog.saveSynonyms(synonyms)
    }
    _ = await caughtUp(to: version, within: Self.editShownWithin)
    return version
  }

  package func replacePins(_ pins: Pins) async throws(CatalogFailure) -> Int64 {
    let catalog = self.catalog
    let version = try await Self.answering(unsaved: true) { () async throws(PostgresError) in
      try await catalog.savePins(pins)
    }
    _ = await caughtUp(to: version, within: Self.editShownWithin)
    return version
  }

  /// The changes after `version`, read from the database's log (one entry a version): a put
  /// with the item as it is now (nothing when it is gone since, as its delete comes later), a
  /// delete, the synonyms as they are now. An import (an `r` entry) starts a copy over.
  package func changes(
    since version: Int64, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> ChangeFeedAnswer {
    let catalog = self.catalog
    let name = self.name
    let (state, logged) = try await Self.answering { () async throws(PostgresError) in
      try await catalog.changes(after: version, limit: limit)
    }
    func startOver(_ reason: String) -> ChangeFeedAnswer {
      .startOver(reason: reason, identity: state.identity, version: state.version)
    }
    if version > state.version {
      return startOver(
        "since: version \(version) is past catalog \(name)'s version \(state.version): it is another catalog, or was restored from an older copy"
      )
    }
    if version < state.logStart {
      return startOver(
        "since: version \(version) is older than the log catalog \(name) keeps, which starts after version \(state.logStart)"
      )
    }
    if logged.contains(where: { $0.kind == .replace }) {
      return startOver("since: catalog \(name) was imported again after version \(version)")
    }
    var settings: (Synonyms, Pins)?
    if logged.contains(where: { $0.kind == .synonyms }) {
      let schema = try await Self.answering { () async throws(PostgresError) in
        try await catalog.currentSchema()
      }
      settings = (schema.synonyms, try await visiblePins(schema.pins, visible: visible))
    }
    var changes = Self.changes(of: logged, settings: settings)
    // Each id once, at its last entry (every put carries the item as it is now), and the last
    // synonyms: a copy far behind reads an item changed many times once, as a file's feed gives
    // it. (No id holds a NUL, so the synonyms' key is no id's.)
    let key = { (change: CatalogChange) in
      change.put?.id.rawValue ?? change.delete?.rawValue ?? "\u{0}synonyms"
    }
    let last = Dictionary(
      changes.enumerated().map { (key($1), $0) }, uniquingKeysWith: { _, later in later })
    changes = changes.enumerated().filter { last[key($1)] == $0 }.map(\.element)
    let page = ChangeFeedPage(
      catalog: name, identity: state.identity, version: state.version, changes: changes,
      next: logged.count == limit ? logged.last?.version : nil)
    guard let visible else { return .page(page) }
    // What each id was at `version`: what its first entry after it says it replaced.
    var before: [ItemID: PostgresCatalog.Change.Before] = [:]
    for entry in logged {
      if let id = entry.id, before[id] == nil { before[id] = entry.before }
    }
    return .page(
      page.restricted(to: visible) { id in
        switch before[id] ?? .unknown {
        case .absent: false
        case .item(let item): visible(item)
        case .unknown: true
        }
      })
  }

  /// A page of the catalog in catalog order, read from the database in one snapshot.
  package func snapshot(
    after position: Int64?, limit: Int, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> CatalogSnapshotPage {
    let catalog = self.catalog
    let read = try await Self.answering { () async throws(PostgresError) in
      try await catalog.snapshotPage(after: position, limit: limit)
    }
    var schema = read.schema
    schema.pins = try await visiblePins(schema.pins, visible: visible)
    return CatalogSnapshotPage(
      catalog: name, identity: read.state.identity, version: read.state.version,
      schema: schema,
      items: visible.map { admits in read.items.filter { admits($0.item) } }
        ?? read.items, next: read.next, last: read.last)
  }

  /// `pins` as a reader framed by `visible` may see them (`Pins.visible(to:item:)`), the items
  /// read from the local copy: all of them without a frame.
  private func visiblePins(
    _ pins: Pins, visible: FeedVisibility?
  ) async throws(CatalogFailure) -> Pins {
    guard let visible, !pins.isEmpty else { return pins }
    var items: [ItemID: Item] = [:]
    for id in Set(pins.entries.map(\.id)) { items[id] = try await served.item(id) }
    return pins.visible(to: visible) { items[$0] }
  }

  /// Runs `work` against the database: out of reach is `unavailable` (the request may be
  /// retried), a value it cannot hold `invalid`, anything else it refused `failed`.
  static func answering<Result: Sendable>(
    unsaved: Bool = false, _ work: () async throws(PostgresError) -> Result
  ) async throws(CatalogFailure) -> Result {
    do {
      return try await work()
    } catch {
      let message = (unsaved ? "the edit was not saved: " : "") + "\(error)"
      switch error {
      case .outcomeUnknown:
        throw .unavailable("the edit may have been saved: \(error); read the item to know")
      case .unavailable: throw .unavailable(message)
      // What the database cannot hold (a NUL in a value): the request's fault.
      case .unsupported: throw .invalid(message)
      default: throw .failed(message)
      }
    }
  }
}

extension Duration {
  /// Seconds with two decimals, for a notice.
  fileprivate var seconds: String {
    let (whole, fraction) = components
    return String(format: "%.2f", Double(whole) + Double(fraction) / 1e18)
  }
}

/// A count as progress lines write it: "234,908".
private func grouped(_ value: some BinaryInteger) -> String {
  FieldValue.grouped(Double(value), from: 1_000)
}

#endif
