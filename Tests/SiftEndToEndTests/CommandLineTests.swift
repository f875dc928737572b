import Foundation
import Testing

@Suite("sift, its help and its errors")
struct CommandLineTests {
  @Test func binaryExists() {
    #expect(
      FileManager.default.isExecutableFile(atPath: SiftProcess.binary.path),
      "\(SiftProcess.binary.path)")
  }

  @Test("with no arguments it opens the products catalog")
  func defaultCatalog() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run([])
    #expect(run.status == 0)
    #expect(run.stdout.contains("Sift — Products: 15 items"))
    #expect(run.stdout.contains("Scopes: All | Birthdays | Weddings | Funerals"))
    #expect(FileManager.default.fileExists(atPath: sift.path("data/products.sqlite")))
  }

  @Test("an unknown catalog is a usage error that names it")
  func unknownCatalog() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    for arguments in [["--catalog", "sweets"], ["search", "--catalog", "sweets", "x"]] {
      let run = try sift.run(arguments)
      #expect(run.status == 2)
      #expect(
        run.stderr
          == "sift: unknown catalog \"sweets\": use a built-in catalog (products, candies, media, meals) or the path of a .sqlite file\n"
      )
    }
    let missing = try sift.run(["search", "--catalog", "nowhere.sqlite"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("unknown catalog \"nowhere.sqlite\": no file at"))
  }

  @Test("every command's help has examples", arguments: ["search", "filter", "import"])
  func help(_ command: String) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run([command, "--help"])
    #expect(run.status == 0)
    #expect(run.stdout.contains("Examples:"))
    #expect(run.stdout.contains("sift \(command)"))
  }

  @Test func version() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run(["--version"])
    #expect(run.status == 0)
    #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
  }
}
