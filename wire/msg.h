/* msg.h — one writer for every server-to-client message of docs/PROTOCOL.md. Each appends one
 * framed message (4-byte length + msgpack map) to a wire_buf, with the keys in the documented
 * order and every integer in its smallest msgpack form. vivd, the benchmarks and the tests all
 * build messages here, so a message's layout is written down once. Depends on sim/ (frames and
 * kinds), the tile codec and zstd; nothing of libuv or SQLite.
 *
 * Every writer returns the body length, or -1 when an allocation failed (b->oom is set then and
 * the buffer's contents are unusable). */
#ifndef VIVARIUM_WIRE_MSG_H
#define VIVARIUM_WIRE_MSG_H
#include <stddef.h>
#include <stdint.h>
#include "sim.h"
#include "wire.h"

/* ---- frame ------------------------------------------------------------------------------------- */
/* The encoding a stream asks for: "tile.zst" (the default), "tile", "raw". */
enum { WIRE_ENC_TILE, WIRE_ENC_RAW, WIRE_ENC_TILEZ };

/* Scratch for building frames: the tile encoding and a reusable zstd context. One per server
 * (or per benchmark): building a frame allocates nothing once these have grown. */
typedef struct wire_encoder {
    wire_buf scratch;
    void *zctx;            /* ZSTD_CCtx */
} wire_encoder;
int wire_encoder_init(wire_encoder *e);     /* 0, or -1: out of memory */
void wire_encoder_free(wire_encoder *e);

typedef struct wire_frame {
    uint32_t world;
    uint64_t tick;
    int key;               /* 1: the data stands alone; 0: a tile delta against prev */
    int with_pal;          /* carry the palette (always on keyframes) */
    int enc;               /* WIRE_ENC_…: what the stream asked for */
    uint64_t fh, sh;       /* frame hash, state hash */
    int32_t rect[4];       /* x, y, w, h of the world the frame shows (w 0: all of it) */
    int zlevel;            /* tile.zst: the zstd level (0: the default, 1; WIRE_ZLEVEL_NONE: send
                              the tile data uncompressed, as "tile") */
} wire_frame;
#define WIRE_ZLEVEL_NONE 100

/* The frame message of f. data: the tile encoding of f (a delta against prev unless key; prev
 * must then be f->w × f->h bytes), compressed as one stateless zstd frame at level 1 when the
 * stream asks for tile.zst, the tile bytes are over 32 and the result is smaller; or, for raw,
 * the pixels themselves. */
long wire_msg_frame(wire_encoder *e, wire_buf *b, const wire_frame *m, const sim_frame *f,
                    const uint8_t *prev);
/* The same message for a w × h picture with palette pal whose data the caller made: the tile
 * encoding (enc tile or tile.zst: compressed here as above) or the w·h pixels (enc raw). data
 * must not lie in b. */
long wire_msg_frame_data(wire_encoder *e, wire_buf *b, const wire_frame *m, int w, int h,
                         const sim_palette *pal, const uint8_t *data, size_t dlen);
/* The same message uncompressed (enc tile or raw), its data written by the caller where it goes:
 * wire_msg_frame_head writes the fields up to the data's bin header for dlen bytes, with room
 * reserved for them; the caller appends exactly dlen bytes to b; wire_msg_frame_tail ends it (the
 * body length, or -1 if oom). The bytes are wire_msg_frame_data's with zlevel NONE. */
int wire_msg_frame_head(wire_buf *b, const wire_frame *m, int w, int h, const sim_palette *pal,
                        size_t dlen);
long wire_msg_frame_tail(wire_buf *b, const wire_frame *m);

/* ---- reading a frame message (wire/frame_in.c) ----------------------------------------------------
 * The picture of one stream as a receiver rebuilds it: the client library's (clients/net.h,
 * cli_frame) and a relay's (server/relay.c). */
