import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Just enough of the W3C WebDriver protocol to drive headless Chromium through chromedriver:
/// open a page, find elements, type (with WebDriver's key codes), click, run a script, resize
/// the window, take a screenshot. Chromium and chromedriver are Debian packages, installed
/// when missing. Requests go through curl: chromedriver writes headers without a space after
/// the colon, which Foundation's URLSession on Linux refuses ("Failed writing header").
final class WebDriver {
  /// WebDriver's codes for keys that are not characters.
  enum Key {
    static let backspace = "\u{E003}"
    static let enter = "\u{E007}"
    static let escape = "\u{E00C}"
    static let arrowLeft = "\u{E012}"
    static let arrowUp = "\u{E013}"
    static let arrowRight = "\u{E014}"
    static let arrowDown = "\u{E015}"
  }

  /// A page element, by WebDriver's reference.
  struct Element {
    let reference: String
  }

  private let driver = Process()
  private let base: URL
  private var session = ""

  init(width: Int = 1200, height: Int = 900) throws {
    try Host.require(package: "chromium", check: "command -v chromium")
    try Host.require(package: "chromium-driver", check: "command -v chromedriver")
    try Host.require(package: "curl", check: "command -v curl")
    let port = try Host.freePort()
    base = URL(string: "http://127.0.0.1:\(port)")!
    driver.executableURL = URL(
      fileURLWithPath: Host.shell("command -v chromedriver").output
        .trimmingCharacters(in: .whitespacesAndNewlines))
    driver.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
    driver.standardOutput = FileHandle.nullDevice
    driver.standardError = FileHandle.nullDevice
    try driver.run()
    // chromedriver answers /status once it listens.
    var ready = false
    for _ in 0..<100 where !ready {
      ready = (try? Self.curl("GET", base.appendingPathComponent("status")).status) == 200
      if !ready { Thread.sleep(forTimeInterval: 0.1) }
    }
    guard ready else {
      throw Host.Failure(message: "chromedriver did not start on port \(port)")
    }
    let chromium = Host.shell("command -v chromium").output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let answer = try command(
      "POST", "session",
      [
        "capabilities": [
          "alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": [
              "binary": chromium,
              "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=\(width),\(height)", "--lang=en-US",
              ],
            ],
          ] as [String: Any]
        ]
      ])
    guard let id = (answer as? [String: Any])?["sessionId"] as? String else {
      throw Host.Failure(message: "chromedriver started no browser: \(answer ?? "nothing")")
    }
    session = id
  }

  deinit {
    if !session.isEmpty { _ = try? command("DELETE", "session/\(session)") }
    guard driver.isRunning else { return }
    driver.terminate()
    for _ in 0..<50 where driver.isRunning { Thread.sleep(forTimeInterval: 0.1) }
    if driver.isRunning { kill(driver.processIdentifier, SIGKILL) }
    driver.waitUntilExit()
  }

  /// One request through curl: the status and the body.
  static func curl(_ method: String, _ url: URL, body: Data? = nil) throws -> (
    status: Int, body: Data
  ) {
    let folder = FileManager.default.temporaryDirectory
    let bodyFile = folder.appendingPathComponent("sift-webdriver-\(UUID().uuidString)")
    let replyFile = folder.appendingPathComponent("sift-webdriver-\(UUID().uuidString)")
    defer {
      try? FileManager.default.removeItem(at: bodyFile)
      try? FileManager.default.removeItem(at: replyFile)
    }
    try (body ?? Data()).write(to: bodyFile)
    let data =
      body == nil ? "" : "-H 'Content-Type: application/json' --data-binary @'\(bodyFile.path)'"
    let run = Host.shell(
      "curl -sS -m 120 -X \(method) \(data) -o '\(replyFile.path)' -w '%{http_code}' '\(url.absoluteString)'"
    )
    guard run.status == 0, let status = Int(run.output.suffix(3)) else {
      throw Host.Failure(message: "curl \(method) \(url.path): \(run.output.prefix(300))")
    }
    return (status, (try? Data(contentsOf: replyFile)) ?? Data())
  }

  /// One WebDriver command; its `value`, or an error with WebDriver's message.
  @discardableResult
  func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
    let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
    let (status, reply) = try Self.curl(
      method, base.appendingPathComponent(path),
      body: data ?? (method == "POST" ? Data("{}".utf8) : nil))
    let value = (try? JSONSerialization.jsonObject(with: reply) as? [String: Any])?["value"]
    guard status == 200 else {
      let message = (value as? [String: Any])?["message"] as? String ?? "status \(status)"
      throw Host.Failure(message: "WebDriver \(method) \(path): \(message.prefix(500))")
    }
    return value
  }

  @discardableResult
  private func sessionCommand(_ method: String, _ path: String, _ body: [String: Any]? = nil)
    throws -> Any?
  {
    try command(method, "session/\(session)/\(path)", body)
  }

  func open(_ url: String) throws {
    try sessionCommand("POST", "url", ["url": url])
  }

  func find(_ selector: String) throws -> Element {
    let value = try sessionCommand(
      "POST", "element", ["using": "css selector", "value": selector])
    guard let reference = (value as? [String: Any])?.values.first as? String else {
      throw Host.Failure(message: "no element \(selector)")
    }
    return Element(reference: reference)
  }

  /// Types `text` into the element, as keystrokes (WebDriver's key codes included).
  func type(_ text: String, into element: Element) throws {
    try sessionCommand("POST", "element/\(element.reference)/value", ["text": text])
  }

  func click(_ element: Element) throws {
    try sessionCommand("POST", "element/\(element.reference)/click")
  }

  /// Runs `script` (a function body) in the page and returns what it returns.
  @discardableResult
  func run(_ script: String, _ arguments: [Any] = []) throws -> Any? {
    try sessionCommand("POST", "execute/sync", ["script": script, "args": arguments])
  }

  /// Polls `script` until it returns true; throws with `what` after `timeout` seconds.
  func wait(_ what: String, timeout: TimeInterval = 10, until script: String) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if try run(script) as? Bool == true { return }
      Thread.sleep(forTimeInterval: 0.05)
    }
    throw Host.Failure(message: "waited \(Int(timeout)) s for \(what)")
  }

  func resize(width: Int, height: Int) throws {
    try sessionCommand("POST", "window/rect", ["width": width, "height": height])
  }

  /// The window as PNG, written to `file`.
  func screenshot(to file: URL) throws {
    guard let base64 = try sessionCommand("GET", "screenshot") as? String,
      let png = Data(base64Encoded: base64)
    else { throw Host.Failure(message: "no screenshot") }
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try png.write(to: file)
  }
}
