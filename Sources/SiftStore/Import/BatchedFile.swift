import Foundation

/// A file read front to back in batches that end where the reader says — after a line, after
/// a record — so that an import never holds the whole file.
struct BatchedFile {
  private let handle: FileHandle
  private let name: String
  /// Read and not yet handed out.
  private var pending: [UInt8]
  private var atEnd = false
  /// The bytes handed out, and skipped, so far.
  private(set) var consumed = 0

  /// Reads `handle` from where it stands; `start` holds the bytes read from it before (to
  /// detect the format). `name` is the file as errors name it.
  init(_ handle: FileHandle, name: String, start: [UInt8]) {
    self.handle = handle
    self.name = name
    pending = start
  }

  /// Skips `prefix` when the file starts with it (a byte order mark).
  mutating func skip(_ prefix: [UInt8]) {
    guard consumed == 0, pending.starts(with: prefix) else { return }
    pending.removeFirst(prefix.count)
    consumed = prefix.count
  }

  /// The next batch: about `size` bytes, up to where `end` says a batch may end in the bytes
  /// it is given (told whether the file ends with them); more when it says nowhere. Nil once
  /// the file is read. `line`: the line a read failure is reported on.
  mutating func next(
    size: Int, line: Int, end: (_ bytes: [UInt8], _ atEnd: Bool) -> Int?
  ) throws(ImportError) -> [UInt8]? {
    var wanted = size
    while true {
      while !atEnd, pending.count < wanted {
        let chunk: Data?
        do {
          chunk = try handle.read(upToCount: wanted - pending.count)
        } catch {
          throw ImportError(
            file: name, line: line, reason: "cannot read the file (\(error.localizedDescription))")
        }
        guard let chunk, !chunk.isEmpty else {
          atEnd = true
          break
        }
        pending.append(contentsOf: chunk)
      }
      if pending.isEmpty { return nil }
      guard let cut = end(pending, atEnd) else {
        wanted *= 2
        continue
      }
      let batch = Array(pending[..<cut])
      pending.removeFirst(cut)
      consumed += cut
      return batch
    }
  }
}
