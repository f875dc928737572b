/// The per-scalar folding map of DESIGN §3 as a two-level lookup table, built once from the
/// generated `source` text (see `Scripts/generate-folding-table.swift`).
///
/// Folding never consults Foundation or the process locale at run time, so the same text folds
/// to the same bytes on every platform and in every locale.
package struct FoldingTable: Sendable {
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
  private let bytes: [UInt8]

  init(source: String) {
    var pages = [Int32](repeating: -1, count: 0x1100)
    var entries: [UInt32] = []
    var bytes: [UInt8] = []
    for line in source.split(separator: "\n") {
      let numbers = line.split(separator: " ").compactMap { UInt32($0, radix: 16) }
      guard let scalar = numbers.first, scalar < 0x110000 else { continue }
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
    self.pages = pages
    self.entries = entries
    self.bytes = bytes
  }

  /// Calls `body` with the folded UTF-8 of `scalar`; returns false when the scalar folds to
  /// itself (the caller copies it unchanged).
  @inline(__always)
  func withReplacement(of scalar: UInt32, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
    let pageIndex = Int(scalar >> 8)
    guard pageIndex < pages.count else { return false }
    let page = pages[pageIndex]
    guard page >= 0 else { return false }
    let entry = entries[Int(page) + Int(scalar & 0xFF)]
    guard entry != FoldingTable.identity else { return false }
    let offset = Int(entry >> 8)
    let length = Int(entry & 0xFF)
    bytes.withUnsafeBufferPointer { all in
      body(UnsafeBufferPointer(rebasing: all[offset..<offset + length]))
    }
    return true
  }
}
