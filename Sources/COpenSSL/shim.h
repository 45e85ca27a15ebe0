#ifndef MDOC_COPENSSL_SHIM_H
#define MDOC_COPENSSL_SHIM_H
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <openssl/engine.h>
#include <openssl/ui.h>

/* Wrappers for OpenSSL function-like macros and composite constants, which Swift cannot import. */

/* OPENSSL_free(p) expands to CRYPTO_free(p, OPENSSL_FILE, OPENSSL_LINE). */
static inline void mdoc_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }

/* BIO_get_mem_data(b, pp) expands to BIO_ctrl(b, BIO_CTRL_INFO, 0, (char *)(pp)). */
static inline long mdoc_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

/* XN_FLAG_RFC2253 is an OR of several other composite macros. */
static inline unsigned long mdoc_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }

/* MBSTRING_UTF8 is defined through MBSTRING_FLAG. */
static inline int mdoc_MBSTRING_UTF8(void) { return MBSTRING_UTF8; }

/* EVP_PKEY_PUBLIC_KEY / EVP_PKEY_KEYPAIR are ORs of OSSL_KEYMGMT_SELECT_* macros. */
static inline int mdoc_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int mdoc_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }
static inline int mdoc_EVP_PKEY_KEY_PARAMETERS(void) { return EVP_PKEY_KEY_PARAMETERS; }

/* STACK_OF(ASN1_TYPE) helpers for the PKCS#8 EC fast path (the sk_ macros do not import). */
static inline int mdoc_sk_ASN1_TYPE_num(const STACK_OF(ASN1_TYPE) *s) { return sk_ASN1_TYPE_num(s); }
static inline ASN1_TYPE *mdoc_sk_ASN1_TYPE_value(const STACK_OF(ASN1_TYPE) *s, int i) { return sk_ASN1_TYPE_value(s, i); }
static inline void mdoc_sk_ASN1_TYPE_pop_free(STACK_OF(ASN1_TYPE) *s) { sk_ASN1_TYPE_pop_free(s, ASN1_TYPE_free); }
static inline const ASN1_STRING *mdoc_ASN1_TYPE_octet_string(const ASN1_TYPE *t) {
    return (t != NULL && t->type == V_ASN1_OCTET_STRING) ? t->value.octet_string : NULL;
}
static inline const ASN1_OBJECT *mdoc_algor_object_param(const X509_ALGOR *a) {
    const ASN1_OBJECT *obj = NULL; int ptype = 0; const void *pval = NULL;
    X509_ALGOR_get0(&obj, &ptype, &pval, a);
    return ptype == V_ASN1_OBJECT ? (const ASN1_OBJECT *)pval : NULL;
}

/* One-shot SHA-2 (FIPS 180-4) of a buffer through OpenSSL's low-level functions; bits is 256,
   384 or 512, out holds at least 64 bytes; returns the digest length, 0 for another bits.
   Deprecated in 3.0 but still OpenSSL's own code: 3.0's EVP_DigestInit_ex2 allocates and frees
   the provider's state on every call, which costs as much as hashing a short item. The only
   caller of these functions, so the deprecation warnings stay here. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
/* mdoc_sha2 of the concatenation of count parts (parts[i] of lengths[i] bytes), hashed where
   they lie: a COSE Sig_structure is hashed from its pieces, never copied into one buffer. */
static inline int mdoc_sha2_parts(int bits, const unsigned char *const *parts, const size_t *lengths, int count,
                                  unsigned char *out) {
    if (bits == 256) {
        SHA256_CTX context;
        if (!SHA256_Init(&context)) return 0;
        for (int i = 0; i < count; i++)
            if (!SHA256_Update(&context, parts[i], lengths[i])) return 0;
        return SHA256_Final(out, &context) ? SHA256_DIGEST_LENGTH : 0;
    }
    if (bits == 384 || bits == 512) {
        SHA512_CTX context;
        if (!(bits == 384 ? SHA384_Init(&context) : SHA512_Init(&context))) return 0;
        for (int i = 0; i < count; i++)
            if (!(bits == 384 ? SHA384_Update(&context, parts[i], lengths[i]) : SHA512_Update(&context, parts[i], lengths[i])))
                return 0;
        if (!(bits == 384 ? SHA384_Final(out, &context) : SHA512_Final(out, &context))) return 0;
        return bits == 384 ? SHA384_DIGEST_LENGTH : SHA512_DIGEST_LENGTH;
    }
    return 0;
}
/* mdoc_sha2_parts of one buffer. */
static inline int mdoc_sha2(int bits, const void *data, size_t count, unsigned char *out) {
    const unsigned char *part = data;
    return mdoc_sha2_parts(bits, &part, &count, 1, out);
}
#pragma clang diagnostic pop

/* ECDSA verification without EVP: a device key held as a point on a per-thread EC_KEY that
   takes the point (EC_KEY_oct2key, the decoding EVP_PKEY_set1_encoded_public_key runs too), a
   certificate's key on an EC_KEY of its own; ECDSA_do_verify takes r and s as numbers, where
   EVP_PKEY_verify parses a DER signature, encodes it again to compare and wants a provider
   context per key or a copy of one per call. The EC_KEY functions are
   deprecated in 3.0 but remain OpenSSL's own; these wrappers are their only callers. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

/* An EC_KEY on the named curve (OpenSSL short name), without a point; NULL when unknown. */
static inline EC_KEY *mdoc_ec_key_new(const char *short_name) {
    int nid = OBJ_sn2nid(short_name);
    return nid == NID_undef ? NULL : EC_KEY_new_by_curve_name(nid);
}

