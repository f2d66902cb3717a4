/* msg_replay.c — the writers of the recording messages (msg.h, docs/PROTOCOL.md "sessions" and
 * "replay"): one each, keys in the documented order, integers in their smallest form. */
#include <string.h>
#include "msg.h"

static void begin(wire_buf *b, const char *t, uint32_t nfields)
{
    wire_msg_begin(b);
    wire_put_map(b, nfields + 1);
    wire_put_str(b, "t");
    wire_put_str(b, t);
}

/* The fields a session entry and replay_info share: 9, and "world" when there is one. */
static uint32_t session_fields(const wire_rec_session *s)
{
    return s->world >= 0 ? 10 : 9;
}

static void put_session_fields(wire_buf *b, const wire_rec_session *s)
{
    wire_put_str(b, "session"); wire_put_int(b, s->id);
    wire_put_str(b, "kind"); wire_put_str(b, s->kind);
    wire_put_str(b, "seed"); wire_put_uint(b, s->seed);
    wire_put_str(b, "params"); wire_put_str(b, s->params);
    wire_put_str(b, "sim_version"); wire_put_str(b, s->sim_version);
    wire_put_str(b, "hz"); wire_put_uint(b, s->hz);
    wire_put_str(b, "start"); wire_put_uint(b, s->start);
    wire_put_str(b, "end"); wire_put_uint(b, s->end);
    wire_put_str(b, "status"); wire_put_str(b, s->status);
    if (s->world >= 0) {
        wire_put_str(b, "world");
        wire_put_int(b, s->world);
    }
}

long wire_msg_sessions(wire_buf *b, const wire_rec_file *files, size_t n)
{
    begin(b, "sessions", 1);
    wire_put_str(b, "files");
    wire_put_array(b, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        const wire_rec_file *f = &files[i];
        wire_put_map(b, 4);
        wire_put_str(b, "file"); wire_put_str(b, f->file);
        wire_put_str(b, "recording"); wire_put_bool(b, f->recording);
        wire_put_str(b, "total"); wire_put_uint(b, f->total);
        if (f->error) {
            wire_put_str(b, "error");
            wire_put_str(b, f->error);
            continue;
        }
        wire_put_str(b, "sessions");
        wire_put_array(b, (uint32_t)f->n);
        for (size_t k = 0; k < f->n; k++) {
            wire_put_map(b, session_fields(&f->sessions[k]));
            put_session_fields(b, &f->sessions[k]);
        }
    }
    return wire_msg_end(b);
}

long wire_msg_replay_info(wire_buf *b, const char *file, const wire_rec_session *s, uint64_t ticks,
                          uint32_t spans)
{
    begin(b, "replay_info", session_fields(s) + 3);
    put_session_fields(b, s);
    wire_put_str(b, "file"); wire_put_str(b, file);
    wire_put_str(b, "ticks"); wire_put_uint(b, ticks);
    wire_put_str(b, "spans"); wire_put_uint(b, spans);
    return wire_msg_end(b);
}

static void put_gaps(wire_buf *b, const wire_gap *g, size_t n)
{
    wire_put_array(b, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        wire_put_array(b, 3);
        wire_put_uint(b, g[i].from);
        wire_put_uint(b, g[i].to);
        wire_put_str(b, g[i].reason);
    }
}

long wire_msg_replay_span(wire_buf *b, int64_t session, uint32_t span, uint64_t start, uint64_t end,
                          const wire_gap *skipped, size_t nskipped, uint32_t size, uint64_t sh,
                          const uint64_t *row, int row_bits)
{
    begin(b, "replay_span", 6 + (nskipped ? 1 : 0) + (row ? 1 : 0));
    wire_put_str(b, "session"); wire_put_int(b, session);
    wire_put_str(b, "span"); wire_put_uint(b, span);
    wire_put_str(b, "start"); wire_put_uint(b, start);
    wire_put_str(b, "end"); wire_put_uint(b, end);
    if (nskipped) {
        wire_put_str(b, "skipped");
        put_gaps(b, skipped, nskipped);
    }
    wire_put_str(b, "size"); wire_put_uint(b, size);
    wire_put_str(b, "sh"); wire_put_uint(b, sh);
    if (row) {
        wire_put_str(b, "row");
        wire_put_array(b, row_bits < 64 ? 3 : 2);
        wire_put_uint(b, row[0]);
        wire_put_uint(b, row[1]);
        if (row_bits < 64) wire_put_uint(b, (uint64_t)(row_bits < 0 ? 0 : row_bits));
    }
    return wire_msg_end(b);
}

long wire_msg_replay_state(wire_buf *b, int64_t session, uint32_t off, const uint8_t *data,
                           size_t len)
{
    begin(b, "replay_state", 3);
    wire_put_str(b, "session"); wire_put_int(b, session);
    wire_put_str(b, "off"); wire_put_uint(b, off);
    wire_put_str(b, "data"); wire_put_bin(b, data, len);
    return wire_msg_end(b);
}

/* n u64 values as 8n bytes, little-endian. */
static void put_u64s(wire_buf *b, const uint64_t *v, uint32_t n)
{
    wire_put_bin_header(b, (size_t)n * 8);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t le[8];
        for (int k = 0; k < 8; k++) le[k] = (uint8_t)(v[i] >> (8 * k));
        wire_put_raw(b, le, 8);
    }
}

long wire_msg_replay_ticks(wire_buf *b, int64_t session, uint64_t from, uint32_t n,
                           const uint64_t *sh, const uint64_t *fh, const uint8_t *bits,
                           const sim_input *in, size_t nin)
{
    begin(b, "replay_ticks", bits ? 7 : 6);
    wire_put_str(b, "session"); wire_put_int(b, session);
    wire_put_str(b, "from"); wire_put_uint(b, from);
    wire_put_str(b, "n"); wire_put_uint(b, n);
    wire_put_str(b, "sh"); put_u64s(b, sh, n);
    wire_put_str(b, "fh"); put_u64s(b, fh, n);
    if (bits) {
        wire_put_str(b, "bits");
        wire_put_bin(b, bits, n);
    }
    wire_put_str(b, "inputs");
    wire_put_array(b, (uint32_t)nin);
    for (size_t i = 0; i < nin; i++) {
        wire_put_array(b, 5);
        wire_put_uint(b, in[i].tick);
        wire_put_uint(b, in[i].client);
        wire_put_uint(b, in[i].seq);
        wire_put_uint(b, in[i].kind);
        wire_put_array(b, in[i].nargs);
        for (int a = 0; a < in[i].nargs && a < SIM_INPUT_MAX_ARGS; a++) wire_put_int(b, in[i].args[a]);
    }
    return wire_msg_end(b);
}

long wire_msg_replay_damage(wire_buf *b, int64_t session, uint64_t after, const char *msg)
{
    begin(b, "replay_damage", 3);
    wire_put_str(b, "session"); wire_put_int(b, session);
    wire_put_str(b, "after"); wire_put_uint(b, after);
    wire_put_str(b, "msg"); wire_put_str(b, msg);
    return wire_msg_end(b);
}

long wire_msg_replay_end(wire_buf *b, int64_t session, const wire_gap *skipped, size_t nskipped,
                         const uint64_t *end_sh)
{
    begin(b, "replay_end", 1 + (nskipped != 0) + (end_sh != NULL));
    wire_put_str(b, "session"); wire_put_int(b, session);
    if (nskipped) {
        wire_put_str(b, "skipped");
        put_gaps(b, skipped, nskipped);
    }
    if (end_sh) {
        wire_put_str(b, "end_sh");
        wire_put_uint(b, *end_sh);
    }
    return wire_msg_end(b);
}
