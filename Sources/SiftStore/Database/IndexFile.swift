import Foundation
import Sift

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The search index of a catalog in a file of its own beside it (`cities.sqlite-index` for
/// `cities.sqlite`), so that opening *maps* it and reads only the pages a search touches, where
/// a blob in SQLite had to be copied out whole (35 MB for the cities, 80 ms of every open).
///
/// The file is never changed in place: a new one is written under a temporary name, flushed,
/// and renamed over the old, so a process that mapped the old one keeps reading it whole. Which
/// file answers the items is recorded in the catalog (`index_file`: the token written in the
/// file's header, and the items' generation), in the transaction that checks the generation —
/// a file whose token is not the recorded one (another catalog's, or one written by a save that
/// did not commit) is never searched.
///
/// Layout: a 4 KiB header — magic "SIFTIDX\n", layout version (u32), 4 zero bytes, the token
/// (16 bytes), the generation (i64), the offset and length (u64 each; length 0: none) of the
/// archive, of the near-spelling dictionaries and of the trigram index, and a checksum of those
/// 88 bytes — then the `IndexArchive`, `NearSpellingArchive` and trigram index
/// (`SearchIndex.archivedTrigrams()`), each at a multiple of 4 KiB, each with its own checksum,
/// in any order (an import writes the trigrams before the dictionaries, so that it can let the
/// trigrams go before it builds them).
struct IndexFile {
  static let magic: [UInt8] = Array("SIFTIDX\n".utf8)
  static let layoutVersion: UInt32 = 1
  static let headerSize = 4096

  /// The file beside the catalog at `catalog`.
  static func url(forCatalogAt catalog: URL) -> URL {
    catalog.deletingLastPathComponent().appendingPathComponent(catalog.lastPathComponent + "-index")
  }

  /// What the header says.
  struct Header: Equatable {
    var token: UUID
    var generation: Int64
    var archive: Range<Int>
    var nearSpellings: Range<Int>?
    var trigrams: Range<Int>?
  }

  /// Writes the sections — the archive, the near-spelling dictionaries, the trigram index; an
  /// empty one is absent — under a temporary name beside `final`, flushed to disk; returns that
  /// name, for `install` once the catalog records the token.
  static func writeTemporary(
    beside final: URL, token: UUID, generation: Int64, archive: [UInt8],
    nearSpellings: [UInt8], trigrams: [UInt8]
  ) throws -> URL {
    try writeTemporary(
      beside: final, token: token, generation: generation,
      sections: [archive, nearSpellings, trigrams].enumerated().map { slot, bytes in
        (slot, { bytes.withUnsafeBytes($0) })
      })
  }

  /// Writes the three sections as `sections` make them, in the order given, each handing its
  /// bytes to the sink it is given as they are made — so that no section is ever whole in
  /// memory — then the header that says where each lies. `slot` is the section's place in the
  /// header: 0 the archive, 1 the near-spelling dictionaries, 2 the trigram index. `starting`
  /// is told the number of each section begun, in the order written.
  static func writeTemporary(
    beside final: URL, token: UUID, generation: Int64,
    sections: [(slot: Int, write: (@escaping ArchiveSink) -> Void)],
    starting: (Int) -> Void = { _ in }
  ) throws -> URL {
    precondition(
      sections.map(\.slot).sorted() == [0, 1, 2], "an index file has three sections, once each")
    let temporary = final.deletingLastPathComponent().appendingPathComponent(
      ".\(final.lastPathComponent).\(UUID().uuidString).writing")
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
    guard descriptor >= 0 else { throw IndexFileError.system("open", temporary.path, errno) }
    do {
      defer { close(descriptor) }
      let file = SectionWriter(descriptor: descriptor, url: temporary)
      file.write([UInt8](repeating: 0, count: headerSize))
      // Each section at the next page after the one before, once its first byte comes.
      var ranges: [(offset: Int, count: Int)] = Array(repeating: (0, 0), count: 3)
      for (number, section) in sections.enumerated() {
        starting(number)
        let start = file.sectionStart()
        section.write { file.writeInSection($0) }
        if file.count > start.written {
          ranges[section.slot] = (start.offset, file.count - start.offset)
        }
      }
      if let error = file.error { throw error }
      var header: [UInt8] = magic
      appendLittleEndian(layoutVersion, to: &header)
      appendLittleEndian(UInt32(0), to: &header)
      withUnsafeBytes(of: token.uuid) { header.append(contentsOf: $0) }
      appendLittleEndian(generation, to: &header)
      for range in ranges {
        appendLittleEndian(UInt64(range.offset), to: &header)
        appendLittleEndian(UInt64(range.count), to: &header)
      }
      appendLittleEndian(Checksum.of(header), to: &header)
      let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
      guard written == header.count else {
        throw IndexFileError.system("write", temporary.path, written < 0 ? errno : EIO)
      }
      try backdate(descriptor, temporary)
      guard fsync(descriptor) == 0 else {
        throw IndexFileError.system("fsync", temporary.path, errno)
      }
    } catch {
      unlink(temporary.path)
      throw error
    }
    return temporary
  }

  /// Writes a file front to back in pieces of `writeChunk`, keeping the first failure (a
  /// sink cannot throw): whoever writes checks `error` when done.
  private final class SectionWriter {
    let descriptor: Int32
    let url: URL
    private(set) var count = 0
    private(set) var error: (any Error)?
    /// Where the section being written starts, and whether its first byte has come.
    private var pendingSection: Int?

    init(descriptor: Int32, url: URL) {
      self.descriptor = descriptor
      self.url = url
    }

    /// Begins a section: it starts at the next page once its first byte comes.
    func sectionStart() -> (offset: Int, written: Int) {
      pendingSection = count
      return (roundedUp(count), count)
    }

    func writeInSection(_ raw: UnsafeRawBufferPointer) {
      guard !raw.isEmpty else { return }
      if let start = pendingSection {
        pendingSection = nil
        write([UInt8](repeating: 0, count: roundedUp(start) - start))
      }
      write(raw)
    }

    func write(_ bytes: [UInt8]) {
      bytes.withUnsafeBytes { write($0) }
    }

    func write(_ raw: UnsafeRawBufferPointer) {
      guard error == nil else { return }
      do {
        try IndexFile.writeAll(raw, descriptor, url)
        count += raw.count
      } catch {
        self.error = error
      }
    }
  }

  /// Sets the file's modification time two whole seconds back, so that any later write — which
  /// stamps the time it happened, to the nanosecond or the second — changes it, however soon it
  /// comes: `Stamp` can then tell the file is the one Sift wrote without reading it.
  private static func backdate(_ descriptor: Int32, _ url: URL) throws {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let past = timespec(tv_sec: now.tv_sec - 2, tv_nsec: 0)
    var times = (past, past)
    let done = withUnsafePointer(to: &times) {
      $0.withMemoryRebound(to: timespec.self, capacity: 2) { futimens(descriptor, $0) }
    }
    guard done == 0 else { throw IndexFileError.system("futimens", url.path, errno) }
  }

  /// One state of a file, as `stat` tells it: device, inode, size, and the times of its last
  /// change and modification. The catalog records the stamp of the index file Sift wrote; a
  /// file that still has it was not written, copied or replaced since (Sift backdates what
  /// it writes, so a write even within the same clock tick moves the modification time), and
  /// is read without its checksum. A file whose stamp differs is checked whole.
  struct Stamp: Equatable, CustomStringConvertible {
    let text: String

    init?(recorded: String?) {
      guard let recorded else { return nil }
      text = recorded
    }

    init(_ status: stat) {
      #if canImport(Darwin)
      let modified = status.st_mtimespec
      let changed = status.st_ctimespec
      #else
      let modified = status.st_mtim
      let changed = status.st_ctim
      #endif
      // As the system gives them: no conversion can trap on a device number or a time
      // before 1970.
      text =
        "\(status.st_dev):\(status.st_ino):\(status.st_size):"
        + "\(modified.tv_sec).\(modified.tv_nsec):\(changed.tv_sec).\(changed.tv_nsec)"
    }

    /// The stamp of the file at `url` now; nil when it cannot be read.
    init?(ofFileAt url: URL) {
      var status = stat()
      guard stat(url.path, &status) == 0 else { return nil }
      self.init(status)
    }

    var description: String { text }
  }

  /// Renames a file written by `writeTemporary` into place, and flushes the directory so the
  /// rename outlives a crash.
  static func install(_ temporary: URL, at final: URL) throws {
    guard rename(temporary.path, final.path) == 0 else {
      let error = errno
      unlink(temporary.path)
      throw IndexFileError.system("rename", final.path, error)
    }
    let directory = open(final.deletingLastPathComponent().path, O_RDONLY)
    if directory >= 0 {
      _ = fsync(directory)
      close(directory)
    }
    removeAbandoned(beside: final)
  }

  /// Removes the temporary files of saves that never finished (a process killed while writing)
  /// beside `final`: those of its name, untouched for `age` — a save still writing one keeps
  /// touching it.
  static func removeAbandoned(beside final: URL, olderThan age: TimeInterval = 600) {
    let folder = final.deletingLastPathComponent()
    let prefix = ".\(final.lastPathComponent)."
    guard
      let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
    else { return }
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".writing") {
      let url = folder.appendingPathComponent(name)
      let modified =
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]) as? Date
      if let modified, Date().timeIntervalSince(modified) > age { unlink(url.path) }
    }
  }

  /// The most one `write` hands the system. The page cache keeps a file in pieces as large as
  /// the writes that made it (Linux 6.x, ext4), and a reader that maps the file is charged a
  /// whole piece for each byte it touches: written in one go, the cities' index file just
  /// imported cost a `sift bench` 93 MB, in 64 KB writes 61 MB — what it costs once settled
  /// (Benchmarks/README.md, issue 28).
  static let writeChunk = 65_536

  fileprivate static func writeAll(
    _ raw: UnsafeRawBufferPointer, _ descriptor: Int32, _ url: URL
  ) throws {
    var offset = 0
    while offset < raw.count {
      let count = min(raw.count - offset, writeChunk)
      let written = write(descriptor, raw.baseAddress! + offset, count)
      if written < 0 {
        if errno == EINTR { continue }
        throw IndexFileError.system("write", url.path, errno)
      }
      offset += written
    }
  }

  static func roundedUp(_ offset: Int) -> Int { (offset + 4095) / 4096 * 4096 }

  private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8])
  {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }
}

