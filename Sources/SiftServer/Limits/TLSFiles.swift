#if Server
import NIOCore
import NIOSSL

extension TimeAmount {
  /// `duration` in nanoseconds, as NIO counts time.
  init(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }
}

/// A certificate chain and its private key, in PEM files (`--tls-cert`, `--tls-key`).
public struct TLSFiles: Sendable {
  public var certificate: String
  public var key: String

  public init(certificate: String, key: String) {
    self.certificate = certificate
    self.key = key
  }

  /// The server's TLS settings for these files; the error names the file that could not be
  /// read and why.
  public func configuration() throws(TLSFilesError) -> TLSConfiguration {
    let chain: [NIOSSLCertificate]
    do {
      chain = try NIOSSLCertificate.fromPEMFile(certificate)
    } catch {
      throw TLSFilesError("\(certificate): not a PEM certificate that can be read (\(error))")
    }
    guard !chain.isEmpty else { throw TLSFilesError("\(certificate): holds no certificate") }
    let privateKey: NIOSSLPrivateKey
    do {
      privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
    } catch {
      throw TLSFilesError("\(key): not a PEM private key that can be read (\(error))")
    }
    return TLSConfiguration.makeServerConfiguration(
      certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
  }
}

/// A TLS file that could not be used; the message names it.
public struct TLSFilesError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
#endif
