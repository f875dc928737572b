import Dispatch
import Foundation

/// Work split into parts that run on every core at once.
package enum Parallel {
  /// How many parts `count` units of work are worth: one per core, each at least
  /// `minimumPerPart` units; 1 for small work.
  package static func parts(for count: Int, minimumPerPart: Int) -> Int {
    max(1, min(processors, count / minimumPerPart))
  }

  /// Read once: asking costs a system call, and a keystroke asks several times.
  package static let processors = ProcessInfo.processInfo.activeProcessorCount

  /// `0..<count` cut into `parts` ranges of nearly equal size, in order.
  package static func ranges(count: Int, parts: Int) -> [Range<Int>] {
    let size = (count + parts - 1) / max(1, parts)
    return (0..<parts).map { min(count, $0 * size)..<min(count, ($0 + 1) * size) }
  }

  /// The parts' results one after the other, each part copied in one go (`Array(parts.joined())`
  /// goes through the flattened sequence one element at a time).
  static func concatenated<Element>(_ parts: [[Element]]) -> [Element] {
    if parts.count == 1 { return parts[0] }
    var all: [Element] = []
    all.reserveCapacity(parts.reduce(0) { $0 + $1.count })
    for part in parts { all.append(contentsOf: part) }
    return all
  }

  /// `body(part)` for every part in `0..<parts`, run concurrently; the results in part order.
  package static func map<Result>(parts: Int, _ body: @Sendable (Int) -> Result) -> [Result] {
    guard parts > 1 else { return parts == 1 ? [body(0)] : [] }
    let results = PartResults<Result>(count: parts)
    DispatchQueue.concurrentPerform(iterations: parts) { results.slots[$0] = body($0) }
    return results.values
  }
}

/// Work running on another thread while the caller does something else (an import parses the
/// next batch of a file while it writes this one); `take()` waits for its result.
package final class Background<Value: Sendable>: @unchecked Sendable {
  // `@unchecked`: `result` is written once, by the work, before `done` is signalled, and read
  // only after waiting for it.
  private let done = DispatchSemaphore(value: 0)
  private var result: Value?

  package init(_ work: @escaping @Sendable () -> Value) {
    DispatchQueue.global().async {
      self.result = work()
      self.done.signal()
    }
  }

  /// The work's result, once it is done; moved out, so that the caller holds the only copy
  /// (a buffer it then changes is not copied). Called once.
  package func take() -> Value {
    done.wait()
    let value = result!
    result = nil
    return value
  }
}

/// One result per part of a parallel map, in raw memory: parts write to their own slot through
/// a pointer, so no two of them ever access one Swift array at once.
private final class PartResults<Value>: @unchecked Sendable {
  // `@unchecked`: part *i* writes only `slots[i]`, and every write happens before
  // `concurrentPerform` returns and `values` is read.
  let slots: UnsafeMutableBufferPointer<Value?>

  init(count: Int) {
    slots = .allocate(capacity: count)
    slots.initialize(repeating: nil)
  }

  var values: [Value] { slots.map { $0! } }

  deinit {
    slots.deinitialize()
    slots.deallocate()
  }
}

/// Memory that parts of a parallel job only read.
package struct SharedReadBuffer<Element>: @unchecked Sendable {
  // `@unchecked`: the buffer outlives the job and nobody writes to it while parts run.
  package let buffer: UnsafeBufferPointer<Element>

  package init(buffer: UnsafeBufferPointer<Element>) { self.buffer = buffer }
}

/// Memory that parts of a parallel job write to, each only its own elements.
struct SharedWriteBuffer<Element>: @unchecked Sendable {
  // `@unchecked`: the elements parts write are disjoint, and nobody reads them until the job
  // ends.
  let buffer: UnsafeMutableBufferPointer<Element>
}

typealias SharedBytes = SharedReadBuffer<UInt8>
typealias SharedOutput = SharedWriteBuffer<UInt8>
