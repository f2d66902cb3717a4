/* fuzz_codec.c — libFuzzer target: the frame codec's decoder (wire/codec.c codec_decode), the
 * tile data a client receives in every "tile" frame.
 *
 * Input: byte 0 = w − 1, byte 1 = h − 1 (frames of 1..256 × 1..256), byte 2 = flags (bit 0: the
 * message's key flag), byte 3 = the previous frame's fill index, then the tile data. The data and
 * the picture are exact-size heap blocks. Besides memory safety, the target checks:
 *   - a frame size outside 1..4096 is CODEC_ESIZE, whatever the data;
 *   - whatever decodes re-encodes: the encoder's keyframe of the decoded picture decodes back to
 *     it (onto garbage), and its delta against the previous frame decodes back to it (onto the
 *     previous frame); both fit codec_bound; encoding is deterministic; an unchanged picture is
 *     the one-byte delta 0;
 *   - the encoder's keyframe is never longer than a valid keyframe (each tile takes the smallest
 *     mode, docs/PROTOCOL.md). */
#include "fuzz.h"
#include "codec.h"

static void check_decodes_to(const wire_buf *enc, const uint8_t *start, const uint8_t *want, int w,
                             int h, int key, const char *what)
{
    size_t n = (size_t)w * (size_t)h;
    uint8_t *data = fuzz_dup(enc->p, enc->len);
    uint8_t *px = fuzz_dup(start, n);
    int rc = codec_decode(data, enc->len, px, w, h, key);
    FUZZ_CHECK(rc == CODEC_OK, "%s of a %dx%d picture does not decode: %d", what, w, h, rc);
    FUZZ_CHECK(memcmp(px, want, n) == 0, "%s of a %dx%d picture decodes to another picture", what, w, h);
    free(px);
    free(data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    const int w = 1 + data[0], h = 1 + data[1], key = data[2] & 1;
    const uint8_t fill = data[3];
    const size_t n = (size_t)w * (size_t)h, len = size - 4;
    uint8_t *tiles = fuzz_dup(data + 4, len);
    uint8_t *prev = malloc(n), *px = malloc(n), *garbage = malloc(n);
    FUZZ_CHECK(prev && px && garbage, "oom");
    memset(prev, fill, n);
    memset(garbage, 0xa5, n);
    memcpy(px, prev, n);

    /* Sizes the codec must refuse before it looks at the data. */
    uint8_t one = 0;
    FUZZ_CHECK(codec_decode(tiles, len, &one, 0, h, key) == CODEC_ESIZE, "w = 0 accepted");
    FUZZ_CHECK(codec_decode(tiles, len, &one, w, 4097, key) == CODEC_ESIZE, "h = 4097 accepted");
    FUZZ_CHECK(codec_bound(0, 1) == 0 && codec_bound(1, 4097) == 0, "codec_bound of a bad size");

    int rc = codec_decode(tiles, len, px, w, h, key);
    FUZZ_CHECK(rc == CODEC_OK || rc == CODEC_EDATA, "decode gave %d", rc);
    if (rc == CODEC_OK) {
        FUZZ_CHECK(!key || (len >= 1 && tiles[0] == 2), "a keyframe decoded without header ALL");
        size_t bound = codec_bound(w, h);
        wire_buf kf, kf2, delta;
        wire_buf_init(&kf);
        wire_buf_init(&kf2);
        wire_buf_init(&delta);
        long kn = codec_encode(&kf, px, NULL, w, h);
        long kn2 = codec_encode(&kf2, px, NULL, w, h);
        long dn = codec_encode(&delta, px, prev, w, h);
        FUZZ_CHECK(kn > 0 && (size_t)kn == kf.len && (size_t)kn <= bound, "keyframe length %ld (bound %zu)", kn, bound);
        FUZZ_CHECK(dn > 0 && (size_t)dn == delta.len && (size_t)dn <= bound, "delta length %ld (bound %zu)", dn, bound);
        FUZZ_CHECK(kn2 == kn && memcmp(kf.p, kf2.p, kf.len) == 0, "encoding is not deterministic");
        FUZZ_CHECK(!key || (size_t)kn <= len, "the encoder's keyframe (%ld bytes) is longer than a valid one (%zu)", kn, len);
        check_decodes_to(&kf, garbage, px, w, h, 1, "the keyframe");
        check_decodes_to(&delta, prev, px, w, h, 0, "the delta");
        if (memcmp(px, prev, n) == 0) FUZZ_CHECK(dn == 1 && delta.p[0] == 0, "an unchanged picture gave a %ld-byte delta", dn);
        wire_buf_free(&kf);
        wire_buf_free(&kf2);
        wire_buf_free(&delta);
    }
    free(garbage);
    free(px);
    free(prev);
    free(tiles);
    return 0;
}
