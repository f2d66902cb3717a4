/* read_hashes.c — the recorded hashes of a session (docs/REPLAY.md, "Recorded hashes"): schema 3's
 * tick rows and schema 4's blocks read together, and a compacted session's thinned ticks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "read_int.h"

/* ---- recorded hashes ------------------------------------------------------------------------------ */
static int hashes_row(sqlite3_stmt *st, void *one, void *ud, char *err, size_t errlen)
{
    rpl_tick_row *r = one;
    if (rd_tick_col(st, 0, &r->tick) != 0) {
        snprintf(err, errlen, "session %lld has a damaged row of recorded hashes (its tick is not "
                 "a whole number: the file is damaged)", (long long)*(const int64_t *)ud);
        return RPL_ECORRUPT;
    }
    r->state_hash = (uint64_t)sqlite3_column_int64(st, 1);
    r->frame_hash = (uint64_t)sqlite3_column_int64(st, 2);
    r->bits = 64;
    return 0;
}

/* The ticks of the hashes table's blocks that fall in [from, to], appended to v as they are read
 * (blocks come in tick order). */
typedef struct block_read {
    int64_t session;
    uint64_t from, to;
    rpl_tick_row *v;
    size_t n, cap;
} block_read;

/* One block: its n ticks (the last with whole hashes, the others with their recorded low bits,
 * or none when thinned) into br. RPL_ECORRUPT with a sentence for a row no writer makes. */
static int block_row(sqlite3_stmt *st, void *one, void *ud, char *err, size_t errlen)
{
    block_read *br = ud;
    uint64_t t0;
    int64_t n = sqlite3_column_int64(st, 1);
    const uint8_t *data = sqlite3_column_blob(st, 4);
    int len = sqlite3_column_bytes(st, 4);
    if (rd_tick_col(st, 0, &t0) != 0 || sqlite3_column_type(st, 1) != SQLITE_INTEGER || n < 1 ||
        n > RPL_HASH_BLOCK || t0 > UINT64_MAX - (uint64_t)n || sqlite3_column_type(st, 4) != SQLITE_BLOB) {
        snprintf(err, errlen, "session %lld has a damaged block of recorded hashes (its tick, its "
                 "length or its data is not what a recorder writes: the file is damaged)",
                 (long long)br->session);
        return RPL_ECORRUPT;
    }
    size_t k = (size_t)n - 1;
    uint8_t bytes[2 * RPL_HASH_BLOCK];
    int bits = len ? RPL_HASH_BITS : 0;
    if (len && k) {
        size_t got = 0;
        if (data[0] == RPL_HASHES_RAW && (size_t)len == 1 + 2 * k) {
            memcpy(bytes, data + 1, 2 * k);
            got = 2 * k;
        } else if (data[0] == RPL_HASHES_ZSTD) {
            size_t z = ZSTD_decompress(bytes, sizeof bytes, data + 1, (size_t)len - 1);
            got = ZSTD_isError(z) ? 0 : z;
        }
        if (got != 2 * k) {
            snprintf(err, errlen, "the block of recorded hashes at tick %llu of session %lld is "
                     "damaged (its data does not hold the hashes of its %lld ticks)",
                     (unsigned long long)t0, (long long)br->session, (long long)n);
            return RPL_ECORRUPT;
        }
    }
    if (br->n && t0 + k >= br->from && t0 <= br->v[br->n - 1].tick) {
        snprintf(err, errlen, "session %lld has overlapping blocks of recorded hashes (the block at "
                 "tick %llu starts inside the one before it: the file is damaged)",
                 (long long)br->session, (unsigned long long)t0);
        return RPL_ECORRUPT;
    }
    for (size_t i = 0; i <= k; i++) {
        uint64_t t = t0 + i;
        if (t < br->from || t > br->to) continue;
        if (rd_grow((void **)&br->v, &br->cap, br->n, sizeof *br->v) != 0) {
            snprintf(err, errlen, "out of memory reading the recorded hashes");
            return RPL_ENOMEM;
        }
        rpl_tick_row *r = &br->v[br->n++];
        r->tick = t;
        if (i == k) {
            r->state_hash = (uint64_t)sqlite3_column_int64(st, 2);
            r->frame_hash = (uint64_t)sqlite3_column_int64(st, 3);
            r->bits = 64;
        } else {
            r->state_hash = bits ? bytes[i] : 0;
            r->frame_hash = bits ? bytes[k + i] : 0;
            r->bits = bits;
        }
    }
    return 0;
}

const char *rpl_hash_hex(char *buf, uint64_t v, int bits)
{
    if (bits >= 64) {
        snprintf(buf, 17, "%016llx", (unsigned long long)v);
        return buf;
    }
    int digits = bits > 0 ? (bits + 3) / 4 : 0;
    memset(buf, '.', 16);
    buf[16] = '\0';
    if (digits) snprintf(buf + 16 - digits, (size_t)digits + 1, "%0*llx", digits,
                         (unsigned long long)(v & ((UINT64_C(1) << bits) - 1)));
    return buf;
}

/* a and b (each ascending) into one ascending array: a tick in both keeps the row that holds more
 * of its hashes. *out malloc'd (NULL when both are empty). */
static int merge_rows(const rpl_tick_row *a, size_t na, const rpl_tick_row *b, size_t nb,
                      rpl_tick_row **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!na && !nb) return 0;
    rpl_tick_row *v = malloc((na + nb) * sizeof *v);
    if (!v) return RPL_ENOMEM;
    size_t i = 0, j = 0, m = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i].tick < b[j].tick)) v[m++] = a[i++];
        else if (i == na || b[j].tick < a[i].tick) v[m++] = b[j++];
        else {
            v[m++] = a[i].bits >= b[j].bits ? a[i] : b[j];
            i++, j++;
        }
        if (m > 1 && v[m - 1].tick == v[m - 2].tick) m--;   /* overlapping blocks: damage */
    }
    *out = v;
    *n = m;
    return 0;
}

