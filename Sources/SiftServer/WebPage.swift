#if Server
import HTTPTypes
import Hummingbird

/// The search page at `GET /`: plain HTML, CSS and JavaScript, compiled into the binary from
/// `Page/` (SwiftPM's `embedInCode`), so there is no build step and nothing to install beside
/// `sift`. The page talks to the same JSON endpoints as any other client, which
/// `GET /openapi.json` describes (`Page/openapi.json`; `docs/openapi.json` links to it).
enum WebPage {
  enum Asset: CaseIterable {
    case html, script, style, apiDocument

    var path: String {
      switch self {
      case .html: "/"
      case .script: "/page.js"
      case .style: "/page.css"
      case .apiDocument: "/openapi.json"
      }
    }

    var contentType: String {
      switch self {
      case .html: "text/html; charset=utf-8"
      case .script: "text/javascript; charset=utf-8"
      case .style: "text/css; charset=utf-8"
      case .apiDocument: "application/json; charset=utf-8"
      }
    }

    var bytes: [UInt8] {
      switch self {
      case .html: PackageResources.index_html
      case .script: PackageResources.page_js
      case .style: PackageResources.page_css
      case .apiDocument: PackageResources.openapi_json
      }
    }
  }

  /// Scripts and styles only from this server, nothing inline, no framing: the page shows
  /// catalog text, and this keeps any of it from ever running as code.
  static let contentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    + "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

  static func response(_ asset: Asset) -> Response {
    var headers: HTTPFields = [
      .contentType: asset.contentType,
      .cacheControl: "no-cache",
      .contentSecurityPolicy: contentSecurityPolicy,
    ]
    headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
    headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
    return Response(
      status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
  }
}
#endif
