// HAP session frame AEAD: ChaCha20-Poly1305 (RFC 8439) on BoringSSL's EVP_AEAD interface, the BoringSSL that
// swift-crypto links into the program.
//
// One context holds one key and is reused for every frame of one direction; each call only sets the nonce
// (4 zero bytes, then the 64-bit frame counter little-endian, hap-protocol.md §5). A context is not thread-safe.
#ifndef CHAPCIPHER_H
#define CHAPCIPHER_H

#include <stddef.h>
#include <stdint.h>

/// The size in bytes of a key.
#define CHAP_CIPHER_KEY_BYTES 32
/// The size in bytes of a Poly1305 tag.
#define CHAP_CIPHER_TAG_BYTES 16

/// A BoringSSL ChaCha20-Poly1305 context bound to one key.
typedef struct chap_cipher chap_cipher;

/// Creates a context for a 32-byte key; NULL if BoringSSL fails. Free it with chap_cipher_free.
chap_cipher *chap_cipher_create(const uint8_t *key);

/// Frees a context; BoringSSL cleanses the key schedule. NULL is allowed.
void chap_cipher_free(chap_cipher *cipher);

/// Encrypts `length` bytes with the nonce for `counter` and authenticates `aad_length` bytes of `aad`.
/// Writes `length` bytes of ciphertext and a 16-byte tag. 1 on success, else 0.
int chap_cipher_seal(chap_cipher *cipher, uint64_t counter, const void *aad, size_t aad_length,
                     const void *plaintext, size_t length, void *ciphertext, void *tag);

/// Checks the tag and decrypts `length` bytes with the nonce for `counter`, authenticating `aad`.
/// 1 when the tag matches; 0 otherwise, and then the `plaintext` output is zeroed and must be discarded.
int chap_cipher_open(chap_cipher *cipher, uint64_t counter, const void *aad, size_t aad_length,
                     const void *ciphertext, size_t length, const void *tag, void *plaintext);

/// The size in bytes of a nonce.
#define CHAP_CIPHER_NONCE_BYTES 12

/// Seals `length` bytes with a random nonce from BoringSSL's generator, authenticating `aad`, into `sealed`:
/// the nonce, the ciphertext and the tag (`CHAP_CIPHER_NONCE_BYTES + length + CHAP_CIPHER_TAG_BYTES` bytes, the
/// layout of swift-crypto's `ChaChaPoly.SealedBox.combined`). 1 on success, else 0.
int chap_cipher_seal_combined(chap_cipher *cipher, const void *aad, size_t aad_length, const void *plaintext,
                              size_t length, void *sealed);

/// Opens `sealed_length` bytes laid out as `chap_cipher_seal_combined` writes them, authenticating `aad`, into
/// `plaintext` (`sealed_length - CHAP_CIPHER_NONCE_BYTES - CHAP_CIPHER_TAG_BYTES` bytes). 1 when the tag matches;
/// 0 otherwise (also for input shorter than a nonce and a tag), and then `plaintext` must be discarded.
int chap_cipher_open_combined(chap_cipher *cipher, const void *aad, size_t aad_length, const void *sealed,
                              size_t sealed_length, void *plaintext);

/// HKDF with SHA-512 (RFC 5869): derives `out_length` bytes from `secret`, `salt` and `info` into `out`.
/// 1 on success, else 0 (and then `out` must be discarded).
int chap_hkdf_sha512(const void *secret, size_t secret_length, const void *salt, size_t salt_length,
                     const void *info, size_t info_length, void *out, size_t out_length);

#endif