static inline void mdoc_ec_key_free(EC_KEY *key) { EC_KEY_free(key); }

/* Sets key's public point from a SEC1 encoding; 0 when it is not a point on the curve. */
static inline int mdoc_ec_key_set_point(EC_KEY *key, const unsigned char *point, size_t length, BN_CTX *context) {
    return EC_KEY_oct2key(key, point, length, context);
}

/* An EC_KEY on a copy of group holding the SEC1 point; NULL when the point is not on the curve.
   Verified with concurrently afterwards (ECDSA_do_verify only reads the key), as OpenSSL's own
   ECDSA provider does with the EC_KEY that every context made from one EVP_PKEY shares. */
static inline EC_KEY *mdoc_ec_key_new_with_point(const EC_GROUP *group, const unsigned char *point, size_t length) {
    EC_KEY *key = EC_KEY_new();
    if (key == NULL) return NULL;
    if (!EC_KEY_set_group(key, group) || !EC_KEY_oct2key(key, point, length, NULL)) {
        EC_KEY_free(key);
        return NULL;
    }
    return key;
}

/* ECDSA verification (FIPS 186-4 §6.4) of big-endian r and s, half_length bytes each, over a
   digest: 1 valid, 0 invalid (r or s out of range included), -1 error. */
static inline int mdoc_ecdsa_verify_raw(EC_KEY *key, const unsigned char *digest, int digest_length,
                                        const unsigned char *r, const unsigned char *s, int half_length) {
    ECDSA_SIG *signature = ECDSA_SIG_new();
    BIGNUM *bn_r = BN_bin2bn(r, half_length, NULL), *bn_s = BN_bin2bn(s, half_length, NULL);
    if (signature == NULL || bn_r == NULL || bn_s == NULL) {
        ECDSA_SIG_free(signature);
        BN_free(bn_r);
        BN_free(bn_s);
        return -1;
    }
    ECDSA_SIG_set0(signature, bn_r, bn_s); /* takes both; fails only for NULL */
    int result = ECDSA_do_verify(digest, digest_length, signature, key);
    ECDSA_SIG_free(signature);
    return result;
}

/* The EC_KEY of an EC EVP_PKEY (a reference, freed with mdoc_ec_key_free), NULL for another type.
   For a provider key OpenSSL 3.0 exports it once and keeps it with the EVP_PKEY. */
static inline EC_KEY *mdoc_ec_key_of(EVP_PKEY *key) { return EVP_PKEY_get1_EC_KEY(key); }

/* ECDSA signature (FIPS 186-4 §6.4, OpenSSL's nonce) of a digest with key, written as big-endian
   r and s of half_length bytes each into out (2 * half_length bytes): 1 signed, 0 failed.
   ECDSA_do_sign only reads the key, as the ECDSA provider's contexts made from one EVP_PKEY
   share its EC_KEY; no EVP_PKEY_CTX per signature, no DER to encode and decode again. */
static inline int mdoc_ecdsa_sign_raw(EC_KEY *key, const unsigned char *digest, int digest_length, unsigned char *out,
                                      int half_length) {
    ECDSA_SIG *signature = ECDSA_do_sign(digest, digest_length, key);
    if (signature == NULL) return 0;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(signature, &r, &s);
    int ok = r != NULL && s != NULL && BN_bn2binpad(r, out, half_length) == half_length
             && BN_bn2binpad(s, out + half_length, half_length) == half_length;
    ECDSA_SIG_free(signature);
    return ok;
}
#pragma clang diagnostic pop

/* Keys in a PKCS#11 token, through the "pkcs11" engine (libp11; Debian libengine-pkcs11-openssl).
   OpenSSL 3.0 deprecates the ENGINE API, but Debian 12 has no PKCS#11 provider; these wrappers
   are the only callers, so the deprecation warnings stay here. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

/* A functional reference to a new pkcs11 engine for the PKCS#11 module at module_path (NULL: the
   engine's default module), quiet on stderr; NULL when the engine cannot be loaded or set up. */
static inline ENGINE *mdoc_engine_pkcs11(const char *module_path) {
    ENGINE *engine = ENGINE_by_id("pkcs11");
    if (engine == NULL) return NULL;
    if ((module_path != NULL && !ENGINE_ctrl_cmd_string(engine, "MODULE_PATH", module_path, 0))
        || !ENGINE_ctrl_cmd_string(engine, "QUIET", NULL, 0) || !ENGINE_init(engine)) {
        ENGINE_free(engine);
        return NULL;
    }
    ENGINE_free(engine); /* the functional reference from ENGINE_init keeps it */
    return engine;
}

/* Sets the PIN the engine logs in with. */
static inline int mdoc_engine_set_pin(ENGINE *engine, const char *pin) {
    return ENGINE_ctrl_cmd_string(engine, "PIN", pin, 0);
}

/* The private key a PKCS#11 URI names, never prompting for a PIN; NULL when it cannot be loaded. */
static inline EVP_PKEY *mdoc_engine_load_private_key(ENGINE *engine, const char *uri) {
    return ENGINE_load_private_key(engine, uri, UI_null(), NULL);
}

#pragma clang diagnostic pop
#endif
