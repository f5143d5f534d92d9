// HAP session frame AEAD on BoringSSL's EVP_AEAD ChaCha20-Poly1305; see include/CHAPCipher.h.
//
// BoringSSL is the copy swift-crypto vendors and links into every program that uses its Crypto product, as HAP
// does; its symbols carry swift-crypto's prefix, CCryptoBoringSSL_. swift-crypto does not publish that C module,
// so the few functions used are declared here with BoringSSL's own signatures (include/openssl/aead.h). Using it
// instead of the system's OpenSSL libcrypto keeps a second crypto library (and its provider tables, a few MB of
// resident pages) out of the process. The key is set once in chap_cipher_create; a frame only passes its nonce.
#include "CHAPCipher.h"

#define NONCE_BYTES 12

typedef struct evp_aead_st EVP_AEAD;
typedef struct evp_aead_ctx_st EVP_AEAD_CTX;

extern const EVP_AEAD *CCryptoBoringSSL_EVP_aead_chacha20_poly1305(void);
extern EVP_AEAD_CTX *CCryptoBoringSSL_EVP_AEAD_CTX_new(const EVP_AEAD *aead, const uint8_t *key, size_t key_len,
                                                       size_t tag_len);
extern void CCryptoBoringSSL_EVP_AEAD_CTX_free(EVP_AEAD_CTX *ctx);
extern int CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(const EVP_AEAD_CTX *ctx, uint8_t *out, uint8_t *out_tag,
                                                      size_t *out_tag_len, size_t max_out_tag_len,
                                                      const uint8_t *nonce, size_t nonce_len, const uint8_t *in,
                                                      size_t in_len, const uint8_t *extra_in, size_t extra_in_len,
                                                      const uint8_t *ad, size_t ad_len);
extern int CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(const EVP_AEAD_CTX *ctx, uint8_t *out, const uint8_t *nonce,
                                                     size_t nonce_len, const uint8_t *in, size_t in_len,
                                                     const uint8_t *in_tag, size_t in_tag_len, const uint8_t *ad,
                                                     size_t ad_len);
extern void CCryptoBoringSSL_ERR_clear_error(void);
extern int CCryptoBoringSSL_RAND_bytes(uint8_t *buf, size_t len);

typedef struct env_md_st EVP_MD;

extern const EVP_MD *CCryptoBoringSSL_EVP_sha512(void);
extern int CCryptoBoringSSL_HKDF(uint8_t *out_key, size_t out_len, const EVP_MD *digest, const uint8_t *secret,
                                 size_t secret_len, const uint8_t *salt, size_t salt_len, const uint8_t *info,
                                 size_t info_len);

/// The chap_cipher handle is the EVP_AEAD context itself.
static EVP_AEAD_CTX *context(chap_cipher *cipher) { return (EVP_AEAD_CTX *)cipher; }

/// Writes the HAP nonce: 4 zero bytes, then the counter little-endian.
static void make_nonce(uint64_t counter, uint8_t nonce[NONCE_BYTES]) {
    for (int i = 0; i < 4; i++) nonce[i] = 0;
    for (int i = 0; i < 8; i++) nonce[4 + i] = (uint8_t)(counter >> (8 * i));
}

chap_cipher *chap_cipher_create(const uint8_t *key) {
    if (key == NULL) return NULL;
    EVP_AEAD_CTX *ctx = CCryptoBoringSSL_EVP_AEAD_CTX_new(CCryptoBoringSSL_EVP_aead_chacha20_poly1305(), key,
                                                          CHAP_CIPHER_KEY_BYTES, CHAP_CIPHER_TAG_BYTES);
    if (ctx == NULL) CCryptoBoringSSL_ERR_clear_error();
    return (chap_cipher *)ctx;
}

void chap_cipher_free(chap_cipher *cipher) {
    // EVP_AEAD_CTX_free cleanses the key schedule before freeing it.
    if (cipher != NULL) CCryptoBoringSSL_EVP_AEAD_CTX_free(context(cipher));
}

int chap_cipher_seal(chap_cipher *cipher, uint64_t counter, const void *aad, size_t aad_length,
                     const void *plaintext, size_t length, void *ciphertext, void *tag) {
    uint8_t nonce[NONCE_BYTES];
    make_nonce(counter, nonce);
    size_t tag_length = 0;
    int ok = CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(context(cipher), ciphertext, tag, &tag_length,
                                                        CHAP_CIPHER_TAG_BYTES, nonce, NONCE_BYTES, plaintext,
                                                        length, NULL, 0, aad, aad_length);
    if (!ok) CCryptoBoringSSL_ERR_clear_error();
    return ok == 1 && tag_length == CHAP_CIPHER_TAG_BYTES;
}

int chap_cipher_open(chap_cipher *cipher, uint64_t counter, const void *aad, size_t aad_length,
                     const void *ciphertext, size_t length, const void *tag, void *plaintext) {
    uint8_t nonce[NONCE_BYTES];
    make_nonce(counter, nonce);
    // The tag is compared in constant time; on a mismatch BoringSSL fills `plaintext` with zeros.
    int ok = CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(context(cipher), plaintext, nonce, NONCE_BYTES, ciphertext,
                                                       length, tag, CHAP_CIPHER_TAG_BYTES, aad, aad_length);
    // A failed open leaves an entry on the thread's error queue; nothing reads it, so drop it.
    if (!ok) CCryptoBoringSSL_ERR_clear_error();
    return ok == 1;
}

int chap_cipher_seal_combined(chap_cipher *cipher, const void *aad, size_t aad_length, const void *plaintext,
                              size_t length, void *sealed) {
    uint8_t *out = (uint8_t *)sealed;
    if (CCryptoBoringSSL_RAND_bytes(out, NONCE_BYTES) != 1) {
        CCryptoBoringSSL_ERR_clear_error();
        return 0;
    }
    size_t tag_length = 0;
    int ok = CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(context(cipher), out + NONCE_BYTES,
                                                        out + NONCE_BYTES + length, &tag_length,
                                                        CHAP_CIPHER_TAG_BYTES, out, NONCE_BYTES, plaintext, length,
                                                        NULL, 0, aad, aad_length);
    if (!ok) CCryptoBoringSSL_ERR_clear_error();
    return ok == 1 && tag_length == CHAP_CIPHER_TAG_BYTES;
}

int chap_cipher_open_combined(chap_cipher *cipher, const void *aad, size_t aad_length, const void *sealed,
                              size_t sealed_length, void *plaintext) {
    if (sealed_length < NONCE_BYTES + CHAP_CIPHER_TAG_BYTES) return 0;
    const uint8_t *in = (const uint8_t *)sealed;
    size_t length = sealed_length - NONCE_BYTES - CHAP_CIPHER_TAG_BYTES;
    int ok = CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(context(cipher), plaintext, in, NONCE_BYTES,
                                                       in + NONCE_BYTES, length, in + NONCE_BYTES + length,
                                                       CHAP_CIPHER_TAG_BYTES, aad, aad_length);
    if (!ok) CCryptoBoringSSL_ERR_clear_error();
    return ok == 1;
}

int chap_hkdf_sha512(const void *secret, size_t secret_length, const void *salt, size_t salt_length,
                     const void *info, size_t info_length, void *out, size_t out_length) {
    if (CCryptoBoringSSL_HKDF(out, out_length, CCryptoBoringSSL_EVP_sha512(), secret, secret_length, salt,
                              salt_length, info, info_length) == 1) {
        return 1;
    }
    CCryptoBoringSSL_ERR_clear_error();
    return 0;
}
