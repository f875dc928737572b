import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// A collection over an `ElementSource` keeps the index alone and reads what it shows.
@Suite("Elements read when shown", .tags(.unit))
struct ElementSourceTests {
  /// The app's candies in a "database" that counts its reads and can lose elements.
  final class CandyTable: ElementSource, @unchecked Sendable {
    private let lock = NSLock()
    private var candies: [Candy.ID: Candy]
    private(set) var reads: [[Candy.ID]] = []

    init(_ candies: [Candy]) {
      self.candies = Dictionary(uniqueKeysWithValues: candies.map { ($0.id, $0) })
    }

    func elements(withIDs ids: [Candy.ID]) -> [Candy] {
      lock.withLock {
        reads.append(ids)
        // Any order: a database returns rows as its index finds them.
        return ids.compactMap { candies[$0] }.reversed()
      }
    }

    func put(_ candy: Candy) { lock.withLock { candies[candy.id] = candy } }
    func forget(_ id: Candy.ID) { _ = lock.withLock { candies.removeValue(forKey: id) } }
  }

  @Test("rows read in one go, in row order; edits written to the source first show alike")
  func readsWhatIsShown() throws {
    let schema = try Candy.schema.get()
    let held = try SearchCollection(Candy.all, schema: schema)
    let table = CandyTable(Candy.all)
    var shown = SearchCollection(index: held.index, schema: schema, source: table)
    #expect(shown.readsElementsWhenShown && !held.readsElementsWhenShown)
    #expect(table.reads.isEmpty, "opening reads nothing")
    shown.filter(by: SearchCriteria(text: "cho"))
    #expect(table.reads.isEmpty, "searching reads nothing")
    let page = shown.elements(atRows: 1..<4)
    #expect(table.reads.count == 1 && table.reads[0].count == 3)
    var expected = held
    expected.filter(by: SearchCriteria(text: "cho"))
    #expect(page.map { $0?.name } == expected.elements(atRows: 1..<4).map { $0?.name })
    #expect(!page.contains { $0 == nil })
    #expect(shown.results.map(\.name) == expected.results.map(\.name))

    var bar = try #require(shown.element(atRow: 0))
    bar.name = "Chocolate Bar Deluxe"
    table.put(bar)
    let changes = try shown.update(bar)
    #expect(changes == (try expected.update(bar)))
    #expect(shown.element(atRow: 0)?.name == expected.element(atRow: 0)?.name)
  }

  @Test("an element the source lost is left out, never a crash")
  func lostElements() throws {
    let schema = try Candy.schema.get()
    let table = CandyTable(Candy.all)
    var shown = SearchCollection(
      index: try SearchCollection(Candy.all, schema: schema).index, schema: schema, source: table)
    shown.filter(by: SearchCriteria(text: "cho"))
    let first = try #require(shown.rows.first)
    table.forget(first)
    #expect(shown.rows.count == 5)
    #expect(shown.element(atRow: 0) == nil)
    let page = shown.elements(atRows: 0..<5)
    #expect(page.count == 5 && page[0] == nil && page.compactMap { $0 }.count == 4)
    #expect(shown.results.count == 4 && !shown.results.contains { $0.id == first })
  }
}
