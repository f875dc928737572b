/// The per-scalar folding map (docs/command-line.md, "What folds") as a two-level lookup table, built once from the
/// generated `source` text (see `Scripts/generate-folding-table.swift`).
///
/// Folding never consults Foundation or the process locale at run time, so the same text folds
/// to the same bytes on every platform and in every locale.
struct FoldingTable: Sendable {
  /// The table every folder uses; built on first use (about 8,000 entries).
  package static let shared = FoldingTable(source: FoldingTable.source)

  /// Marks "this scalar folds to itself" in `entries`.
  private static let identity: UInt32 = .max

  /// For each page of 256 scalars (`scalar >> 8`), the first index of its slice of `entries`,
  /// or -1 when no scalar of the page changes.
  private let pages: [Int32]
  /// Per scalar of a present page: `offset << 8 | length` into `bytes`, or `identity`.
  private let entries: [UInt32]
  /// The UTF-8 of every folded replacement, back to back.
  private let replacementBytes: ReplacementBytes

  /// Memory of its own (not an array) so that `replacement(of:)` can hand out pointers into it
  /// without a closure: the line folder's inner loop must not capture its state.
  private final class ReplacementBytes: Sendable {
    nonisolated(unsafe) let base: UnsafeMutablePointer<UInt8>

    init(_ bytes: [UInt8]) {
      base = .allocate(capacity: max(1, bytes.count))
      base.initialize(from: bytes, count: bytes.count)
    }

    deinit { base.deallocate() }
  }

  /// Reads `source` byte by byte (hex numbers separated by spaces, one scalar a line): every
  /// process that folds pays this once, at its first non-ASCII text (often a keystroke), so
  /// it avoids `split` and `String` parsing (about 10 ms for the 8,000 lines) and keeps its
  /// state in a struct: as variables captured by nested functions, each access was checked
  /// for exclusivity at run time, 2.3 ms in all.
  init(source: String) {
    var parser = SourceParser()
    var source = source
    source.withUTF8 { text in
      for byte in text { parser.read(byte) }
    }
    parser.endLine()
    pages = parser.pages
    entries = parser.entries
    replacementBytes = ReplacementBytes(parser.bytes)
  }

  /// The state of `init(source:)`'s reading.
  private struct SourceParser {
    var pages = [Int32](repeating: -1, count: 0x1100)
    var entries: [UInt32] = []
    var bytes: [UInt8] = []
    /// The numbers of the line so far: the scalar, then what it folds to.
    var numbers: [UInt32] = []
    var number: UInt32 = 0
    var digits = 0

    @inline(__always)
    mutating func read(_ byte: UInt8) {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        number = number &* 16 &+ UInt32(byte - UInt8(ascii: "0"))
        digits += 1
      case UInt8(ascii: "A")...UInt8(ascii: "F"):
        number = number &* 16 &+ UInt32(byte - UInt8(ascii: "A") + 10)
        digits += 1
      case UInt8(ascii: "a")...UInt8(ascii: "f"):
        number = number &* 16 &+ UInt32(byte - UInt8(ascii: "a") + 10)
        digits += 1
      case UInt8(ascii: "\n"):
        endLine()
      default:
        endNumber()
      }
    }

    mutating func endNumber() {
      // More than six hex digits is no scalar: kept as one that every check refuses.
      if digits > 0 { numbers.append(digits <= 6 ? number : .max) }
      number = 0
      digits = 0
    }

    mutating func endLine() {
      endNumber()
      defer { numbers.removeAll(keepingCapacity: true) }
      guard let scalar = numbers.first, scalar < 0x110000 else { return }
      let page = Int(scalar >> 8)
      if pages[page] < 0 {
        pages[page] = Int32(entries.count)
        entries.append(contentsOf: repeatElement(FoldingTable.identity, count: 256))
      }
      let offset = bytes.count
      for target in numbers.dropFirst() {
        guard let s = Unicode.Scalar(target) else { continue }
        UTF8.encode(s) { bytes.append($0) }
      }
      let length = bytes.count - offset
      entries[Int(pages[page]) + Int(scalar & 0xFF)] = UInt32(offset) << 8 | UInt32(length)
    }
  }

  /// The folded UTF-8 of `scalar`, or nil when it folds to itself (the caller copies it
  /// unchanged). The bytes stay valid as long as the table: for `shared`, the whole process.
  @inline(__always)
  func replacement(of scalar: UInt32) -> UnsafeBufferPointer<UInt8>? {
    let pageIndex = Int(scalar >> 8)
    guard pageIndex < pages.count else { return nil }
    let page = pages[pageIndex]
    guard page >= 0 else { return nil }
    let entry = entries[Int(page) + Int(scalar & 0xFF)]
    guard entry != FoldingTable.identity else { return nil }
    return UnsafeBufferPointer(
      start: replacementBytes.base + Int(entry >> 8), count: Int(entry & 0xFF))
  }

  /// Calls `body` with the folded UTF-8 of `scalar`; returns false when the scalar folds to
  /// itself (the caller copies it unchanged).
  @inline(__always)
  func withReplacement(of scalar: UInt32, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
    guard let folded = replacement(of: scalar) else { return false }
    body(folded)
    return true
  }
}
