/* worlds.c — the worlds vivd hosts: building, joining and closing them, their frame cache and
 * their inputs. When they tick is server/sched.c's business. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "files.h"
#include "host.h"
#include "pool.h"

void srv_world_invalidate(srv_world *w)
{
    for (int v = 0; v < w->kind->nviews; v++) w->cache.frame_tick[v] = UINT64_MAX;
    w->cache.sh_tick = UINT64_MAX;
}

const sim_frame *srv_world_frame(srv_world *w, int view, uint64_t *fh)
{
    srv_frame_cache *fc = &w->cache;
    uint64_t tick = sim_world_tick(w->w);
    if (fc->frame_tick[view] != tick) {
        sim_world_render(w->w, view, &fc->frames[view]);
        const sim_frame *f = &fc->frames[view];
        fc->frame_fh[view] = srv_frame_hash_rect(f, 0, 0, f->w, f->h);
        fc->frame_tick[view] = tick;
    }
    *fh = fc->frame_fh[view];
    return &fc->frames[view];
}

uint64_t srv_world_state_hash(srv_world *w)
{
    srv_frame_cache *fc = &w->cache;
    uint64_t tick = sim_world_tick(w->w);
    if (fc->sh_tick != tick &&
        (sim_world_save_max(w->w) >= SIM_HASH_STREAM_MIN || !sim_world_hash_is_saved(w->w))) {
        /* a big state, or one hashed in a form of its own (sand's chunk digests): as it is
         * written, no copy */
        fc->sh = srv_world_hash_stream(w->w);
        fc->sh_tick = tick;
    } else if (fc->sh_tick != tick) {
        /* sim_world_hash's definition here (XXH3-64 of the saved bytes; 0 when the save fails), saved
         * here so that srv_xxh3 may hash it with wider vectors. */
        size_t cap = sim_world_save_max(w->w);
        if (fc->saved_cap < cap) {
            uint8_t *p = realloc(fc->saved, cap);
            if (p) {
                fc->saved = p;
                fc->saved_cap = cap;
            }
        }
        if (fc->saved_cap >= cap) {
            size_t n = sim_world_save(w->w, fc->saved, cap);
            fc->sh = n ? srv_xxh3(fc->saved, n) : 0;
        } else {
            fc->sh = sim_world_hash(w->w);     /* out of memory for a copy: sim's own scratch */
        }
        fc->sh_tick = tick;
    }
    return fc->sh;
}

int srv_world_takes_inputs(srv *s, const srv_world *w)
{
    if (w->play) return SRV_EPLAY;
    if (w->busy) return SRV_EBUSY;           /* held by a worker: its tick is not the loop's */
    if (srv_record_failing(s)) {
        s->rec_out.inputs++;                 /* for record.c's "still failing" line */
        return SRV_ELOG;
    }
    return 0;
}

int srv_world_input(srv *s, srv_world *w, const sim_input *in, char *err, size_t errlen)
{
    int rc = srv_world_takes_inputs(s, w);
    if (rc) return rc;
    if (srv_acks_reserve(&w->acks) != 0) return SRV_ENOMEM;
    rc = sim_world_input(w->w, in);
    if (rc) {
        /* The world's refusal, in the host's terms: the sentence is the world's own. */
        snprintf(err, errlen, "%s", sim_world_error(w->w));
        return rc == SIM_EFULL ? SRV_EFULL : rc == SIM_EDUP ? SRV_EDUP : SRV_EINPUT;
    }
    srv_acks_push(&w->acks, in->client, in);
    return 0;
}

int srv_world_shows_paused(const srv_world *w)
{
    return w->play && !w->busy && srv_play_paused(w);
}

srv_world *srv_world_build(sim_world *sw, char *err, size_t errlen)
{
    srv_world *w = calloc(1, sizeof *w);
    const sim_kind *k = sim_world_kind(sw);
    if (!w) goto oom;
    w->w = sw;
    w->kind = k;
    w->rec.session = -1;
    w->seed = sim_world_seed(sw);
    snprintf(w->params, sizeof w->params, "%s", sim_world_params(sw));
    sim_world_frame_size(sw, &w->fw, &w->fh);
    srv_frame_cache *fc = &w->cache;
    fc->frames = calloc((size_t)k->nviews, sizeof *fc->frames);
    fc->frame_tick = calloc((size_t)k->nviews, sizeof *fc->frame_tick);
    fc->frame_fh = calloc((size_t)k->nviews, sizeof *fc->frame_fh);
    if (!fc->frames || !fc->frame_tick || !fc->frame_fh) goto oom;
    for (int v = 0; v < k->nviews; v++) {
        if (sim_frame_init(&fc->frames[v], w->fw, w->fh) != 0) goto oom;
        fc->frame_tick[v] = UINT64_MAX;
    }
    fc->sh_tick = UINT64_MAX;
    w->sched.period_ns = 1000000000ull / k->hz;
    w->sched.speed = 100;
    return w;
oom:
    snprintf(err, errlen, "out of memory hosting the world");
    if (w) srv_world_free(w);
    else sim_world_destroy(sw);
    return NULL;
}