enum IndexFileError: Error, CustomStringConvertible {
  case system(String, String, Int32)

  var description: String {
    switch self {
    case .system(let call, let path, let code):
      "\(call) \(path): \(String(cString: strerror(code)))"
    }
  }
}

/// An index file mapped read-only: what keeps the buffers an index borrows from it alive. It is
/// unmapped when the last index (or copy of one) that reads it goes.
final class MappedIndexFile: @unchecked Sendable {
  // Sendable: the mapping is read-only and lives as long as the object.
  let header: IndexFile.Header
  private let base: UnsafeRawPointer
  private let length: Int
  /// Whether the trigram index's checksum agrees (it is optional: not using it costs a build).
  private let trigramsAgree: Bool
  /// Whether the file is the one Sift wrote, unchanged since (its `IndexFile.Stamp` is the one
  /// the catalog recorded): its sections are read without their checksums.
  let isTrusted: Bool

  /// How the sections' readers treat their checksums: checked here, or trusted.
  var checksumCheck: IndexArchive.ChecksumCheck { isTrusted ? .trusted : .verified }

  /// Why a file was not mapped; the caller builds the index from the items instead.
  enum Failure: Error, Equatable, CustomStringConvertible {
    case missing
    case notAnIndexFile
    /// The file answers another save than the one the catalog records.
    case otherSave
    case damaged(String)

