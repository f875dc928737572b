/// The smallest keys seen, at most `capacity` of them: a max-heap whose top is the key a new
/// one must beat.
struct KeyHeap {
  private var keys: [UInt64] = []
  let capacity: Int

  init(capacity: Int) {
    self.capacity = capacity
    keys.reserveCapacity(capacity)
  }

  var isFull: Bool { keys.count >= capacity }
  /// The largest key kept (only meaningful once something is kept).
  var largest: UInt64 { keys.first ?? .max }

  /// Keeps `key` if there is room or it is smaller than the largest kept, which then goes.
  mutating func insert(_ key: UInt64) {
    if keys.count < capacity {
      keys.append(key)
      var child = keys.count - 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard keys[parent] < keys[child] else { break }
        keys.swapAt(parent, child)
        child = parent
      }
      return
    }
    guard capacity > 0, key < keys[0] else { return }
    keys[0] = key
    var parent = 0
    while true {
      let left = 2 * parent + 1
      guard left < keys.count else { break }
      let right = left + 1
      let larger = right < keys.count && keys[right] > keys[left] ? right : left
      guard keys[larger] > keys[parent] else { break }
      keys.swapAt(parent, larger)
      parent = larger
    }
  }

  /// The keys kept, smallest first.
  var sorted: [UInt64] { keys.sorted() }
}

/// Keys taken smallest first: a binary min-heap made in one pass (`heapify`), so that taking
/// the first few of many costs O(*n*) + O(*k* log *n*), not a sort.
struct MinKeyQueue {
  private var keys: [UInt64] = []

  mutating func append(_ key: UInt64) { keys.append(key) }

  /// Orders the keys appended so far into a heap; call once, before `popMin`.
  mutating func heapify() {
    var parent = keys.count / 2 - 1
    while parent >= 0 {
      siftDown(parent)
      parent -= 1
    }
  }

  mutating func popMin() -> UInt64? {
    guard let first = keys.first else { return nil }
    let last = keys.removeLast()
    if !keys.isEmpty {
      keys[0] = last
      siftDown(0)
    }
    return first
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < keys.count else { return }
      let right = left + 1
      let smaller = right < keys.count && keys[right] < keys[left] ? right : left
      guard keys[smaller] < keys[parent] else { return }
      keys.swapAt(parent, smaller)
      parent = smaller
    }
  }
}
