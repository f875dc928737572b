#if Server
import Foundation
import Sift
import SiftStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a node keeps its copy of a PostgreSQL catalog: a .sqlite catalog (with its index file)
/// in the cache folder, which records in itself the catalog it copies and the version it
/// reflects (`SyncSource`, as a `sift sync` copy does), written in the transaction of the
/// changes that reach it: the copy never claims more or less than it holds. A restart opens
/// the copy and reads only the changes since that version. One process uses a folder's copy
/// at a time (a lock file): two nodes on one machine give each its own `--cache`.
final class LocalCopy: Sendable {
  let folder: URL
  /// A copy made for one command because another process holds the folder's: removed with
  /// its folder when released.
  let isTemporary: Bool
  let key: String
  private let lockDescriptor: Int32
  private let released = Locked(false)

  /// Takes the folder's copy of `address`'s catalog for this process.
  ///
  /// - Throws: `PostgresError.unsuitable` when the folder cannot be made or another process
  ///   holds the copy.
  init(folder: URL, address: PostgresAddress, isTemporary: Bool = false) throws(PostgresError) {
    self.folder = folder
    self.isTemporary = isTemporary
    key = Self.key(address)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw .unsuitable(
        address.description,
        reason: "its local copy's folder \(folder.path) cannot be made: \(error)")
    }
    let lockPath = folder.appendingPathComponent("\(key).lock").path
    let descriptor = open(lockPath, O_RDWR | O_CREAT, 0o644)
    guard descriptor >= 0 else {
      throw .unsuitable(
        address.description,
        reason:
          "its local copy's lock \(lockPath) cannot be opened: \(String(cString: strerror(errno)))")
    }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      close(descriptor)
      throw .unsuitable(address.description, reason: Self.busyReason(folder))
    }
    lockDescriptor = descriptor
  }

  deinit { release() }

  /// Why a folder's copy could not be taken.
  static func busyReason(_ folder: URL) -> String {
    "another sift process uses its local copy in \(folder.path); give each node a --cache folder of its own"
  }

  /// A copy in a new temporary folder, for a command that cannot take the usual one.
  static func temporary(for address: PostgresAddress) throws(PostgresError) -> LocalCopy {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-copy-\(UUID().uuidString)", isDirectory: true)
    return try LocalCopy(folder: folder, address: address, isTemporary: true)
  }

  /// Lets another process take the copy.
  func release() {
    let first = released.withLock { released in
      defer { released = true }
      return !released
    }
    guard first else { return }
    close(lockDescriptor)
    if isTemporary { try? FileManager.default.removeItem(at: folder) }
  }

  /// The copy's name in the folder: the host, port, database and catalog, in letters a file name
  /// holds.
  static func key(_ address: PostgresAddress) -> String {
    let place = address.socketFolder ?? address.host
    let raw = "\(place)-\(address.port)-\(address.database)-\(address.catalog)"
    return String(
      raw.unicodeScalars.map {
        CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "_"
      })
  }

  /// The newest copy in the folder that records its source (a load cut off before the end
  /// records none): its file name, opened, and where it stands.
  func latestCopy() -> (file: String, store: CatalogStore, source: SyncSource)? {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    let copies = files.filter { $0.hasPrefix(key + ".") && $0.hasSuffix(".sqlite") }.map {
      file -> (String, Date) in
      let attributes = try? FileManager.default.attributesOfItem(atPath: url(of: file).path)
      return (file, attributes?[.modificationDate] as? Date ?? .distantPast)
    }
    for (file, _) in copies.sorted(by: { $0.1 > $1.1 }) {
      guard let store = try? CatalogStore.open(at: url(of: file), concurrentReads: true) else {
        continue
      }
      if let source = try? store.syncSource() { return (file, store, source) }
      try? store.close()
    }
    return nil
  }

  func url(of file: String) -> URL { folder.appendingPathComponent(file) }

  /// A new file name for a copy.
  func newFileName() -> String { "\(key).\(UUID().uuidString.prefix(8)).sqlite" }

  /// Removes the copies in the folder but `kept` (left by a reload, or by a node killed while
  /// it loaded one).
  func removeCopies(except kept: String?) {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    for file in files where file.hasPrefix(key + ".") {
      guard !file.hasSuffix(".lock"), kept.map({ !file.hasPrefix($0) }) ?? true else { continue }
      try? FileManager.default.removeItem(at: folder.appendingPathComponent(file))
    }
  }
}
#endif
