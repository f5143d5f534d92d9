// base^exponent mod N for SRP on BoringSSL's BN_mod_exp_mont_consttime.
//
// BoringSSL is the copy swift-crypto vendors and links into every program that uses its Crypto product, as HAP
// does; its symbols carry swift-crypto's prefix, CCryptoBoringSSL_. swift-crypto does not publish that C module,
// so the functions used are declared here with BoringSSL's own signatures (include/openssl/bn.h). Its Montgomery
// multiplication uses the CPU's wide multiply instructions, several times faster than HAPArithmetic's Swift at
// 3072 bits, and its constant-time exponentiation is the one BoringSSL's RSA private-key operations use.
#include "CHAPModExp.h"

#include <string.h>

typedef struct bignum_st BIGNUM;
typedef struct bignum_ctx BN_CTX;
typedef struct bn_mont_ctx_st BN_MONT_CTX;

extern BIGNUM *CCryptoBoringSSL_BN_new(void);
extern void CCryptoBoringSSL_BN_free(BIGNUM *bn);
extern void CCryptoBoringSSL_BN_clear_free(BIGNUM *bn);
extern BIGNUM *CCryptoBoringSSL_BN_bin2bn(const uint8_t *in, size_t len, BIGNUM *ret);
extern int CCryptoBoringSSL_BN_bn2bin_padded(uint8_t *out, size_t len, const BIGNUM *in);
extern int CCryptoBoringSSL_BN_is_odd(const BIGNUM *bn);
extern int CCryptoBoringSSL_BN_is_one(const BIGNUM *bn);
extern int CCryptoBoringSSL_BN_cmp(const BIGNUM *a, const BIGNUM *b);
extern BN_CTX *CCryptoBoringSSL_BN_CTX_new(void);
extern void CCryptoBoringSSL_BN_CTX_free(BN_CTX *ctx);
extern BN_MONT_CTX *CCryptoBoringSSL_BN_MONT_CTX_new_for_modulus(const BIGNUM *mod, BN_CTX *ctx);
extern void CCryptoBoringSSL_BN_MONT_CTX_free(BN_MONT_CTX *mont);
extern int CCryptoBoringSSL_BN_mod_exp_mont_consttime(BIGNUM *rr, const BIGNUM *a, const BIGNUM *p,
                                                      const BIGNUM *m, BN_CTX *ctx, const BN_MONT_CTX *mont);
extern void CCryptoBoringSSL_ERR_clear_error(void);

int chap_mod_exp(const uint8_t *base, size_t base_length, const uint8_t *exponent, size_t exponent_length,
                 const uint8_t *modulus, size_t modulus_length, uint8_t *out) {
    if (out == NULL || modulus_length == 0) return 0;
    memset(out, 0, modulus_length);
    int ok = 0;
    BN_CTX *ctx = CCryptoBoringSSL_BN_CTX_new();
    BIGNUM *a = CCryptoBoringSSL_BN_new();
    BIGNUM *p = CCryptoBoringSSL_BN_new();
    BIGNUM *m = CCryptoBoringSSL_BN_new();
    BIGNUM *r = CCryptoBoringSSL_BN_new();
    BN_MONT_CTX *mont = NULL;
    if (ctx == NULL || a == NULL || p == NULL || m == NULL || r == NULL) goto done;
    if (CCryptoBoringSSL_BN_bin2bn(base, base_length, a) == NULL ||
        CCryptoBoringSSL_BN_bin2bn(exponent, exponent_length, p) == NULL ||
        CCryptoBoringSSL_BN_bin2bn(modulus, modulus_length, m) == NULL) {
        goto done;
    }
    // BN_mod_exp_mont_consttime requires an odd modulus above one and 0 <= base < modulus.
    if (!CCryptoBoringSSL_BN_is_odd(m) || CCryptoBoringSSL_BN_is_one(m) || CCryptoBoringSSL_BN_cmp(a, m) >= 0) {
        goto done;
    }
    mont = CCryptoBoringSSL_BN_MONT_CTX_new_for_modulus(m, ctx);
    if (mont == NULL) goto done;
    if (!CCryptoBoringSSL_BN_mod_exp_mont_consttime(r, a, p, m, ctx, mont)) goto done;
    ok = CCryptoBoringSSL_BN_bn2bin_padded(out, modulus_length, r);
    if (!ok) memset(out, 0, modulus_length);
done:
    if (!ok) CCryptoBoringSSL_ERR_clear_error();
    // The exponent and the result are secrets: wiped before they are freed.
    CCryptoBoringSSL_BN_MONT_CTX_free(mont);
    CCryptoBoringSSL_BN_clear_free(r);
    CCryptoBoringSSL_BN_free(m);
    CCryptoBoringSSL_BN_clear_free(p);
    CCryptoBoringSSL_BN_clear_free(a);
    CCryptoBoringSSL_BN_CTX_free(ctx);
    return ok;
}
