// Constant-time modular exponentiation for SRP on BoringSSL's bignum code; see CHAPModExp.c.
#ifndef CHAP_MOD_EXP_H
#define CHAP_MOD_EXP_H

#include <stddef.h>
#include <stdint.h>

/// Writes base^exponent mod modulus to `out` as `modulus_length` big-endian bytes and returns 1, or returns 0 (out
/// zeroed) when the modulus is not odd or greater than one, the base is not below it, or memory runs out. All
/// numbers are big-endian; the exponent is treated as secret (no branch or memory access depends on its bits).
int chap_mod_exp(const uint8_t *base, size_t base_length, const uint8_t *exponent, size_t exponent_length,
                 const uint8_t *modulus, size_t modulus_length, uint8_t *out);

#endif
