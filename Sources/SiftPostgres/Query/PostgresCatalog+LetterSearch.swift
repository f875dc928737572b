#if Server
import Foundation
import Sift

/// One-letter searches read the letters tables (`LetterSummary`): the counts of one row per
/// category, and a page of the items a value of which starts with the letter, in the index's
/// order — which is the ranked order, since those items rank before every other match. A search
/// of "a" no longer ranks the half of the catalog that holds an "a".
extension PostgresCatalog {
  /// The letter (0 for `a`) when `request` is one unnegated term of one letter `a`…`z` searched
  /// in every field, and the one category it is kept to (by scope or tokens), if any; nil for
  /// anything else.
  static func soleLetter(_ request: MatchRequest) -> (letter: Int, category: String?)? {
    // The tables rank a letter being typed; "a " is finished, and ranked by the statement.
    // A radius keeps rows the tables know nothing of.
    guard request.searchedFields == nil, request.isTyping, request.near?.withinMeters == nil
    else { return nil }
    var letter: Int?
    var categories = Set(request.requiredCategory.map { [$0] } ?? [])
    for term in request.terms {
      guard !term.isNegated else { return nil }
      switch term.condition {
      case .category(_, let value): categories.insert(value)
      case .text(let text):
        guard letter == nil, text.field == nil, text.number == nil, !text.matchesInitials,
          text.needle.utf8.count == 1, let found = LetterSummary.letter(text.needle.utf8.first!)
        else { return nil }
        letter = found
      case .number, .either: return nil
      }
    }
    guard let letter, categories.count <= 1 else { return nil }
    return (letter, categories.first)
  }

  /// A page of a one-letter search and its counts from the letters tables; nil when the page
  /// reaches past the items with a value starting with the letter (only they are kept in
  /// ranked order there), or all are asked for.
  func letterPage(
    _ letter: Int, category: String?, limit: Int?, offset: Int
  ) async throws(PostgresError) -> Page? {
    guard let limit else { return nil }
    let s = "\"\(address.schemaName)\""
    var binds: [SQLValue] = [.integer(letter), .integer(limit), .integer(offset)]
    var scoped = ""
    if let category {
      binds.append(.text(category))
      scoped = " AND category = $4"
    }
    let order = layout.popularity.order
    let rows = try await link.rows(
      """
      WITH counts AS (
        SELECT coalesce(sum(matches), 0)::bigint AS matches,
          coalesce(sum(counted), 0)::bigint AS counted, coalesce(sum(starting), 0)::bigint AS starting
        FROM \(s).letter_counts WHERE letter = $1\(scoped))
      SELECT shown.id, shown.rank, shown.ord, matches, counted, starting
      FROM counts LEFT JOIN (
        SELECT items.id, first.rank::integer AS rank, first.ord, first.pop
        FROM (SELECT rank, pop, ord FROM \(s).letters WHERE letter = $1\(scoped)
          ORDER BY rank, pop \(order), ord LIMIT $2 OFFSET $3) AS first
        JOIN \(s).items ON items.ord = first.ord
      ) AS shown ON $2 > 0
      ORDER BY shown.rank, shown.pop \(order), shown.ord
      """, binds, as: (String?, Int?, Int?, Int, Int, Int).self)
    var page = Page()
    var startingCount = 0
    for (id, rank, order, matches, counted, starting) in rows {
      (page.matches, page.counted, page.exact, startingCount) = (
        matches, counted, matches, starting
      )
      guard let id, let rank, let order else { continue }
      page.ids.append(ItemID(id))
      page.ranks.append(MatchRank(packed: UInt16(clamping: rank)))
      page.orders.append(Int64(order))
    }
    guard limit == 0 || offset + limit <= startingCount || startingCount == page.matches else {
      return nil
    }
    letterSearches.add()
    return page
  }

  /// Per category, how many items a one-letter search finds (`categoryTally`'s exact counts:
  /// a letter has no near spellings).
  func letterTally(
    _ letter: Int, category: String?
  ) async throws(PostgresError) -> (total: Int, byCategory: [String: Int]) {
    let rows = try await link.rows(
      """
      SELECT category, matches FROM "\(address.schemaName)".letter_counts
      WHERE letter = $1 AND matches > 0\(category == nil ? "" : " AND category = $2")
      """, [.integer(letter)] + (category.map { [.text($0)] } ?? []), as: (String?, Int).self)
    var byCategory: [String: Int] = [:]
    var total = 0
    for (category, matches) in rows {
      total += matches
      if let category { byCategory[category] = matches }
    }
    letterSearches.add()
    return (total, byCategory)
  }
}

/// How many searches the letters tables answered: tests read it to know that the path they
/// compare was taken.
package final class SearchCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  func add() { lock.withLock { count += 1 } }

  package var value: Int { lock.withLock { count } }
}
#endif
