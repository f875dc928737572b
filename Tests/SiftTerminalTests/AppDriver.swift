import Foundation
import Sift
import SiftTerminal
import SiftTestSupport

/// Drives an `AppModel` the way `TerminalApp` does, but synchronously: pending searches run at
/// once, catalog writes are applied to an in-memory list (or refused, to test failures).
struct AppDriver {
  var model: AppModel
  /// The catalog "file": every write the model asked for, in order.
  var writes: [AppModel.CatalogWrite] = []
  var savedState: Data?
  var quit = false
  var failWrites = false
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
        case .write(let change):
          if failWrites {
            model.report("Not saved: disk full")
          } else {
            writes.append(change)
            model.commit(change)
          }
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