static int ticks_read(rpl_file *f, int64_t session, uint64_t from, uint64_t to, rpl_tick_row **v,
                      size_t *n, char *err, size_t errlen);

/* A compacted session (its grain row: docs/REPLAY.md, "Compaction and retention") was thinned on
 * purpose: each of its ticks in [from, to] with no hashes left, outside its gaps, is read as a
 * row of 0 bits (recorded, nothing kept to compare), as a thinned block's ticks are. v (n rows,
 * ascending) is replaced. 0, or a negative code with a sentence. */
static int fill_thinned(rpl_file *f, int64_t session, uint64_t from, uint64_t to, rpl_tick_row **v,
                        size_t *n, char *err, size_t errlen)
{
    rpl_grain g;
    int code = rpl_grain_get(f, session, &g, err, errlen);
    if (code <= 0) return code;
    rpl_session s;
    rpl_gap *gaps = NULL;
    size_t ng = 0;
    if ((code = rpl_session_get(f, session, &s, err, errlen)) != 0 ||
        (code = rpl_gaps_list(f, session, &gaps, &ng, err, errlen)) != 0)
        return code;
    uint64_t lo = from > s.start_tick + 1 ? from : s.start_tick + 1, hi = to < s.end_tick ? to : s.end_tick;
    if (lo > hi || hi - lo >= ((uint64_t)1 << 28)) {   /* nothing to fill, or a range no session has */
        free(gaps);
        return 0;
    }
    size_t cap = (size_t)(hi - lo + 1) + *n, m = 0, i = 0, k = 0;
    rpl_tick_row *out = malloc(cap * sizeof *out);
    if (!out) {
        free(gaps);
        snprintf(err, errlen, "out of memory reading the recorded hashes");
        return RPL_ENOMEM;
    }
    for (; i < *n && (*v)[i].tick < lo; i++) out[m++] = (*v)[i];
    for (uint64_t t = lo; t <= hi; t++) {
        while (k < ng && gaps[k].to <= t) k++;
        if (i < *n && (*v)[i].tick == t) out[m++] = (*v)[i++];
        else if (!(k < ng && gaps[k].from <= t)) out[m++] = (rpl_tick_row){ .tick = t, .bits = 0 };
    }
    for (; i < *n; i++) out[m++] = (*v)[i];
    free(gaps);
    free(*v);
    *v = out;
    *n = m;
    return 0;
}

int rpl_ticks_load(rpl_file *f, int64_t session, uint64_t from, uint64_t to, rpl_tick_row **v,
                   size_t *n, char *err, size_t errlen)
{
    int code = ticks_read(f, session, from, to, v, n, err, errlen);
    if (code == 0 && (code = fill_thinned(f, session, from, to, v, n, err, errlen)) != 0) {
        free(*v);
        *v = NULL;
        *n = 0;
    }
    return code;
}

/* The rows the file holds for the session's ticks in [from, to] (rpl_ticks_load without the
 * thinned ticks of a compacted session). */
static int ticks_read(rpl_file *f, int64_t session, uint64_t from, uint64_t to, rpl_tick_row **v,
                      size_t *n, char *err, size_t errlen)
{
    query q = { .sql = "SELECT tick, state_hash, frame_hash FROM tick WHERE session = ? AND "
                       "tick BETWEEN ? AND ? ORDER BY tick",
                .bind = { session, rd_tick_arg(from), rd_tick_arg(to) }, .nbind = 3,
                .what = "the recorded hashes", .oom = "out of memory reading the recorded hashes",
                .size = sizeof **v, .row = hashes_row, .ud = &session };
    int code = rd_query_rows(f, &q, (void **)v, n, err, errlen);
    if (code || rpl_schema(f) < 4) return code;
    /* A block that covers `from` starts at most RPL_HASH_BLOCK - 1 ticks before it. */
    block_read br = { .session = session, .from = from, .to = to };
    uint64_t lo = from > RPL_HASH_BLOCK - 1 ? from - (RPL_HASH_BLOCK - 1) : 0;
    query qb = { .sql = "SELECT tick, n, last_sh, last_fh, data FROM hashes WHERE session = ? AND "
                        "tick BETWEEN ? AND ? ORDER BY tick",
                 .bind = { session, rd_tick_arg(lo), rd_tick_arg(to) }, .nbind = 3,
                 .what = "the recorded hashes", .row = block_row, .ud = &br };
    size_t nb;
    code = rd_query_rows(f, &qb, NULL, &nb, err, errlen);
    if (code == 0 && br.n) {
        rpl_tick_row *m;
        size_t nm;
        if (merge_rows(*v, *n, br.v, br.n, &m, &nm) != 0) {
            snprintf(err, errlen, "out of memory reading the recorded hashes");
            code = RPL_ENOMEM;
        } else {
            free(*v);
            *v = m;
            *n = nm;
        }
    }
    free(br.v);
    if (code) {
        free(*v);
        *v = NULL;
        *n = 0;
    }
    return code;
}

int rpl_tick_get(rpl_file *f, int64_t session, uint64_t tick, rpl_tick_row *out, char *err,
                 size_t errlen)
{
    rpl_tick_row *v;
    size_t n;
    int code = rpl_ticks_load(f, session, tick, tick, &v, &n, err, errlen);
    if (code) return code;
    if (n) *out = v[0];
    free(v);
    return n ? 0 : 1;
}

