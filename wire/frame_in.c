/* frame_in.c — the reading side of a frame message (docs/PROTOCOL.md, "frame"): keyframes replace,
 * deltas patch, the palette when sent, then the frame hash is checked. The client library
 * (clients/net.c: viv view, viv bot, the tests) and vivd's relays (server/relay.c, which keep a
 * stream's picture so as to key a viewer that joins mid-stream) share it, so a frame is read by
 * one set of rules. Decoding never reads or writes outside its buffers, whatever the bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "codec.h"
#include "msg.h"

void wire_frame_in_free(wire_frame_in *cf)
{
    sim_frame_free(&cf->f);
    free(cf->zbuf);
    memset(cf, 0, sizeof *cf);
}

int wire_frame_apply(wire_frame_in *cf, const wire_msg *m, char *err, size_t errlen)
{
    uint64_t world, tick, w, h, pv, fh, sh;
    int key;
    const char *enc;
    size_t encl;
    const wire_val *data = wire_msg_get(m, "data"), *pal = wire_msg_get(m, "pal");
    if (wire_get_u64(m, "world", &world) || wire_get_u64(m, "tick", &tick) ||
        wire_get_bool(m, "key", &key) || wire_get_u64(m, "w", &w) || wire_get_u64(m, "h", &h) ||
        wire_get_u64(m, "pv", &pv) || wire_get_u64(m, "fh", &fh) || wire_get_u64(m, "sh", &sh) ||
        wire_get_str(m, "enc", &enc, &encl) || !data || data->type != WIRE_BIN) {
        snprintf(err, errlen, "frame message lacks a field or has a mistyped one");
        return WIRE_FRAME_EPROTO;
    }
    int32_t rect[4] = { 0, 0, 0, 0 };
    int nrect = 0;
    int rrc = wire_get_i32_array(m, "rect", rect, 4, &nrect);
    if (rrc == -2 || (rrc == 0 && (nrect != 4 || rect[2] < 1 || rect[3] < 1))) {
        snprintf(err, errlen, "rect must be [x, y, w, h] with w and h at least 1");
        return WIRE_FRAME_EPROTO;
    }
    if (w < 1 || w > 4096 || h < 1 || h > 4096) {
        snprintf(err, errlen, "frame size %llux%llu is out of range", (unsigned long long)w,
                 (unsigned long long)h);
        return WIRE_FRAME_EPROTO;
    }
    if (!cf->f.px || cf->f.w != w || cf->f.h != h) {
        if (!key) {
            snprintf(err, errlen, "a delta for a frame size never keyed");
            return WIRE_FRAME_ENOKEY;
        }
        sim_frame_free(&cf->f);
        if (sim_frame_init(&cf->f, (int)w, (int)h) != 0) {
            snprintf(err, errlen, "out of memory for a %llux%llu frame", (unsigned long long)w,
                     (unsigned long long)h);
            return WIRE_FRAME_EPROTO;
        }
        cf->have_key = 0;
    }
    if (!key && !cf->have_key) {
        snprintf(err, errlen, "a delta arrived before any keyframe");
        return WIRE_FRAME_ENOKEY;
    }
    if (pal) {
        if (pal->type != WIRE_BIN || pal->n % 3 || pal->n == 0 || pal->n > 768) {
            snprintf(err, errlen, "pal must be 3..768 bytes, a multiple of 3");
            return WIRE_FRAME_EPROTO;
        }
        memcpy(cf->f.pal.rgb, pal->p, pal->n);
        cf->f.pal.count = (uint16_t)(pal->n / 3);
    } else if (key) {
        snprintf(err, errlen, "a keyframe without its palette");
        return WIRE_FRAME_EPROTO;
    }
    cf->f.pal.version = (uint32_t)pv;
    if (wire_str_eq((const uint8_t *)enc, encl, "raw")) {
        if (data->n != w * h) {
            snprintf(err, errlen, "raw data is %u bytes, not %llu", data->n, (unsigned long long)(w * h));
            return WIRE_FRAME_EPROTO;
        }
        memcpy(cf->f.px, data->p, data->n);
    } else if (wire_str_eq((const uint8_t *)enc, encl, "tile.zst")) {
        /* One stateless zstd frame around tile data, never larger than codec_bound. */
        size_t bound = codec_bound((int)w, (int)h);
        unsigned long long content = ZSTD_getFrameContentSize(data->p, data->n);
        if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
            content > bound) {
            snprintf(err, errlen, "tile.zst data is not one zstd frame of at most %zu bytes", bound);
            return WIRE_FRAME_EPROTO;
        }
        if (cf->zcap < bound) {
            uint8_t *p = realloc(cf->zbuf, bound);
            if (!p) {
                snprintf(err, errlen, "out of memory");
                return WIRE_FRAME_EPROTO;
            }
            cf->zbuf = p;
            cf->zcap = bound;
        }
        size_t n = ZSTD_decompress(cf->zbuf, cf->zcap, data->p, data->n);
        if (ZSTD_isError(n) || codec_decode(cf->zbuf, n, cf->f.px, (int)w, (int)h, key) != CODEC_OK) {
            snprintf(err, errlen, "tile.zst data does not decode");
            cf->have_key = 0;
            return WIRE_FRAME_EPROTO;
        }
    } else if (wire_str_eq((const uint8_t *)enc, encl, "tile")) {
        if (codec_decode(data->p, data->n, cf->f.px, (int)w, (int)h, key) != CODEC_OK) {
            snprintf(err, errlen, "tile data does not decode");
            cf->have_key = 0;
            return WIRE_FRAME_EPROTO;
        }
    } else {
        snprintf(err, errlen, "unknown encoding '%.*s'", (int)encl, enc);
        return WIRE_FRAME_EPROTO;
    }
    cf->have_key = 1;
    cf->world = (uint32_t)world;
    cf->tick = tick;
    cf->sh = sh;
    cf->fh = fh;
    memcpy(cf->rect, rect, sizeof rect);
    if (sim_frame_hash(&cf->f) != fh) {
        snprintf(err, errlen, "frame hash mismatch at tick %llu", (unsigned long long)tick);
        return WIRE_FRAME_EHASH;
    }
    return WIRE_FRAME_OK;
}
