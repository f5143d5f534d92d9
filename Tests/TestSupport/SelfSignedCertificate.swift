import Foundation

/// A self-signed certificate for `localhost` made by the system's `openssl`, for tests of TLS servers.
public enum SelfSignedCertificate {
    /// The `openssl` program, or `nil` when it is not installed.
    public static let openssl = ["/usr/bin/openssl", "/bin/openssl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Makes an ECDSA P-256 certificate for `localhost` valid one day, and its key, as PEM files in `folder`;
    /// returns their paths (blocking: call it off the pool).
    public static func make(in folder: String) throws -> (certificatePath: String, keyPath: String) {
        let (certificatePath, keyPath) = (folder + "/localhost.pem", folder + "/localhost.key")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl ?? "/usr/bin/openssl")
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            "-keyout", keyPath, "-out", certificatePath,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ChildProcess.Failure(description: "openssl could not make a certificate")
        }
        return (certificatePath, keyPath)
    }

    /// Whether `openssl s_client` completes a TLS handshake with `127.0.0.1:port` speaking only `version`
    /// (`"-tls1_1"`, `"-tls1_2"` …); blocking: call it off the pool.
    public static func handshakes(port: Int, version: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl ?? "/usr/bin/openssl")
        // SECLEVEL 0: the client offers old versions at all; the server decides.
        process.arguments = [
            "s_client", "-connect", "127.0.0.1:\(port)", version, "-cipher", "ALL:@SECLEVEL=0", "-servername",
            "localhost",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
