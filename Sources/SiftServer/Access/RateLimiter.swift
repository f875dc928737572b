#if Server
import Foundation
import Sift

/// Requests a minute per key, as a bucket that refills continuously: a key may spend a minute's
/// worth at once, then one request every 60/N seconds. Past that a request is answered 429 with
/// the seconds until the next one may come (`Retry-After`).
final class RateLimiter: Sendable {
  private struct Bucket {
    var tokens: Double
    var updated: Date
  }

  private let buckets = Locked([String: Bucket]())

  /// Takes one request from `key`'s bucket: nil when it may go ahead, else the whole seconds
  /// to wait.
  func take(_ key: String, perMinute limit: Int, now: Date) -> Int? {
    let capacity = Double(limit)
    let perSecond = capacity / 60
    return buckets.withLock { buckets in
      var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now)
      let elapsed = max(0, now.timeIntervalSince(bucket.updated))
      bucket.tokens = min(capacity, bucket.tokens + elapsed * perSecond)
      bucket.updated = now
      defer { buckets[key] = bucket }
      guard bucket.tokens >= 1 else {
        return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
      }
      bucket.tokens -= 1
      return nil
    }
  }
}
#endif