    var description: String {
      switch self {
      case .missing: "the index file is missing"
      case .notAnIndexFile: "the index file is not one Sift wrote"
      case .otherSave: "the index file is not the one the catalog records"
      case .damaged(let reason): "a damaged index file (\(reason))"
      }
    }
  }

  /// Maps the file at `url` if its header names `token` and `generation`, and its archive's
  /// checksum agrees — checked a megabyte at a time, each let go once read, so that checking
  /// does not leave every page of the file in memory — unless the file still has the stamp
  /// `stamp` the catalog recorded when Sift wrote it.
  init(url: URL, token: UUID, generation: Int64, stamp: IndexFile.Stamp?) throws(Failure) {
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw errno == ENOENT ? .missing : .damaged(String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw .damaged("stat") }
    let size = Int(status.st_size)
    let header = try Self.readHeader(descriptor, size: size)
    guard header.token == token, header.generation == generation else { throw .otherSave }
    guard let mapped = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0),
      mapped != MAP_FAILED
    else { throw .damaged("mmap: \(String(cString: strerror(errno)))") }
    let base = UnsafeRawPointer(mapped)
    let trusted = stamp != nil && stamp == IndexFile.Stamp(status)
    guard trusted || Self.checksumAgrees(Self.bytes(header.archive, of: base)) else {
      munmap(mapped, size)
      throw .damaged("checksum")
    }
    self.header = header
    self.base = base
    length = size
    isTrusted = trusted
    trigramsAgree =
      header.trigrams.map { trusted || Self.checksumAgrees(Self.bytes($0, of: base)) } ?? false
  }

  /// Checks a section's checksum a megabyte at a time, letting each go once read. (A section
  /// starts on a page, and the chunks are whole pages but the last.)
  private static func checksumAgrees(_ section: UnsafeRawBufferPointer) -> Bool {
    let start = Int(bitPattern: section.baseAddress)
    return IndexArchive.checksumAgrees(section) { range in
      _ = madvise(
        UnsafeMutableRawPointer(bitPattern: start + range.lowerBound), range.count, MADV_DONTNEED)
    }
  }

  deinit { munmap(UnsafeMutableRawPointer(mutating: base), length) }

  var archive: UnsafeRawBufferPointer { bytes(header.archive) }
  var nearSpellings: UnsafeRawBufferPointer? { header.nearSpellings.map(bytes) }

  /// The near-spelling dictionaries when their checksum agrees, checked (a chunk at a time)
  /// when first asked: they are read on the first misspelling, or in the background.
  func verifiedNearSpellings() -> UnsafeRawBufferPointer? {
    guard let near = nearSpellings, isTrusted || Self.checksumAgrees(near) else { return nil }
    return near
  }
  /// The trigram index, when the file has one whose checksum agrees.
  var trigrams: UnsafeRawBufferPointer? { trigramsAgree ? header.trigrams.map(bytes) : nil }

  private func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer { Self.bytes(range, of: base) }

  private static func bytes(_ range: Range<Int>, of base: UnsafeRawPointer)
    -> UnsafeRawBufferPointer
  {
    UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
  }

  private static func readHeader(_ descriptor: Int32, size: Int) throws(Failure) -> IndexFile.Header
  {
    var raw = [UInt8](repeating: 0, count: 96)
    let got = raw.withUnsafeMutableBytes { read(descriptor, into: $0, at: 0) }
    guard got == raw.count, raw.starts(with: IndexFile.magic) else { throw .notAnIndexFile }
    func load<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
      raw.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
    guard load(8, as: UInt32.self) == IndexFile.layoutVersion else { throw .notAnIndexFile }
    guard load(88, as: UInt64.self) == Checksum.of(Array(raw[..<88])) else {
      throw .damaged("header")
    }
    let token = raw.withUnsafeBytes {
      UUID(uuid: $0.loadUnaligned(fromByteOffset: 16, as: uuid_t.self))
    }
    func range(_ offset: Int) throws(Failure) -> Range<Int> {
      let start = load(offset, as: UInt64.self)
      let count = load(offset + 8, as: UInt64.self)
      guard start % 4096 == 0, start <= UInt64(size), count <= UInt64(size) - start else {
        throw .damaged("cut short")
      }
      return Int(start)..<Int(start + count)
    }
    let archive = try range(40)
    let near = try range(56)
    let trigrams = try range(72)
    return IndexFile.Header(
      token: token, generation: load(32, as: Int64.self), archive: archive,
      nearSpellings: near.isEmpty ? nil : near, trigrams: trigrams.isEmpty ? nil : trigrams)
  }

  /// Fills `buffer` from `offset` on; the number of bytes read (short at the end of the file).
  private static func read(
    _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int
  ) -> Int {
    var done = 0
    while done < buffer.count {
      let got = pread(
        descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
      if got < 0, errno == EINTR { continue }
      guard got > 0 else { break }
      done += got
    }
    return done
  }
}
