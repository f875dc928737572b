#if Server
import Foundation
import Sift

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The keys of a server, in a JSON file of their own (hashed: `APIKey`). `sift serve` and
/// `sift keys` share it: each change is made under a lock on the file and written whole to a
/// new file that replaces the old, so neither ever reads half of one, and a server sees a key
/// made or revoked from the command line within a second.
public final class KeyStore: Sendable {
  public let url: URL
  private struct Read {
    /// The keys as last read, by hash.
    var byHash: [String: APIKey] = [:]
    var byID: [String: APIKey] = [:]
    /// The file's modification time and size when last read, and when that was checked.
    var readStamp: (Date?, Int)?
    var checked = Date.distantPast
  }

  private let read = Locked(Read())

  public init(url: URL) {
    self.url = url
  }

  /// Every key, oldest first.
  public func list() throws(KeyStoreError) -> [APIKey] {
    try withFileLock { () throws(KeyStoreError) in try Self.read(url) }.sorted {
      ($0.created, $0.id) < ($1.created, $1.id)
    }
  }

  /// Makes a key for `request`: the secret, to hand out once, and its record.
  public func create(
    _ request: KeyRequest, now: Date = Date()
  ) throws(KeyStoreError) -> (secret: String, key: APIKey) {
    if let problem = request.problem(now: now) { throw .invalid(problem) }
    let made = APIKey.make(request, now: now)
    try withFileLock { () throws(KeyStoreError) in
      let keys = try Self.read(url)
      try Self.write(keys + [made.record], to: url)
    }
    refresh(force: true)
    return (made.secret, made.record)
  }

  /// Revokes the key `id`; false when there is none.
  public func revoke(id: String) throws(KeyStoreError) -> Bool {
    let removed = try withFileLock { () throws(KeyStoreError) -> Bool in
      let keys = try Self.read(url)
      let kept = keys.filter { $0.id != id }
      guard kept.count < keys.count else { return false }
      try Self.write(kept, to: url)
      return true
    }
    refresh(force: true)
    return removed
  }

  /// The key whose secret is `secret`, as the file holds it now.
  func key(secret: String) -> APIKey? {
    refresh(force: false)
    // Found by its SHA-256: how long a lookup takes tells nothing of the key itself.
    let hash = APIKey.hashText(secret)
    return read.withLock { $0.byHash[hash] }
  }

  /// Whether the file holds no key now.
  var isEmpty: Bool {
    refresh(force: false)
    return read.withLock { $0.byID.isEmpty }
  }

  /// The key `id`, as the file holds it now.
  func key(id: String) -> APIKey? {
    refresh(force: false)
    return read.withLock { $0.byID[id] }
  }

  /// Reads the file again when it changed, checking at most once a second (`force`: now).
  private func refresh(force: Bool) {
    let now = Date()
    let due = read.withLock { read -> Bool in
      guard force || now.timeIntervalSince(read.checked) >= 1 else { return false }
      read.checked = now
      return true
    }
    guard due else { return }
    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
    let stamp = (attributes?[.modificationDate] as? Date, (attributes?[.size] as? Int) ?? -1)
    let unchanged = read.withLock { $0.readStamp.map { $0 == stamp } ?? false }
    guard force || !unchanged else { return }
    // A file that cannot be read keeps the keys last read: a server does not lock everyone
    // out while an editor saves it.
    guard let keys = try? Self.read(url) else { return }
    read.withLock { read in
      read.byHash = Dictionary(keys.map { ($0.hash, $0) }, uniquingKeysWith: { first, _ in first })
      read.byID = Dictionary(keys.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
      read.readStamp = stamp
    }
  }

  /// `{"keys": [...]}`; no file is no keys.
  private static func read(_ url: URL) throws(KeyStoreError) -> [APIKey] {
    guard FileManager.default.fileExists(atPath: url.path) else { return [] }
    do {
      let data = try Data(contentsOf: url)
      let decoder = JSONDecoder()
      decoder.dateDecodingStrategy = .iso8601
      return try decoder.decode(KeyFile.self, from: data).keys
    } catch {
      throw .unreadable("\(url.path): not a key file Sift wrote (\(error))")
    }
  }

  /// Writes the whole file beside the old one, readable by its owner alone, then swaps it in.
  private static func write(_ keys: [APIKey], to url: URL) throws(KeyStoreError) {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let temporary = url.deletingLastPathComponent().appendingPathComponent(
      ".\(url.lastPathComponent).\(getpid()).new")
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      let data = try encoder.encode(KeyFile(keys: keys))
      guard
        FileManager.default.createFile(
          atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
      else { throw CocoaError(.fileWriteNoPermission) }
      guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw .unwritable("\(url.path): cannot write the keys (\(error))")
    }
  }

  /// Runs `work` holding an exclusive lock on `FILE.lock`, so that a server and a command
  /// changing keys at once take turns.
  private func withFileLock<Result>(
    _ work: () throws(KeyStoreError) -> Result
  ) throws(KeyStoreError) -> Result {
    let lockPath = url.path + ".lock"
    try? FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let descriptor = open(lockPath, O_CREAT | O_RDWR, 0o600)
    guard descriptor >= 0 else {
      throw .unwritable("\(lockPath): cannot open the lock file (errno \(errno))")
    }
    defer { close(descriptor) }
    flock(descriptor, LOCK_EX)
    defer { flock(descriptor, LOCK_UN) }
    return try work()
  }

  private struct KeyFile: Codable {
    var keys: [APIKey]
  }
}

/// Why keys could not be read, made or revoked.
public enum KeyStoreError: Error, Equatable, CustomStringConvertible {
  /// The request is at fault; the message names the field.
  case invalid(String)
  case unreadable(String)
  case unwritable(String)

  public var description: String {
    switch self {
    case .invalid(let message), .unreadable(let message), .unwritable(let message): message
    }
  }
}
#endif
