#if Server
import Foundation
import SiftTestSupport
import Testing

/// Real answers of the built `sift serve` fit the OpenAPI document it serves: every operation
/// asked as a client would, each answer's status listed for it and its body valid against its
/// schema (`Scripts/check-openapi.py`, with PyPI's openapi-spec-validator and jsonschema in the
/// environment `Scripts/setup-tests` makes). `Scripts/test` adds schemathesis's generated requests.
@Suite("sift serve: answers fit the API document", .tags(.endToEnd, .network))
struct APIDocumentCommandTests {
  static var root: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }

  /// The Python with the checker's packages: Scripts/setup-tests's environment, else the
  /// system's.
  static var python: String {
    let made = FileManager.default.temporaryDirectory
      .appendingPathComponent("sift-python/bin/python").path
    return FileManager.default.isExecutableFile(atPath: made) ? made : "python3"
  }

  static var hasPackages: Bool {
    Host.shell("'\(python)' -c 'import openapi_spec_validator, jsonschema'").status == 0
  }

  @Test(
    "every operation answered by a running server fits the document's schemas",
    .enabled(
      if: TestMachine.isCI || TestMachine.hasAptGet || hasPackages,
      "openapi-spec-validator and jsonschema not installed (Scripts/setup-tests installs them)"))
  func answersFit() throws {
    #expect(
      Self.hasPackages,
      "\(Self.python) lacks openapi-spec-validator or jsonschema: Scripts/setup-tests installs them"
    )
    guard Self.hasPackages else { return }
    let script = Self.root.appendingPathComponent("Scripts/check-openapi.py").path
    let run = Host.shell("'\(Self.python)' '\(script)' --sift '\(SiftProcess.binary.path)'")
    #expect(run.status == 0, "\(run.output)")
    #expect(run.output.contains("docs/openapi.json is valid OpenAPI 3.1"), "\(run.output)")
    #expect(run.output.contains("operations answered"), "\(run.output)")
  }
}
#endif
