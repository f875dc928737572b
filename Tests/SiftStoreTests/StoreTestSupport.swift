import Foundation
import Sift

@testable import SiftStore

/// A fresh folder under the system's temporary directory, removed by `cleanup()`.
struct TemporaryFolder {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("sift-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  func write(_ name: String, _ text: String) throws -> URL {
    let file = file(name)
    try Data(text.utf8).write(to: file)
    return file
  }

  func cleanup() { try? FileManager.default.removeItem(at: url) }
}

extension CatalogStore {
  /// The titles of every item in catalog order.
  func titles() throws -> [String] {
    let document = try loadDocument()
    return document.items.map { $0[document.schema.titleField]?.displayText ?? "" }
  }
}
