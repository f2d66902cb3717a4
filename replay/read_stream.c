/* read_stream.c — reading a session span by span for a reader that hands it on (the page's replay
 * stream, the one-file HTML export: read.h, rpl_checkpoint_exact and rpl_chunk_load), with the
 * same checks of damage verify makes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "read.h"

int rpl_checkpoint_exact(rpl_file *f, const rpl_session *s, uint64_t t, rpl_checkpoint *cp,
                         uint8_t **stored, size_t *slen, sim_world **w, rpl_tick_row *row,
                         int *have_row, char *err, size_t errlen)
{
    uint8_t *none = NULL;
    size_t nlen = 0;
    if (!stored) {
        stored = &none;
        slen = &nlen;
    }
    int rc = rpl_checkpoint_find_stored(f, s, t, RPL_AT_OR_BEFORE, cp, stored, slen, err, errlen);
    if (rc == 0 && cp->tick != t) {
        rpl_checkpoint_free(cp);
        free(*stored);
        *stored = NULL;
        rc = 1;
    }
    if (rc == 1) {
        snprintf(err, errlen, "session %lld: the checkpoint at tick %llu is gone", (long long)s->id,
                 (unsigned long long)t);
        return 1;
    }
    if (rc < 0) return rc == RPL_ECORRUPT ? 1 : rc;
    rc = rpl_world_load(s, cp, w, err, errlen);
    if (rc == 0) rc = rpl_tick_get(f, s->id, t, row, err, errlen);
    if (rc >= 0) {
        *have_row = rc == 0;
        rc = 0;
        if (*have_row && rpl_hash_differs(row->state_hash, cp->hash, row->bits)) {
            snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (its state hash "
                     "%016llx differs from the hash %016llx recorded for that tick)", (unsigned long long)t,
                     (long long)s->id, (unsigned long long)cp->hash, (unsigned long long)row->state_hash);
            rc = 1;
        }
    }
    if (rc == 0) {
        free(none);
        return 0;
    }
    rpl_checkpoint_free(cp);
    free(*stored);
    *stored = NULL;
    return rc;
}

int rpl_inputs_check(rpl_file *f, int64_t session, uint64_t from, uint64_t to, const sim_world *check,
                     char *err, size_t errlen)
{
    rpl_inputs *it;
    if (rpl_inputs_open(f, session, from, to, check, &it, err, errlen) != 0) return -1;
    sim_input in;
    int rc;
    while ((rc = rpl_inputs_next(it, &in)) == 1) {}
    if (rc < 0) snprintf(err, errlen, "%s", rpl_inputs_error(it));
    rpl_inputs_close(it);
    return rc == 0 ? 0 : rc == RPL_ECORRUPT ? 1 : -1;
}

void rpl_chunk_free(rpl_chunk *c)
{
    free(c->sh);
    free(c->bits);
    free(c->fh);
    free(c->in);
    memset(c, 0, sizeof *c);
}

int rpl_chunk_load(rpl_file *f, const rpl_session *s, uint64_t from, uint64_t to, size_t max_inputs,
                   rpl_chunk *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->from = from;
    rpl_tick_row *rows = NULL;
    rpl_inputs *it = NULL;
    size_t nrows = 0, cap = 0;
    int rc = rpl_ticks_load(f, s->id, from + 1, to, &rows, &nrows, err, errlen);
    if (rc != 0) goto failed;
    /* The rows of ticks from+1..to; one missing outside a gap is damage, after the tick before. */
    uint64_t have = 0;
    while (have < nrows && rows[have].tick == from + 1 + have) have++;
    int missing = from + have < to;
    if (missing) to = from + have;
    if ((rc = rpl_inputs_open(f, s->id, from, to, NULL, &it, err, errlen)) != 0) goto failed;
    sim_input x;
    while ((rc = rpl_inputs_next(it, &x)) == 1) {
        if (c->nin >= max_inputs && x.tick != c->in[c->nin - 1].tick) {
            to = x.tick;               /* the chunk ends before this tick; the next one starts there */
            missing = 0;
            break;
        }
        if (c->nin == cap) {
            size_t nc = cap ? cap * 2 : 64;
            sim_input *p = realloc(c->in, nc * sizeof *p);
            if (!p) {
                snprintf(err, errlen, "out of memory reading the input log");
                rc = RPL_ENOMEM;
                goto failed;
            }
            c->in = p;
            cap = nc;
        }
        c->in[c->nin++] = x;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s", rpl_inputs_error(it));
        goto failed;
    }
    c->to = to;
    c->n = (uint32_t)(to - from);
    if (c->n > 0) {
        c->sh = malloc(c->n * sizeof *c->sh);
        c->fh = malloc(c->n * sizeof *c->fh);
        if (!c->sh || !c->fh) {
            snprintf(err, errlen, "out of memory for the recorded hashes");
            rc = RPL_ENOMEM;
            goto failed;
        }
        for (uint32_t i = 0; i < c->n; i++) {
            c->sh[i] = rows[i].state_hash;
            c->fh[i] = rows[i].frame_hash;
            if (rows[i].bits < 64 && !c->bits) {
                c->bits = malloc(c->n);
                if (!c->bits) {
                    snprintf(err, errlen, "out of memory for the recorded hashes");
                    rc = RPL_ENOMEM;
                    goto failed;
                }
                memset(c->bits, 64, c->n);
            }
            if (c->bits) c->bits[i] = (uint8_t)rows[i].bits;
        }
    }
    if (missing) {
        c->missing = 1;
        snprintf(c->damage, sizeof c->damage, "session %lld of %s is damaged: the recorded hashes of "
                 "tick %llu are missing (no tick row or block of hashes holds them, and no gap covers them); every tick "
                 "before it matched", (long long)s->id, rpl_path(f), (unsigned long long)(to + 1));
    }
    rpl_inputs_close(it);
    free(rows);
    return 0;
failed:
    rpl_inputs_close(it);
    free(rows);
    rpl_chunk_free(c);
    return rc < 0 ? rc : RPL_EDB;
}
