import Observation
import SiftTestSupport
import Testing

@testable import Sift

/// Which of the model's observable properties a change touches, read with
/// `withObservationTracking` as SwiftUI does.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
private func changedProperties<Element>(
  of model: SearchModel<Element>, _ change: () -> Void
) -> Set<String> {
  let properties: [(String, (SearchModel<Element>) -> Any)] = [
    ("text", { $0.text }), ("tokens", { $0.tokens }), ("suggestedTokens", { $0.suggestedTokens }),
    ("scope", { $0.scope }), ("isPresented", { $0.isPresented }), ("results", { $0.results }),
    ("indicator", { $0.indicator }), ("scopeCounts", { $0.scopeCounts }),
    ("isSearching", { $0.isSearching }),
  ]
  let changed = ChangeLog()
  for (name, read) in properties {
    withObservationTracking {
      _ = read(model)
    } onChange: {
      changed.insert(name)
    }
  }
  change()
  return changed.names
}

private final class ChangeLog: @unchecked Sendable {
  private(set) var names: Set<String> = []
  func insert(_ name: String) { names.insert(name) }
}

@Suite("SearchModel", .tags(.unit))
@MainActor
struct SearchModelTests {
  @Test("typing, scopes and tokens change exactly the properties a view reads")
  func observation() throws {
    // SearchModel is macOS 14 / iOS 17 API; the package builds for macOS 13 / iOS 16.
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = try SearchModel(Candy.all, schema: Candy.schema.get())
    #expect(model.results.count == 15)
    #expect(model.indicator.text == "15 items")
    #expect(model.scopeCounts == [15, 5, 4, 6])

    // Presenting with an empty field filters nothing: only isPresented changes.
    #expect(changedProperties(of: model) { model.isPresented = true } == ["isPresented"])
    let typed = changedProperties(of: model) { model.text = "cho" }
    #expect(typed == ["text", "suggestedTokens", "results", "indicator", "scopeCounts"])
    #expect(model.results.map(\.name).first == "Chocolate Bar")
    #expect(model.indicator.text == "Items found: 5")
    #expect(model.scopeCounts == [5, 5, 0, 0])
    #expect(model.suggestedTokens == [.category("Chocolate", icon: "🍫")])
    // The same text again changes nothing.
    #expect(changedProperties(of: model) { model.text = "cho" }.isEmpty)

    // Taking the suggested token removes the word typed for it.
    let took = changedProperties(of: model) { model.tokens.append(model.suggestedTokens[0]) }
    #expect(took.isSuperset(of: ["tokens", "text", "suggestedTokens"]))
    #expect(model.text == "")
    #expect(model.results.count == 5)
    #expect(model.count(of: .category("Chocolate")) == 5)

    model.tokens = []
    model.text = "a"
    model.scope = 2
    #expect(Set(model.results.map(\.name)) == ["Candy Cane", "Jaw Breaker", "Toffee Apple"])
    #expect(model.highlights(\.name, of: model.results[0]).isEmpty == false)
    model.isPresented = false
    #expect(model.results.count == 15)
    #expect(model.indicator.text == "15 items")
  }

  @Test("range tokens by key path, and a token the schema cannot read is reported")
  func tokens() throws {
    // SearchModel is macOS 14 / iOS 17 API; the package builds for macOS 13 / iOS 16.
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = try SearchModel(Product.all, schema: Product.schema.get())
    model.isPresented = true
    model.tokens = [.range(\.year, 2010...)]
    #expect(
      model.results.map(\.title) == ["Poinsettia Red", "Poinsettia Pink", "Red Rose", "White Rose"])
    model.tokens.append(.range(\Product.id, 1...))
    #expect(
      model.diagnostics == ["the token key path \\Product.id is not one of the schema's fields"])
  }

  @Test("a search superseded by later typing never lands; results only answer the current text")
  func staleResultsNeverShown() async throws {
    // SearchModel is macOS 14 / iOS 17 API; the package builds for macOS 13 / iOS 16.
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = try SearchModel(Product.all, schema: Product.schema.get(), backgroundThreshold: 0)
    let gate = Gate()
    model.beforeDelivery = { criteria in
      if criteria.text == "r" { await gate.wait() }  // the first search is held back
    }
    let shown = ResultLog(model)
    model.isPresented = true
    model.text = "r"
    #expect(model.isSearching)
    #expect(model.results.count == 15)  // not answered yet: nothing changes
    model.text = "rose"
    await model.waitForSearchOf(text: "rose")
    #expect(model.results.map(\.title) == ["Red Rose", "White Rose"])
    await gate.open()
    await model.waitForSearch()
    try await Task.sleep(for: .milliseconds(50))
    #expect(model.results.map(\.title) == ["Red Rose", "White Rose"])
    #expect(model.isSearching == false)
    #expect(shown.entries.allSatisfy { $0 == "rose:Red Rose,White Rose" }, "\(shown.entries)")
  }

  @Test("an edit during a background search drops the search and runs it again with the edit")
  func editDuringSearch() async throws {
    // SearchModel is macOS 14 / iOS 17 API; the package builds for macOS 13 / iOS 16.
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = try SearchModel(Candy.all, schema: Candy.schema.get(), backgroundThreshold: 0)
    let gate = Gate()
    model.beforeDelivery = { _ in await gate.wait() }
    model.isPresented = true
    model.text = "cand"
    try model.add(Candy(id: 99, name: "Candy Corn", category: .other))
    model.beforeDelivery = nil
    await gate.open()
    await model.waitForSearch()
    #expect(Set(model.results.map(\.name)) == ["Candy Cane", "Candy Floss", "Candy Corn"])
    #expect(model.indicator.text == "Items found: 3")
  }
}

/// Holds searches back until opened.
private actor Gate {
  private var isOpen = false
  private var waiting: [CheckedContinuation<Void, Never>] = []
  func wait() async {
    if isOpen { return }
    await withCheckedContinuation { waiting.append($0) }
  }
  func open() {
    isOpen = true
    for continuation in waiting { continuation.resume() }
    waiting = []
  }
}

/// Every value `results` takes, with the text in force when it took it.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
private final class ResultLog {
  private(set) var entries: [String] = []
  private let model: SearchModel<Product>

  init(_ model: SearchModel<Product>) {
    self.model = model
    track()
  }

  private func track() {
    withObservationTracking {
      _ = model.results
    } onChange: {
      Task { @MainActor in self.record() }
    }
  }

  private func record() {
    entries.append(model.text + ":" + model.results.map(\.title).joined(separator: ","))
    track()
  }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension SearchModel {
  /// Waits until a search for `text` has landed (the model's own wait would also wait for a
  /// search held back at the gate).
  fileprivate func waitForSearchOf(text: String) async {
    while collection.criteria.text != text {
      try? await Task.sleep(for: .milliseconds(5))
    }
  }
}
