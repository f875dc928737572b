// The seed tutorials' filtering, timed for comparison with Sift: every line of stdin is tested
// against the query on every search, the way `filterContentForSearchText` filters an array.
//
//   seed-approach lowercased "da nang" < city-names.txt    candy.name.lowercased().contains(...)
//   seed-approach foundation "da nang" < city-names.txt    range(of:options: [.caseInsensitive, .diacriticInsensitive])
//
// Lines are read once; the time printed (stderr) is for the filtering alone, as a keystroke
// would cost in an app that already holds its array. Matching lines go to stdout.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3, ["lowercased", "foundation"].contains(arguments[1]) else {
  FileHandle.standardError.write(
    Data("usage: seed-approach lowercased|foundation QUERY < FILE\n".utf8))
  exit(2)
}
let query = arguments[2]
let input = FileHandle.standardInput.readDataToEndOfFile()
let lines = String(decoding: input, as: UTF8.self).split(separator: "\n").map(String.init)
let start = DispatchTime.now()
let matches: [String]
if arguments[1] == "lowercased" {
  let needle = query.lowercased()
  matches = lines.filter { $0.lowercased().contains(needle) }
} else {
  matches = lines.filter {
    $0.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
  }
}
let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
FileHandle.standardError.write(
  Data(String(format: "%.1f ms, %d matches\n", milliseconds, matches.count).utf8))
var output = matches.joined(separator: "\n")
if !output.isEmpty { output += "\n" }
FileHandle.standardOutput.write(Data(output.utf8))
