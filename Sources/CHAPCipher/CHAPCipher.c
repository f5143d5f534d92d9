// HAP session frame AEAD on OpenSSL's EVP ChaCha20-Poly1305; see include/CHAPCipher.h.
//
// The key is set once in chap_cipher_create; per frame only the 12-byte IV is set, which resets the AEAD state,
// so no context is rebuilt per call. Every OpenSSL return value is checked.
#include "CHAPCipher.h"

#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#define NONCE_BYTES 12

/// The chap_cipher handle is the EVP context itself.
static EVP_CIPHER_CTX *context(chap_cipher *cipher) { return (EVP_CIPHER_CTX *)cipher; }

/// Writes the HAP nonce: 4 zero bytes, then the counter little-endian.
static void make_nonce(uint64_t counter, unsigned char nonce[NONCE_BYTES]) {
    for (int i = 0; i < 4; i++) nonce[i] = 0;
    for (int i = 0; i < 8; i++) nonce[4 + i] = (unsigned char)(counter >> (8 * i));
}

chap_cipher *chap_cipher_create(const uint8_t *key) {
    // Without a key OpenSSL would leave the context unkeyed rather than fail.
    if (key == NULL) return NULL;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) return NULL;
    // Cipher first, then the IV length, then the key; the IV is set per frame.
    if (EVP_CipherInit_ex(ctx, EVP_chacha20_poly1305(), NULL, NULL, NULL, 1) != 1
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, NONCE_BYTES, NULL) != 1
        || EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, 1) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return (chap_cipher *)ctx;
}

void chap_cipher_free(chap_cipher *cipher) { EVP_CIPHER_CTX_free(context(cipher)); }

/// Starts a frame: sets direction and nonce (keeping the key), then feeds the associated data.
static int begin(EVP_CIPHER_CTX *ctx, int encrypt, uint64_t counter, const void *aad, size_t aad_length,
                 size_t length) {
    if (aad_length > INT_MAX || length > INT_MAX) return 0;
    unsigned char nonce[NONCE_BYTES];
    make_nonce(counter, nonce);
    int written = 0;
    return EVP_CipherInit_ex(ctx, NULL, NULL, NULL, nonce, encrypt) == 1
        && EVP_CipherUpdate(ctx, NULL, &written, aad, (int)aad_length) == 1;
}

/// Runs the cipher over `length` bytes and finishes the frame; 0 unless exactly `length` bytes came out.
static int finish(EVP_CIPHER_CTX *ctx, const void *input, size_t length, unsigned char *output) {
    int written = 0, final_written = 0;
    // Empty input skips the update: its pointers may be NULL. Final writes nothing for a stream cipher.
    if (length > 0 && EVP_CipherUpdate(ctx, output, &written, input, (int)length) != 1) return 0;
    if (EVP_CipherFinal_ex(ctx, length > 0 ? output + written : output, &final_written) != 1) return 0;
    return (size_t)written + (size_t)final_written == length;
}

int chap_cipher_seal(chap_cipher *cipher, uint64_t counter, const void *aad, size_t aad_length,
                     const void *plaintext, size_t length, void *ciphertext, void *tag) {
    EVP_CIPHER_CTX *ctx = context(cipher);
    return begin(ctx, 1, counter, aad, aad_length, length)
        && finish(ctx, plaintext, length, ciphertext)
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, CHAP_CIPHER_TAG_BYTES, tag) == 1;
}

int chap_cipher_open(chap_cipher *cipher, uint64_t counter, const void *aad, size_t aad_length,
                     const void *ciphertext, size_t length, const void *tag, void *plaintext) {
    EVP_CIPHER_CTX *ctx = context(cipher);
    // The expected tag must be set before EVP_CipherFinal_ex, which then compares it in constant time.
    int ok = begin(ctx, 0, counter, aad, aad_length, length)
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, CHAP_CIPHER_TAG_BYTES, (void *)tag) == 1
        && finish(ctx, ciphertext, length, plaintext);
    // Decryption writes plaintext before the tag is checked; wipe it so unauthenticated bytes never escape.
    if (!ok && length > 0 && length <= INT_MAX) OPENSSL_cleanse(plaintext, length);
    return ok;
}
