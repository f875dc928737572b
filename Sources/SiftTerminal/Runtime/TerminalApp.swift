import Dispatch
import Foundation
import Sift

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Where the app's changes go: the catalog file, in the `sift` executable. Edits reach it
/// through the pipeline every catalog editor shares (`SearchController.commit(_:to:)`).
public protocol AppPersistence: CatalogPersistence {
  func saveSearchState(_ snapshot: Data) throws(Failure)
}

/// The terminal app's loop: reads keys, feeds the model, performs its effects, runs searches
/// on a worker, and draws what changed. One thread owns the model; the worker and signals only
/// wake it through a pipe.
public final class TerminalApp {
  /// The app's state; after `run()` returns, as the person left it.
  public private(set) var model: AppModel
  private let persistence: any AppPersistence

  public init(model: AppModel, persistence: any AppPersistence) {
    self.model = model
    self.persistence = persistence
  }

  /// Runs until the person quits or a signal asks it to; the terminal is restored in every
  /// case. Returns a message to print after the terminal is back, if any.
  public func run() throws -> String? {
    let terminal = try Terminal()
    defer { terminal.restore() }

    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { return "cannot create a pipe" }
    let wakeRead = pipeEnds[0]
    let wakeWrite = pipeEnds[1]
    defer {
      close(wakeRead)
      close(wakeWrite)
    }
    let wake: @Sendable (UInt8) -> Void = { byte in
      var byte = byte
      _ = write(wakeWrite, &byte, 1)
    }
    let signals = DispatchQueue(label: "sift.signals")
    var sources: [any DispatchSourceSignal] = []
    for (number, byte) in [
      (SIGWINCH, UInt8(ascii: "W")), (SIGTERM, UInt8(ascii: "T")), (SIGINT, UInt8(ascii: "T")),
      (SIGHUP, UInt8(ascii: "T")),
    ] {
      installSignalHandler(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: signals)
      source.setEventHandler { wake(byte) }
      source.resume()
      sources.append(source)
    }
    defer { sources.forEach { $0.cancel() } }

    let worker = SearchWorker { wake(UInt8(ascii: "R")) }
    defer { worker.stop() }
    var submitted: (SearchCriteria, Int)?
    var writer = ScreenWriter()
    var decoder = KeyDecoder()
    var running = true
    var farewell: String?
    let size = terminal.size
    model.resize(width: size.width, height: size.height)

    func perform(_ effects: [AppModel.Effect]) {
      for effect in effects {
        switch effect {
        case .write(let edit):
          model.commit(edit, to: persistence)
        case .saveSearchState(let data):
          do {
            try persistence.saveSearchState(data)
          } catch {
            farewell = "sift: the search state was not saved: \(error)"
          }
        case .quit:
          running = false
        }
      }
    }

    while running {
      if let pending = model.pendingSearch,
        submitted.map({ $0 != pending.criteria || $1 != model.controller.collection.revision })
          ?? true
      {
        worker.submit(pending)
        submitted = (pending.criteria, model.controller.collection.revision)
      }
      terminal.write(writer.frame(model.render(), cursor: model.cursorPosition))

      var fds = [
        pollfd(fd: terminal.input, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      let timeout: Int32 = decoder.hasPendingEscape ? 30 : -1
      let ready = poll(&fds, 2, timeout)
      if ready < 0 {
        if errno == EINTR { continue }
        break
      }
      if ready == 0 {
        for key in decoder.flushEscape() { perform(model.handle(key)) }
        continue
      }
      if fds[1].revents & Int16(POLLIN) != 0 {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(wakeRead, &bytes, bytes.count)
        for byte in bytes.prefix(max(0, count)) {
          switch byte {
          case UInt8(ascii: "R"):
            if let result = worker.take() { model.deliver(result) }
          case UInt8(ascii: "W"):
            let size = terminal.size
            model.resize(width: size.width, height: size.height)
            writer.invalidate()
          default:
            // A request to end (SIGTERM, SIGINT, SIGHUP): save the search like Ctrl-Q does.
            perform(model.handle(.control("q")))
          }
        }
      }
      if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = read(terminal.input, &bytes, bytes.count)
        if count <= 0 {
          if count < 0 && errno == EINTR { continue }
          perform(model.handle(.control("q")))  // the terminal went away
          continue
        }
        for key in decoder.decode(bytes.prefix(count)) where running {
          perform(model.handle(key))
        }
      }
    }
    return farewell
  }
}
