import Foundation
import SiftTestSupport
import Testing

/// `sift import` and `sift search` on `postgresql://` catalogs, against the tests' own cluster.
@Suite("sift on PostgreSQL", .serialized)
struct PostgresCommandTests {
  static let cityArguments = ImportCommandTests.cityArguments + ["--rank-by", "population"]

  @Test("the cities imported into both give the README's searches line for line")
  func citiesAgree() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    let address = cluster.address(catalog: "e2e_cities")
    let imported = try sift.run(["import", sample, "--catalog", address] + Self.cityArguments)
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(
      imported.stderr.contains("Imported 2,955 items")
        || imported.stderr.contains("Imported 2955 items"), "\(imported.stderr)")
    try sift.run(["import", sample, "--catalog", "cities.sqlite"] + Self.cityArguments)
    let queries: [[String]] = [
      ["da", "nang"], ["서울"], ["ㅅㅇ"], ["new", "york"], ["amsterdma"], ["san", "fe"],
      ["population:>1000000"], ["-a", "b"], ["\"los a\""], ["münchen"], ["toky"], ["s"],
    ]
    for query in queries {
      for extra in [[], ["--limit", "3"], ["--typos", "off"], ["--token", "country:BR"]] {
        let sqlite = try sift.run(
          ["search", "--catalog", "cities.sqlite", "--json"] + extra + ["--"] + query)
        let postgres = try sift.run(
          ["search", "--catalog", address, "--json"] + extra + ["--"] + query)
        #expect(postgres.status == 0, "\(query): \(postgres.stderr)")
        #expect(postgres.stdout == sqlite.stdout, "\(query) \(extra)")
        #expect(postgres.stderr == sqlite.stderr, "\(query) \(extra)")
      }
    }
  }

  @Test("a bad line fails the import with FILE:LINE and leaves the catalog as it was")
  func badImportKeepsCatalog() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = cluster.address(catalog: "e2e_keep")
    let good = try sift.write(
      "good.jsonl", "{\"id\":\"1\",\"name\":\"Lisbon\"}\n{\"id\":\"2\",\"name\":\"Porto\"}\n")
    #expect(
      try sift.run(["import", good, "--catalog", address, "--title", "name", "--id", "id"]).status
        == 0)
    let bad = try sift.write(
      "bad.jsonl", "{\"id\":\"3\",\"name\":\"Braga\"}\n{\"id\":\"4\",\"name\":7}\n")
    let failed = try sift.run([
      "import", bad, "--catalog", address, "--title", "name", "--id", "id",
    ])
    #expect(failed.status == 1)
    #expect(failed.stderr.contains("bad.jsonl:2:"), "\(failed.stderr)")
    let after = try sift.run(["search", "--catalog", address, "--json"])
    #expect(after.titles == ["Lisbon", "Porto"], "\(after.stdout)")
    // A second good import updates by id and adds.
    let more = try sift.write(
      "more.jsonl", "{\"id\":\"2\",\"name\":\"Oporto\"}\n{\"id\":\"5\",\"name\":\"Faro\"}\n")
    #expect(
      try sift.run(["import", more, "--catalog", address, "--title", "name", "--id", "id"]).status
        == 0)
    let updated = try sift.run(["search", "--catalog", address, "--json"])
    #expect(updated.titles == ["Lisbon", "Oporto", "Faro"])
  }

  @Test("a catalog of a newer format, a missing catalog and a bad address are refused by name")
  func refusals() throws {
    let cluster = try PostgresCluster.shared()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let address = cluster.address(catalog: "e2e_newer")
    let file = try sift.write("one.jsonl", "{\"id\":\"1\",\"name\":\"Lisbon\"}\n")
    #expect(try sift.run(["import", file, "--catalog", address, "--title", "name"]).status == 0)
    try cluster.psql("UPDATE sift_e2e_newer.catalog SET format = 99")
    let newer = try sift.run(["search", "--catalog", address, "lis"])
    #expect(newer.status == 2)
    #expect(newer.stderr.contains("has format 99, written by a newer Sift"), "\(newer.stderr)")
    let again = try sift.run(["import", file, "--catalog", address, "--title", "name"])
    #expect(again.status != 0 && again.stderr.contains("format 99"), "\(again.stderr)")

    let missing = try sift.run([
      "search", "--catalog", cluster.address(catalog: "nothing_here"), "x",
    ])
    #expect(missing.status == 2 && missing.stderr.contains("no catalog at"), "\(missing.stderr)")
    let noName = try sift.run([
      "search", "--catalog", "postgresql://127.0.0.1:\(cluster.port)/postgres", "x",
    ])
    #expect(noName.status == 2 && noName.stderr.contains("?catalog=NAME"), "\(noName.stderr)")
    let down = try sift.run([
      "search", "--catalog", "postgresql://postgres@127.0.0.1:1/postgres?catalog=x", "x",
    ])
    #expect(down.status == 1 && down.stderr.contains("cannot reach PostgreSQL"), "\(down.stderr)")
  }
}