enum { WIRE_FRAME_OK = 0 };     /* and WIRE_FRAME_E…, -331..-359 of the one space (sim/errors.h) */
typedef struct wire_frame_in {
    uint32_t world;
    sim_frame f;
    int have_key;
    uint64_t tick;
    uint64_t sh, fh;       /* the last frame's state and frame hashes */
    int32_t rect[4];       /* the last frame's rect of the world (x, y, w, h; w 0: the whole) */
    uint8_t *zbuf;         /* decompressed tile data of a "tile.zst" frame */
    size_t zcap;
} wire_frame_in;
/* Apply a "frame" message: keyframes replace, deltas patch; palette when sent. Then the frame hash
 * is recomputed and compared with "fh". WIRE_FRAME_OK; WIRE_FRAME_EPROTO malformed (err says
 * why); WIRE_FRAME_EHASH a hash mismatch; WIRE_FRAME_ENOKEY a delta before any keyframe. After
 * an error the picture may be partly written: wait for the next keyframe. */
int wire_frame_apply(wire_frame_in *cf, const wire_msg *m, char *err, size_t errlen);
void wire_frame_in_free(wire_frame_in *cf);

/* ---- world descriptions (welcome, created) ------------------------------------------------------ */
typedef struct wire_play {
    int64_t session;
    uint64_t start, end;
    int paused;
    int speed;             /* percent of real time */
    const char *file;
} wire_play;

typedef struct wire_world {
    uint32_t id;
    const sim_kind *kind;
    uint64_t seed;
    const char *params;
    uint64_t tick;
    int w, h;
    const wire_play *play; /* a recording played back, or NULL */
} wire_world;

/* The entry map of one world (inside welcome's "worlds" and created's "world"). */
void wire_put_world(wire_buf *b, const wire_world *w);
void wire_put_play(wire_buf *b, const wire_play *p);

/* ---- replies ------------------------------------------------------------------------------------ */
long wire_msg_welcome(wire_buf *b, const char *server, const char *role, uint32_t client,
                      const wire_world *worlds, int nworlds);
/* The same, followed by world entries already encoded (each one msgpack map, as wire_put_world
 * wrote it: a cluster's worlds hosted elsewhere, server/relay.c). */
typedef struct wire_raw {
    const uint8_t *p;
    size_t n;
} wire_raw;
long wire_msg_welcome_raw(wire_buf *b, const char *server, const char *role, uint32_t client,
                          const wire_world *worlds, int nworlds, const wire_raw *more, int nmore);
long wire_msg_created(wire_buf *b, const wire_world *w);
/* {"t":"forked", "world":{entry}, "from":id, "tick":u64}: the answer to a fork. */
long wire_msg_forked(wire_buf *b, const wire_world *w, uint32_t from, uint64_t tick);
/* {"t":"opened", "world":{entry}, "session":i64, "file":str}: the answer to an open. */
long wire_msg_opened(wire_buf *b, const wire_world *w, int64_t session, const char *file);
long wire_msg_closed(wire_buf *b, uint32_t world);
/* events: the world events of one step of `world` (docs/PROTOCOL.md, events), to subscribers
 * that asked for them: tick is the tick whose step made them; each event a map {"name", "fields"};
 * "dropped" only when the step had more than it kept. */
long wire_msg_events(wire_buf *b, uint32_t world, uint64_t tick, const sim_event *ev, int n,
                     uint32_t dropped);
long wire_msg_playing(wire_buf *b, uint32_t world, uint64_t tick, const wire_play *p);
/* A viewer's own timeline on a world's recording (docs/PROTOCOL.md, timeline): where it is, and
 * the play map of the recording it plays; live (p NULL): back on the live world at `tick`. */
long wire_msg_timeline(wire_buf *b, uint32_t world, uint64_t tick, int live, const wire_play *p);
long wire_msg_ack(wire_buf *b, uint32_t seq, uint64_t tick);
/* n: the ping's "n" value as it was encoded (echoed byte for byte), or NULL for none. */
long wire_msg_pong(wire_buf *b, const uint8_t *n, size_t nlen);
/* seq: echoed when the message it answers had a valid one, or NULL. */
long wire_msg_error(wire_buf *b, const char *code, const char *msg, const int64_t *seq);

