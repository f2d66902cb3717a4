/* encode.c — schema 4's stored forms of hashes and checkpoints (encode.h). */
#include <stdlib.h>
#include <string.h>
#include "encode.h"
#include "replay.h"

size_t rpl_squeeze(ZSTD_CCtx *c, rpl_zout *z, const uint8_t *src, size_t len, const uint8_t *prefix,
                   size_t plen, int level)
{
    size_t bound = ZSTD_compressBound(len);
    if (bound > z->cap) {
        uint8_t *p = realloc(z->p, bound);
        if (!p) return 0;
        z->p = p;
        z->cap = bound;
    }
    if (!c) return 0;
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level))) return 0;
    if (prefix && ZSTD_isError(ZSTD_CCtx_refPrefix(c, prefix, plen))) return 0;
    size_t n = ZSTD_compress2(c, z->p, z->cap, src, len);
    return !ZSTD_isError(n) && n < len ? n : 0;
}

size_t rpl_block_data(ZSTD_CCtx *c, rpl_zout *z, uint8_t *raw, const uint8_t *sh8, const uint8_t *fh8,
                      uint32_t k, const uint8_t **data)
{
    *data = (const uint8_t *)"";
    if (!k) return 0;
    raw[0] = RPL_HASHES_RAW;
    memcpy(raw + 1, sh8, k);
    memcpy(raw + 1 + k, fh8, k);
    size_t len = 1 + 2 * (size_t)k;
    *data = raw;
    /* A picture that does not change repeats its byte: zstd when that is smaller. */
    size_t n = rpl_squeeze(c, z, raw + 1, 2 * (size_t)k, NULL, 0, 3);
    if (n && n + 1 < len) {
        memmove(z->p + 1, z->p, n);
        z->p[0] = RPL_HASHES_ZSTD;
        *data = z->p;
        len = n + 1;
    }
    return len;
}

int rpl_checkpoint_data(ZSTD_CCtx *c, rpl_zout z[2], const uint8_t *state, size_t len,
                        const uint8_t *base, size_t blen, const uint8_t **data, size_t *dlen)
{
    size_t whole = rpl_squeeze(c, &z[0], state, len, NULL, 0, 3);
    size_t diff = base ? rpl_squeeze(c, &z[1], state, len, base, blen, 3) : 0;
    /* A delta only where it is smaller than the state compressed alone (a world that changed
     * much since its base is stored whole, and becomes the next base). */
    if (diff && (!whole || diff < whole)) {
        *data = z[1].p;
        *dlen = diff;
        return 1;
    }
    *data = whole ? z[0].p : state;
    *dlen = whole ? whole : len;
    return 0;
}
