import Foundation
import Sift
import SiftTerminal
import SiftTestSupport

/// Drives an `AppModel` the way `TerminalApp` does, but synchronously: pending searches run at
/// once, catalog writes are applied to an in-memory list (or refused, to test failures).
struct AppDriver {
  var model: AppModel
  /// The catalog "file": every edit written, in order, with the id it was given.
  var writes: [CatalogEdit] { catalog.written }
  var savedState: Data?
  var quit = false
  /// Whether the "disk" refuses writes (to test failures).
  var failWrites: Bool {
    get { catalog.fails }
    set { catalog.fails = newValue }
  }
  private let catalog: MemoryCatalog
  /// Whether searches finish between keys; false plays a person faster than the search worker.
  var settlesBetweenKeys = true

  init(_ catalog: SeedCatalog, width: Int = 80, height: Int = 24, restoring saved: Data? = nil)
    throws
  {
    try self.init(collection: catalog.load().makeCollection(), width: width, height: height)
    if let saved { model.restore(from: saved) }
    settle()
  }

  /// An app on any collection (hostile data, huge fields).
  init(collection: FilteredCollection, width: Int = 80, height: Int = 24) throws {
    catalog = MemoryCatalog(ids: collection.allItems.map(\.id))
    model = AppModel(
      controller: SearchController(collection: collection, searchesImmediately: false),
      width: width, height: height)
    settle()
  }

  /// Runs the searches the model waits for.
  mutating func settle() {
    while let pending = model.pendingSearch {
      guard model.deliver(pending.run()) else { break }
    }
  }

  mutating func press(_ keys: Key...) {
    for key in keys {
      for effect in model.handle(key) {
        switch effect {
        case .write(let edit): model.commit(edit, to: catalog)
        case .saveSearchState(let data): savedState = data
        case .quit: quit = true
        }
      }
      if settlesBetweenKeys { settle() }
    }
  }

  mutating func type(_ text: String) {
    for character in text { press(.character(character)) }
  }

  var screen: [String] { model.render().lines }
  var text: String { model.render().text }

  /// The titles of the result rows on screen (the lines that start with one space).
  var titles: [String] {
    guard !model.controller.rows.isEmpty else { return [] }
    return Array(screen[4..<(screen.count - 3)]).enumerated().filter { $0.offset % 2 == 0 }.map {
      $0.element.trimmingCharacters(in: .whitespaces)
    }.filter { !$0.isEmpty && $0 != "▐" }.map {
      $0.hasSuffix("▐") ? String($0.dropLast()).trimmingCharacters(in: .whitespaces) : $0
    }
  }

  var footer: String { screen[screen.count - 2].trimmingCharacters(in: .whitespaces) }
  var status: String { screen[screen.count - 1].trimmingCharacters(in: .whitespaces) }
}

/// A catalog "file" in memory for the app's edit pipeline: it names a new item with the next
/// integer after the largest numeric id it holds, and can refuse every write.
final class MemoryCatalog: CatalogPersistence {
  struct DiskFull: Error, CustomStringConvertible {
    var description: String { "disk full" }
  }

  private(set) var written: [CatalogEdit] = []
  private var ids: Set<ItemID>
  var fails = false

  init(ids: [ItemID]) { self.ids = Set(ids) }

  func makeItemID() throws(DiskFull) -> ItemID {
    if fails { throw DiskFull() }
    let largest = ids.compactMap { Int($0.rawValue) }.max() ?? 0
    return ItemID(String(largest + 1))
  }

  func persist(_ edit: CatalogEdit) throws(DiskFull) {
    if fails { throw DiskFull() }
    switch edit {
    case .add(let id, _): ids.insert(id!)
    case .update: break
    case .delete(let id): ids.remove(id)
    }
    written.append(edit)
  }
}
