import HAPArithmetic

/// The SRP-6a formulas both roles share, in the notation of hap-protocol.md §3.2.
enum SRPFormulas {
    /// x = H(s | H(I | ":" | P)), as a number.
    static func passwordKey(username: String, password: String, salt: [UInt8], hash: SRPHash) -> BigUInt {
        let identity = hash.digest(Array(username.utf8) + Array(":".utf8) + Array(password.utf8))
        return BigUInt(bigEndianBytes: hash.digest(salt, identity))
    }

    /// u = H(PAD(A) | PAD(B)), as a number.
    static func scramblingParameter(
        paddedClientPublicKey: [UInt8],
        paddedServerPublicKey: [UInt8],
        hash: SRPHash
    ) -> BigUInt {
        BigUInt(bigEndianBytes: hash.digest(paddedClientPublicKey, paddedServerPublicKey))
    }

    /// M1 = H((H(N) xor H(g)) | H(I) | s | A | B | K), with A and B in whatever form the caller chose.
    ///
    /// H(N) is over MIN(N) and H(g) over MIN(g), as ADK does.
    static func clientProof(
        group: SRPGroup,
        hash: SRPHash,
        username: String,
        salt: [UInt8],
        clientPublicKey: [UInt8],
        serverPublicKey: [UInt8],
        sessionKey: [UInt8]
    ) -> [UInt8] {
        let modulusDigest = hash.digest(group.modulus)
        let generatorDigest = hash.digest(group.generator)
        let groupDigest = zip(modulusDigest, generatorDigest).map { $0 ^ $1 }
        return hash.digest(
            groupDigest,
            hash.digest(Array(username.utf8)),
            salt,
            clientPublicKey,
            serverPublicKey,
            sessionKey
        )
    }

    /// M2 = H(PAD(A) | M1 | K).
    static func serverProof(
        paddedClientPublicKey: [UInt8],
        clientProof: [UInt8],
        sessionKey: [UInt8],
        hash: SRPHash
    ) -> [UInt8] {
        hash.digest(paddedClientPublicKey, clientProof, sessionKey)
    }

    /// 0xFF when the byte strings are equal, else 0; the time depends only on the lengths.
    static func equalityMask(_ left: [UInt8], _ right: [UInt8]) -> UInt8 {
        guard left.count == right.count else { return 0 }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        // (d − 1) has its top bit set only when d is zero.
        let isZero = UInt8(truncatingIfNeeded: (UInt16(difference) &- 1) >> 8) & 1
        return hiddenFromOptimizer(0 &- isZero)
    }

    /// `count` random bytes, at least one of them nonzero.
    static func randomPrivateKey(byteCount count: Int, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        while true {
            let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            if bytes.contains(where: { $0 != 0 }) { return bytes }
        }
    }

    /// The length of the private keys this module draws: 32 bytes, as ADK uses for b (hap-protocol.md §3.1).
    static let privateKeyByteCount = 32

    /// Returns `value` unchanged, hidden from the optimiser so a mask is not turned back into a branch.
    ///
    /// See `valueBarrier` in HAPArithmetic's MontgomeryKernel.swift for why.
    @_optimize(none)
    @inline(never)
    static func hiddenFromOptimizer(_ value: UInt8) -> UInt8 {
        value
    }
}
