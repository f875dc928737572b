import ArgumentParser
import Sift

extension SearchNear {
  /// `--near LAT,LON` and `--within KM` as `sift search`, `sift bench` and the app read them:
  /// nil without `--near`; a usage error that names the option at fault.
  static func commandLine(near: String?, within: String?) throws -> SearchNear? {
    guard let near else {
      if within != nil { throw ValidationError("--within needs --near LAT,LON") }
      return nil
    }
    let point: GeoPoint
    do {
      point = try GeoPoint(parsing: near)
    } catch {
      throw ValidationError("--near: \(error)")
    }
    var radius: Double?
    if let within {
      do {
        radius = try SearchNear.kilometers(parsing: within)
      } catch {
        throw ValidationError("--within: \(error)")
      }
    }
    return SearchNear(point, withinKilometers: radius)
  }
}
