import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Relevance tiers, best first. Within a tier, items keep catalog order, so results never
/// shuffle between keystrokes for no reason.
public enum RelevanceTier: UInt8, Comparable, Sendable, CaseIterable {
  /// The title equals the query text ("red rose" → Red Rose).
  case titleEquals = 0
  /// Every term starts a word of the title ("ro" → Red Rose).
  case titleWordPrefix = 1
  /// The title contains every term, not all at word starts ("ose" → Red Rose).
  case titleContains = 2
  /// Other fields match (a year, a price, an alternate name, initials).
  case otherFields = 3

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension SearchIndex {
  /// Sorts matching slots by tier, then catalog order.
  ///
  /// - Complexity: O(*m*) to tier *m* matches plus a sort only where catalog order and slot
  ///   order differ (after edits).
  func rank(_ slots: [Int32], titleNeedles: [[UInt8]]) -> [RankedSlot] {
    guard !titleNeedles.isEmpty, let titleColumn else {
      return inCatalogOrder(slots.map { RankedSlot(slot: $0, tier: 0) })
    }
    let joined = Array(titleNeedles.joined(separator: [UInt8(ascii: " ")]))
    let titles = columns[titleColumn]
    // Many matches (a one-letter term): tier them on every core, each part into its own buckets.
    let ranges = Parallel.ranges(
      count: slots.count, parts: Parallel.parts(for: slots.count, minimumPerPart: 20_000))
    let partBuckets = Parallel.map(parts: ranges.count) { part in
      Self.bucket(slots[ranges[part]], titles: titles, needles: titleNeedles, joined: joined)
    }
    return RelevanceTier.allCases.flatMap { tier in
      inCatalogOrder(partBuckets.flatMap { $0[Int(tier.rawValue)] })
    }
  }

  /// The slots sorted into one bucket per tier, keeping their order.
  private static func bucket(
    _ slots: ArraySlice<Int32>, titles: FoldedColumn, needles: [[UInt8]], joined: [UInt8]
  ) -> [[RankedSlot]] {
    var buckets = [[RankedSlot]](repeating: [], count: RelevanceTier.allCases.count)
    // Raw pointers throughout: a slice of the column per slot would retain its buffer each time.
    titles.withUnsafeBytes { bytes, starts in
      for slot in slots {
        let title = FoldedColumn.firstValue(of: Int(slot), bytes: bytes, starts: starts)
        let tier = tier(title: title, needles: needles, joined: joined)
        buckets[Int(tier.rawValue)].append(RankedSlot(slot: slot, tier: tier.rawValue))
      }
    }
    return buckets
  }

  private func inCatalogOrder(_ ranked: [RankedSlot]) -> [RankedSlot] {
    let ordered = zip(ranked, ranked.dropFirst()).allSatisfy {
      orderKeys[Int($0.slot)] < orderKeys[Int($1.slot)]
    }
    return ordered ? ranked : ranked.sorted { orderKeys[Int($0.slot)] < orderKeys[Int($1.slot)] }
  }

  static func tier(
    title: UnsafeBufferPointer<UInt8>, needles: [[UInt8]], joined: [UInt8]
  ) -> RelevanceTier {
    if title.count == joined.count,
      title.baseAddress.map({ memcmp($0, joined, joined.count) == 0 }) ?? joined.isEmpty
    {
      return .titleEquals
    }
    var allAtWordStart = true
    for needle in needles {
      switch occurrence(of: needle, in: title) {
      case .none: return .otherFields
      case .inside: allAtWordStart = false
      case .wordStart: break
      }
    }
    return allAtWordStart ? .titleWordPrefix : .titleContains
  }

  private enum Occurrence { case none, inside, wordStart }

  /// Where `needle` occurs in `title`: at a word start if any occurrence is.
  private static func occurrence(
    of needle: [UInt8], in title: UnsafeBufferPointer<UInt8>
  ) -> Occurrence {
    guard !needle.isEmpty, needle.count <= title.count, let base = title.baseAddress else {
      return .none
    }
    var found = Occurrence.none
    var from = 0
    let lastStart = title.count - needle.count
    while from <= lastStart {
      // memchr finds each candidate start; memcmp checks it.
      guard let hit = memchr(base + from, Int32(needle[0]), lastStart - from + 1) else { break }
      let start = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
      if memcmp(base + start, needle, needle.count) == 0 {
        if start == 0 || isWordBoundary(title[start - 1]) { return .wordStart }
        found = .inside
      }
      from = start + 1
    }
    return found
  }

  /// ASCII bytes that are not letters or digits separate words (space, punctuation).
  private static func isWordBoundary(_ byte: UInt8) -> Bool {
    byte < 0x80 && !(byte >= 0x30 && byte <= 0x39) && !(byte >= 0x61 && byte <= 0x7A)
      && !(byte >= 0x41 && byte <= 0x5A)
  }
}
