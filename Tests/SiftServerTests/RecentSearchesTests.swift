#if Server
import Foundation
import Hummingbird
import HummingbirdTesting
import Sift
import SiftServer
import SiftStore
import SiftTestSupport
import Testing

/// A served catalog keeps its last searches to refine the next keystroke from and to answer a
/// repeated one: whatever order searches come in, each answer equals a fresh search.
@Suite("sift serve: refining from recent searches", .tags(.unit))
struct RecentSearchesTests {
  /// What a page shows: ids, indicator, counts, suggestions, did-you-mean.
  static func answer(_ json: [String: Any]) -> String {
    let ids = (json["results"] as? [[String: Any]] ?? []).compactMap { idText($0["id"]) }
    let suggestions = (json["suggestions"] as? [[String: Any]] ?? []).compactMap {
      $0["identifier"] as? String
    }
    let facets = (json["facets"]).flatMap {
      try? JSONSerialization.data(withJSONObject: $0, options: .sortedKeys)
    }
    return "\(ids) \(json["indicator"] ?? "") \(json["matched"] ?? "") \(suggestions) "
      + "\(json["didYouMean"] ?? "-") \(facets.map { String(decoding: $0, as: UTF8.self) } ?? "")"
  }

  @Test(
    "keystrokes in order, repeated and shuffled, with edits between: as a fresh search",
    arguments: [1, 2, 3] as [UInt64])
  func refiningEqualsFresh(seed: UInt64) async throws {
    var random = SplitMix64(seed: seed)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-recent-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Two copies of the catalog, edited alike: one served remembering, one not.
    func served(_ file: String, remembering: Int) throws -> SiftServer {
      let store = try CatalogStore.create(
        at: folder.appendingPathComponent(file), document: BuiltInCatalog.media.load())
      return SiftServer(
        catalogs: [try StoredCatalog(name: "media", store: store, recentSearches: remembering)],
        writeToken: "t")
    }
    let remembering = try served("a.sqlite", remembering: 8)
    let fresh = try served("b.sqlite", remembering: 0)

    // Every prefix of these, as typed, with scopes and tokens around them.
    let typed = [
      "the dark knight", "stra wars", "-the", "\"the s", "year:>2000 th", "#mov", "zzz",
      "the #bo", "dakr", "2010 in",
    ]
    var searches: [String] = []
    for text in typed {
      let prefixes = (1...text.count).map { String(text.prefix($0)) }
      let scope = ["", "&scope=Movies", "&scope=Music"].randomElement(using: &random)!
      let token = ["", "&token=year:%3E%3D2010"].randomElement(using: &random)!
      for prefix in prefixes {
        let q = prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        searches.append("q=\(q)\(scope)\(token)&facets=1&limit=50")
      }
    }
    // Typed in order, then again shuffled (a prefix after a longer text, repeats).
    let order = searches + searches.shuffled(using: &random)
    let app = Application(router: remembering.router())
    let freshApp = Application(router: fresh.router())
    try await app.test(.router) { client in
      try await freshApp.test(.router) { freshClient in
        for (number, query) in order.enumerated() {
          if number % 97 == 96 {
            // An edit now and then: what was remembered must not answer for the new catalog.
            let body =
              #"{"id": "e\#(number)", "title": "The Dark Knight Returns \#(number)", "kind": "Movies", "year": 1986}"#
            for edited in [client, freshClient] {
              try await edited.execute(
                uri: "/catalogs/media/items", method: .post,
                headers: [.authorization: "Bearer t", .contentType: "application/json"],
                body: ByteBuffer(string: body)
              ) { #expect($0.status == .created) }
            }
          }
          let uri = "/catalogs/media/search?\(query)"
          let got = try await client.execute(uri: uri, method: .get) { response in
            try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
              as? [String: Any] ?? [:]
          }
          // The server that remembers nothing.
          let expected = try await freshClient.execute(uri: uri, method: .get) { response in
            try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
              as? [String: Any] ?? [:]
          }
          #expect(Self.answer(got) == Self.answer(expected), "search \(number): \(query)")
        }
      }
    }
  }
}
#endif
