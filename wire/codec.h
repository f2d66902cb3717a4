/* codec.h — frame encoding for the wire (docs/PROTOCOL.md, "Frame data").
 *
 * "tile" (the default): the frame is cut into 16×16 tiles (edge tiles smaller). A delta names the
 * tiles that differ from the previous frame of the same stream and encodes each in the cheapest
 * of four modes, as RFB's Hextile/ZRLE do: SOLID (one index), PACKED (a 2–16 entry local palette
 * and 1/2/4-bit indexes), RLE (index, run-length pairs) or RAW. A keyframe carries every tile. A
 * frame whose pixels did not change (a palette-only change) carries no tile data at all.
 * "raw": the w·h index bytes, always a keyframe.
 *
 * Encoding is a pure function of (cur, prev, w, h): identical input, identical bytes. Decoding
 * never reads or writes outside its buffers, whatever the bytes: it is a fuzz target. */
#ifndef VIVARIUM_CODEC_H
#define VIVARIUM_CODEC_H
#include <stddef.h>
#include <stdint.h>
#include "wire.h"

#define CODEC_TILE 16

enum { CODEC_OK = 0 };          /* and CODEC_E…, -361..-399 of the one space (sim/errors.h) */

/* Append the tile encoding of cur (w·h indexes) to out: a delta against prev, or a keyframe when
 * prev is NULL. Returns the number of bytes appended, or CODEC_ENOMEM, or CODEC_ESIZE when w or h
 * is outside 1..4096. */
long codec_encode(wire_buf *out, const uint8_t *cur, const uint8_t *prev, int w, int h);

/* Decode tile data into px (w·h). For a delta px must hold the previous frame; tiles not named
 * are left as they are. key: the message's "key" flag; a keyframe must cover every tile.
 * Returns CODEC_OK, CODEC_EDATA for malformed or truncated data (px may be partly written), or
 * CODEC_ESIZE when w or h is outside 1..4096. */
int codec_decode(const uint8_t *data, size_t len, uint8_t *px, int w, int h, int key);

/* Upper bound on codec_encode's output for a w×h frame. */
size_t codec_bound(int w, int h);

/* ---- tile by tile: for a host that assembles tile data itself (vivd's rect streams, which
 * share each tile's payload among every rect that shows it). The bytes are the same codec_encode
 * writes for a tile. */
#define CODEC_TILE_PAYLOAD_MAX (1 + CODEC_TILE * CODEC_TILE)     /* RAW: the mode byte, the pixels */
enum { CODEC_HDR_NONE = 0, CODEC_HDR_BITMAP = 1, CODEC_HDR_ALL = 2 };

/* The payload of one tile, tw × th pixels (1..16 each) at src with rows stride apart, written at
 * o (room for CODEC_TILE_PAYLOAD_MAX bytes); returns its length. */
size_t codec_tile_payload(uint8_t *o, const uint8_t *src, size_t stride, int tw, int th);

/* Which tiles of tile row ty of a w × h frame differ between cur and prev: changed[tx] is 1 or
 * 0 for each of the row's ceil(w / 16) tiles. Returns how many differ. */
int codec_band_changes(const uint8_t *cur, const uint8_t *prev, int w, int h, int ty, uint8_t *changed);

#endif