void srv_world_join(srv *s, srv_world *w)
{
    sim_world_set_tasks(w->w, pool_tasks(s->pool));   /* new, resumed and played worlds alike */
    w->sched.t0 = uv_hrtime();
    w->sched.tick_base = sim_world_tick(w->w);
    w->id = s->next_world_id++;
    s->worlds[s->nworlds++] = w;
}

/* Host a sim world at once (start-up, and the tests that build a server by hand). Takes sw. */
static srv_world *host(srv *s, sim_world *sw, char *err, size_t errlen)
{
    srv_world *w = srv_world_build(sw, err, errlen);
    if (w) srv_world_join(s, w);
    return w;
}

srv_world *srv_world_new(const char *kind, uint64_t seed, const char *params, int local, int *rc,
                         char *err, size_t errlen)
{
    sim_config cfg = sim_config_default();
    cfg.kind = kind;
    cfg.seed = seed;
    cfg.params = params;
    cfg.err = err;
    cfg.errlen = errlen;
    cfg.files = local ? &rpl_files : NULL;
    int src;
    sim_world *sw = sim_world_create(&cfg, &src);
    if (!sw) {
        if (!err[0]) snprintf(err, errlen, "%s", sim_strerror(src));
        *rc = src == SIM_EKIND ? SRV_EKIND : src == SIM_EPARAM ? SRV_EPARAM : src == SIM_EFILE ? SRV_EFILE
            : src == SIM_ENOMEM ? SRV_ENOMEM : SRV_EWORLD;
        return NULL;
    }
    srv_world *w = srv_world_build(sw, err, errlen);
    *rc = w ? 0 : SRV_ENOMEM;
    return w;
}

void srv_world_begin(srv *s, srv_world *w)
{
    srv_log(s, SRV_LOG_INFO, "world %u: %s seed=%" PRIu64 " %s (%dx%d, %u Hz)", w->id, w->kind->name,
            w->seed, w->params, w->fw, w->fh, (unsigned)w->kind->hz);
    srv_record_begin(s, w);
}

static int add_world(srv *s, const char *kind, uint64_t seed, const char *params, int local,
                     char *err, size_t errlen)
{
    if (s->nworlds + s->ncreating >= SRV_MAX_WORLDS) {
        snprintf(err, errlen, "the server already hosts %d worlds (the limit)", SRV_MAX_WORLDS);
        return SRV_ELIMIT;
    }
    int rc;
    srv_world *w = srv_world_new(kind, seed, params, local, &rc, err, errlen);
    if (!w) return rc;
    srv_world_join(s, w);
    srv_world_begin(s, w);
    return (int)w->id;
}

int srv_world_add(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                  size_t errlen)
{
    return add_world(s, kind, seed, params, 0, err, errlen);
}

int srv_world_add_local(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                        size_t errlen)
{
    return add_world(s, kind, seed, params, 1, err, errlen);
}

srv_world *srv_world_adopt(srv *s, sim_world *sw, char *err, size_t errlen)
{
    if (s->nworlds + s->ncreating >= SRV_MAX_WORLDS) {
        snprintf(err, errlen, "the server already hosts %d worlds (the limit)", SRV_MAX_WORLDS);
        sim_world_destroy(sw);
        return NULL;
    }
    return host(s, sw, err, errlen);
}

void srv_world_free(srv_world *w)
{
    if (!w) return;
    srv_frame_cache *fc = &w->cache;
    if (fc->frames)
        for (int v = 0; v < w->kind->nviews; v++) sim_frame_free(&fc->frames[v]);
    free(fc->frames);
    free(fc->frame_tick);
    free(fc->frame_fh);
    free(fc->saved);
    srv_acks_free(&w->acks);
    srv_record_free(w);
    srv_play_free(w->play);
    sim_world_destroy(w->w);
    free(w);
}

srv_world *srv_world_find(srv *s, uint32_t id)
{
    for (int i = 0; i < s->nworlds; i++)
        if (s->worlds[i]->id == id) return s->worlds[i];
    return NULL;
}

static void refuse_closed(void *ud, const srv_ack *a, int ok)
{
    const srv *s = ud;
    (void)ok;
    if (s->ev.input_refused) s->ev.input_refused(s->ev.ud, a->client, a->seq, SRV_REFUSED_WORLD_CLOSED);
}

/* Close a world: the network side is told (its subscribers), its pending inputs are refused, and
 * it is freed. */
void srv_world_close(srv *s, srv_world *w)
{
    if (s->ev.world_closed) s->ev.world_closed(s->ev.ud, w);
    srv_record_end(s, w);
    srv_acks_drain(&w->acks, refuse_closed, s);
    for (int i = 0; i < s->nworlds; i++)
        if (s->worlds[i] == w) {
            memmove(&s->worlds[i], &s->worlds[i + 1], (size_t)(s->nworlds - i - 1) * sizeof *s->worlds);
            s->nworlds--;
            break;
        }
    srv_log(s, SRV_LOG_INFO, "world %u closed after %" PRIu64 " ticks", w->id, w->stats.ticks);
    /* A worker still holds a busy world (a seek): it is freed when the job comes back. */
    if (w->busy) w->closed = 1;
    else srv_world_free_later(s, w);
}

uint64_t srv_world_tick(const srv_world *w)
{
    return w->busy ? w->busy_tick : sim_world_tick(w->w);
}

