/* encode.h — how schema 4 stores hashes and checkpoints (docs/REPLAY.md, "Recorded hashes" and
 * "Checkpoints as deltas"), shared by the recorder and `viv replay upgrade` (not a public header). */
#ifndef VIV_REPLAY_ENCODE_H
#define VIV_REPLAY_ENCODE_H
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

/* A buffer for compressed bytes, grown as needed. */
typedef struct rpl_zout {
    uint8_t *p;
    size_t cap;
} rpl_zout;

/* Compress src (len bytes) into z at level with c, with prefix (plen bytes) as zstd's reference
 * when not NULL. The compressed length, or 0 when it failed or saved nothing. */
size_t rpl_squeeze(ZSTD_CCtx *c, rpl_zout *z, const uint8_t *src, size_t len, const uint8_t *prefix,
                   size_t plen, int level);

/* The data column of a block whose ticks before the last have the low bytes sh8[0..k) and
 * fh8[0..k): *data and its length (0, *data "", when k is 0), pointing into raw (1 + 2k bytes of
 * room) or z; zstd-compressed only when c is not NULL and that is smaller. */
size_t rpl_block_data(ZSTD_CCtx *c, rpl_zout *z, uint8_t *raw, const uint8_t *sh8, const uint8_t *fh8,
                      uint32_t k, const uint8_t **data);

/* A checkpoint's stored bytes: the state compressed alone (z[0]), or compressed against base
 * (z[1]; base NULL: not tried), whichever is smaller, or the state itself when neither saves
 * anything. *data and *dlen; returns 1 when it is the delta, else 0. */
int rpl_checkpoint_data(ZSTD_CCtx *c, rpl_zout z[2], const uint8_t *state, size_t len,
                        const uint8_t *base, size_t blen, const uint8_t **data, size_t *dlen);
#endif
