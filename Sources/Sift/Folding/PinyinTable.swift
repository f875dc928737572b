/// The Mandarin readings of Han characters without tones (`beijing` for 北京), built once from
/// the generated sources in `PinyinTable+Data.swift` (see `Scripts/generate-pinyin-table.py`):
/// about 27,000 characters of the BMP, simplified and traditional, 422 readings.
///
/// Parsed at the first Han character a process reads, so a catalog without Chinese never pays
/// for it; then about a quarter of a megabyte of arrays (the codes 55 KB, the 4,134 sets of
/// several readings the rest).
struct PinyinTable: Sendable {
  /// The table every reader uses.
  static let shared = PinyinTable()

  /// Each reading's ASCII letters.
  private let syllables: [[UInt8]]
  /// The sets of several readings, as indices into `syllables`, the most common first.
  private let readingSets: [[UInt16]]
  /// Runs of consecutive scalars: the first scalar and where its codes start in `codes`.
  private let runs: [(first: UInt32, count: Int, offset: Int)]
  /// Per scalar of a run: 0 none, 1...S one syllable (its index + 1), above S a set.
  private let codes: [UInt16]

  init() {
    syllables = Self.syllableSource.split(whereSeparator: { $0 == " " || $0 == "\n" }).map {
      Array($0.utf8)
    }
    readingSets = Self.readingSetSource.split(separator: "\n").map { line in
      Self.decodeCodes(Array(line.utf8)).map { $0 - 1 }
    }
    var runs: [(first: UInt32, count: Int, offset: Int)] = []
    var codes: [UInt16] = []
    for line in Self.characterSource.split(separator: "\n") {
      let bytes = Array(line.utf8)
      if bytes.first == UInt8(ascii: "@") {
        let first = UInt32(String(decoding: bytes.dropFirst(), as: UTF8.self), radix: 16) ?? 0
        runs.append((first, 0, codes.count))
        continue
      }
      let decoded = Self.decodeCodes(bytes)
      codes += decoded
      runs[runs.count - 1].count += decoded.count
    }
    self.runs = runs
    self.codes = codes
  }

  /// The code alphabet: printable ASCII but the quote, the backslash and "@".
  private static let digitValues: [UInt8: UInt16] = {
    var values: [UInt8: UInt16] = [:]
    var next: UInt16 = 0
    for byte in UInt8(0x21)...0x7E where byte != 0x22 && byte != 0x5C && byte != 0x40 {
      values[byte] = next
      next += 1
    }
    return values
  }()

  private static func decodeCodes(_ bytes: [UInt8]) -> [UInt16] {
    let base = UInt16(digitValues.count)
    return stride(from: 0, to: bytes.count - 1, by: 2).map {
      (digitValues[bytes[$0]] ?? 0) * base + (digitValues[bytes[$0 + 1]] ?? 0)
    }
  }

  /// Whether `scalar` might be a Han character with a reading: a quick test before `readings`.
  @inline(__always)
  static func mayRead(_ scalar: UInt32) -> Bool { scalar >= 0x3007 && scalar <= 0xFAFF }

  /// The readings of `scalar`, the most common first; empty when it has none.
  func readings(of scalar: UInt32) -> [[UInt8]] {
    guard Self.mayRead(scalar) else { return [] }
    // Five runs: a walk is as quick as a search.
    for run in runs where scalar >= run.first && scalar < run.first + UInt32(run.count) {
      let code = Int(codes[run.offset + Int(scalar - run.first)])
      if code == 0 { return [] }
      if code <= syllables.count { return [syllables[code - 1]] }
      return readingSets[code - syllables.count - 1].map { syllables[Int($0)] }
    }
    return []
  }

  /// How many characters have a reading: what the tests and the benchmarks report.
  var characterCount: Int { codes.count { $0 != 0 } }
}