#define WIRE_LATE_BUCKETS 1002   /* stats' late_hist and work_hist: 0.1 ms buckets up to 100.1 ms,
                                    then one more */
typedef struct wire_world_stats {
    uint32_t id;
    uint64_t tick, ticks;
    uint64_t late_p50_us, late_p99_us, late_max_us;
    uint64_t work_p50_us, work_p99_us, work_max_us;
    uint64_t overruns, skipped;
    uint64_t subs;
    const uint32_t *late_hist; /* WIRE_LATE_BUCKETS counts (written as its non-zero buckets), or NULL */
    const uint32_t *work_hist; /* the same for the ticks' work */
} wire_world_stats;

typedef struct wire_stats {
    uint64_t clients, queued_bytes, queued_max;
    uint64_t frames_sent, bytes_sent, frames_skipped;
    uint64_t cpu_user_us, cpu_sys_us;
} wire_stats;

long wire_msg_stats(wire_buf *b, const wire_stats *s, const wire_world_stats *worlds, int nworlds);

/* ---- recordings: sessions and replay_… (wire/msg_replay.c) ---------------------------------------
 * The read-only messages that hand a recorded session to a client (docs/PROTOCOL.md, "sessions"
 * and "replay"). wire/ knows nothing of SQLite: the server fills these plain structs from
 * replay/. */
typedef struct wire_rec_session {
    int64_t id;
    const char *kind;
    uint64_t seed;
    const char *params;
    const char *sim_version;
    uint32_t hz;
    uint64_t start, end;       /* the session's tick range (end: its last committed tick) */
    const char *status;        /* "running", "suspended" or "closed" */
    int64_t world;             /* vivd's world id while it ran, or -1 */
} wire_rec_session;

typedef struct wire_rec_file {
    const char *file;          /* the path as vivd was given it */
    int recording;             /* vivd records into it (--db); else a --play file */
    uint64_t total;            /* sessions it holds */
    const wire_rec_session *sessions;   /* the newest of them, highest id first */
    size_t n;
    const char *error;         /* it could not be read: this sentence instead of sessions */
} wire_rec_file;

typedef struct wire_gap {
    uint64_t from, to;         /* [from, to): ticks nothing can verify */
    const char *reason;
} wire_gap;

long wire_msg_sessions(wire_buf *b, const wire_rec_file *files, size_t n);
long wire_msg_replay_info(wire_buf *b, const char *file, const wire_rec_session *s, uint64_t ticks,
                          uint32_t spans);
/* A span of the replay: its checkpoint's stored size and recorded state hash, the ranges skipped
 * just before it, and the recorded hashes of its start tick when that tick has a row (row: {sh,
 * fh}, or NULL). */
long wire_msg_replay_span(wire_buf *b, int64_t session, uint32_t span, uint64_t start, uint64_t end,
                          const wire_gap *skipped, size_t nskipped, uint32_t size, uint64_t sh,
                          const uint64_t *row, int row_bits);
long wire_msg_replay_state(wire_buf *b, int64_t session, uint32_t off, const uint8_t *data,
                           size_t len);
/* Steps from..from+n-1: the inputs applied at them (in (tick, client, seq) order) and the recorded
 * hashes of ticks from+1..from+n, sent as 8-byte little-endian rows. */
/* bits: NULL when every hash is whole, else n bytes: how many low bits of each tick's hashes are
 * recorded (64, 8, or 0: none) */
long wire_msg_replay_ticks(wire_buf *b, int64_t session, uint64_t from, uint32_t n,
                           const uint64_t *sh, const uint64_t *fh, const uint8_t *bits,
                           const sim_input *in, size_t nin);
long wire_msg_replay_damage(wire_buf *b, int64_t session, uint64_t after, const char *msg);
/* The stream's end: the ranges skipped after the last span, and (end_sh, or NULL) the recorded
 * state hash of the checkpoint at the session's last tick, when there is one. */
long wire_msg_replay_end(wire_buf *b, int64_t session, const wire_gap *skipped, size_t nskipped,
                         const uint64_t *end_sh);

#endif
