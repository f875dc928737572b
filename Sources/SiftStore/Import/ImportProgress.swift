import Sift

/// How far an import has got: what a progress bar on a terminal shows — the share done, the
/// items so far, how fast they come and, once that can be told, the time left.
public struct ImportProgress: Hashable, Sendable {
  /// What the import is doing.
  public enum Phase: Hashable, Sendable {
    /// Reading a CSV file once before its records are written, for the columns no flag names
    /// that hold only numbers (kept as numbers); it stops once every such column holds text.
    case scanning
    /// Reading and checking the file's records (`CatalogImporter.readBatches`).
    case reading
    /// Reading the file's records and writing them to the catalog as they come.
    case writing
    /// Building and saving the index of the items.
    case indexing
  }

  public var phase: Phase
  /// Of the whole import, from 0 to 1.
  public var fraction: Double
  /// Records scanned, read or written so far; every item while `indexing`.
  public var items: Int

  public init(phase: Phase, fraction: Double, items: Int) {
    self.phase = phase
    self.fraction = min(max(fraction, 0), 1)
    self.items = items
  }

  /// The share of the whole that the records take, read and written, before the index: as it
  /// measured on the cities (Benchmarks/README.md, "Import").
  static let recordsShare = 0.5

  static func scanning(_ done: Double, items: Int) -> ImportProgress {
    ImportProgress(phase: .scanning, fraction: recordsShare * done, items: items)
  }

  static func reading(_ done: Double, items: Int) -> ImportProgress {
    ImportProgress(phase: .reading, fraction: recordsShare * done, items: items)
  }

  static func writing(_ done: Double, items: Int) -> ImportProgress {
    ImportProgress(phase: .writing, fraction: recordsShare * done, items: items)
  }

  static func indexing(_ done: Double, items: Int) -> ImportProgress {
    ImportProgress(
      phase: .indexing, fraction: recordsShare + (1 - recordsShare) * done, items: items)
  }

  /// How much of the current phase is done, from 0 to 1.
  public var phaseFraction: Double {
    switch phase {
    case .scanning, .reading, .writing: fraction / Self.recordsShare
    case .indexing: (fraction - Self.recordsShare) / (1 - Self.recordsShare)
    }
  }

  /// The percentage shown: whole numbers, rounded down (100 only when done).
  public var percent: Int { Int((fraction * 100).rounded(.down)) }

  /// What follows the bar: "45% · 105,600 items read · 52,800 a second · about 3 s left".
  ///
  /// - Parameters:
  ///   - elapsed: seconds since the import began (for the time left).
  ///   - inPhase: seconds since this phase began (for the rate).
  public func summary(elapsed: Double, inPhase: Double) -> String {
    var parts = ["\(percent)%"]
    let count = FieldValue.grouped(Double(items), from: 1_000)
    let noun = items == 1 ? "item" : "items"
    switch phase {
    case .scanning: parts.append("\(count) \(noun) scanned for numbers")
    case .reading: parts.append("\(count) \(noun) read")
    case .writing: parts.append("\(count) \(noun) written")
    case .indexing: parts.append("\(count) \(noun) · building the index")
    }
    if phase != .indexing, items > 0, inPhase >= 0.5 {
      parts.append(
        "\(FieldValue.grouped((Double(items) / inPhase).rounded(), from: 1_000)) a second")
    }
    // The time left once a twentieth is done and a second has gone: earlier it is a guess.
    if fraction >= 0.05, fraction < 1, elapsed >= 1 {
      parts.append("about \(Self.duration(elapsed * (1 - fraction) / fraction)) left")
    }
    return parts.joined(separator: " · ")
  }

  /// "3 s", "1 min 05 s".
  static func duration(_ seconds: Double) -> String {
    let whole = max(1, Int(seconds.rounded(.up)))
    guard whole >= 60 else { return "\(whole) s" }
    let secondsPart = whole % 60
    return "\(whole / 60) min \(secondsPart < 10 ? "0" : "")\(secondsPart) s"
  }
}
