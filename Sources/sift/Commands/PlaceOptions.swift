import ArgumentParser
import Sift

/// `--near LAT,LON`, `--within KM` and `--within-box SOUTH,WEST,NORTH,EAST`, as `sift search`,
/// `sift bench` and the app take them.
/// Each takes the next argument whatever it starts with, so a southern or western place is
/// written as it reads (`--near -33.87,151.21`), not only as `--near=-33.87,151.21`.
struct PlaceOptions: ParsableArguments {
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Search near this place (in a catalog imported with --location): distance ranks results right after typos, word starts and a title match, and each result says how far it is.",
      valueName: "LAT,LON"))
  var near: String?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "With --near, keep only items at most this many kilometres away.", valueName: "KM"))
  var within: String?

  @Option(
    name: .customLong("within-box"), parsing: .unconditional,
    help: ArgumentHelp(
      "Keep only items inside this area (in a catalog imported with --location): a map's \"search this area\". A west edge east of the east edge crosses the 180° meridian. With --near, nearest first.",
      valueName: "SOUTH,WEST,NORTH,EAST"))
  var withinBox: String?

  func validate() throws {
    _ = try searchNear()
    _ = try searchBox()
  }

  /// The area asked for; nil without `--within-box`.
  func searchBox() throws -> GeoBox? {
    guard let withinBox else { return nil }
    do {
      return try GeoBox(parsing: withinBox)
    } catch {
      throw ValidationError("--within-box: \(error)")
    }
  }

  /// The option a catalog without a location refuses: the first of them given.
  var placeOption: String { near != nil ? "--near" : "--within-box" }

  /// The place asked for; nil without `--near`. A usage error names the option at fault.
  func searchNear() throws -> SearchNear? {
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
