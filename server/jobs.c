/* jobs.c — slow work off the loop, on libuv's thread pool (uv_queue_work).
 *
 * The loop ticks every world on time; anything that takes longer than a fraction of a tick runs
 * on a worker instead: building a world a client asked for (a 640×480 cycle scene paints for
 * ~0.1 s, a merge world bakes its RotSprite angles for ~94 ms), a recording's seek (a
 * checkpoint read from SQLite and loaded, then up to 10 s of logged ticks replayed), and freeing
 * a closed world. The loop
 * hands a job its inputs and takes the result back in the after-work callback, on the loop.
 * In between, the job's world belongs to the worker alone — sim/ stays free of threads, and a
 * world is touched by one thread at a time: a world being built is not hosted yet (nobody else
 * can reach it), and a hosted world given to a worker is marked busy (srv_world.busy), which the
 * scheduler, fan-out and the handlers respect.
 *
 * Start-up (--world, the demo set, resuming sessions, --play) builds on the spot: the loop has
 * not started, so nothing ticks that it could delay. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "host.h"

/* The worker yields to the loop: on a busy machine the ticks come first. On Linux the nice value
 * is a thread's own (setpriority with who 0: the calling thread); a worker of libuv's pool only
 * ever runs vivd's jobs. Raising it needs no privilege; failing to is harmless. */
#define SRV_JOB_NICE 10
static void worker_yields(void)
{
    if (getpriority(PRIO_PROCESS, 0) < SRV_JOB_NICE && setpriority(PRIO_PROCESS, 0, SRV_JOB_NICE) != 0) {
        /* not permitted here: the job runs at the loop's priority */
    }
}

typedef struct srv_job {
    uv_work_t req;
    srv *s;
    struct srv_job *next, *prev;   /* s->jobs */
    srv_world *w;                  /* a create: the world built (NULL: failed); else the busy one */
    /* a create */
    int create;
    uint32_t client;
    char kind[64];
    uint64_t seed;
    char params[SIM_PARAMS_MAX];
    int rc;
    char err[256];
    uint64_t t0;                   /* uv_hrtime when it was asked for */
    /* work on a hosted world */
    void (*work)(srv_world *w, void *arg);
    void (*done)(srv *s, srv_world *w, void *arg);
    void *arg;
    /* work on nothing hosted (srv_job_run) */
    void (*gwork)(void *arg);
    void (*gdone)(srv *s, void *arg, int cancelled);
} srv_job;

static void link_job(srv *s, srv_job *j)
{
    j->s = s;
    j->req.data = j;
    j->prev = NULL;
    j->next = s->jobs;
    if (s->jobs) s->jobs->prev = j;
    s->jobs = j;
}

static void unlink_job(srv *s, srv_job *j)
{
    if (j->prev) j->prev->next = j->next;
    else s->jobs = j->next;
    if (j->next) j->next->prev = j->prev;
}

/* ---- creating a world ---------------------------------------------------------------------------- */
/* On a worker: only the job's own fields (a network create never reads a file: local = 0). */
static void create_work(uv_work_t *req)
{
    srv_job *j = req->data;
    worker_yields();
    j->w = srv_world_new(j->kind, j->seed, j->params, 0, &j->rc, j->err, sizeof j->err);
}

/* On the loop: host the world from now (it joins the schedule and the recording), or report why
 * not. A server that is stopping discards it: it was never hosted, so nothing of it is recorded. */
static void create_done(uv_work_t *req, int status)
{
    srv_job *j = req->data;
    srv *s = j->s;
    unlink_job(s, j);
    s->ncreating--;
    if (status == UV_ECANCELED || s->stopping) {
        srv_world_free(j->w);
        free(j);
        return;
    }
    if (!j->w) {
        if (s->ev.world_created) s->ev.world_created(s->ev.ud, j->client, NULL, j->rc, j->err);
        free(j);
        return;
    }
    srv_world *w = j->w;
    srv_world_join(s, w);
    srv_world_begin(s, w);
    srv_log(s, SRV_LOG_DEBUG, "world %u was built off the loop in %.1f ms", w->id,
            (double)(uv_hrtime() - j->t0) / 1e6);
    srv_tick_kick(s);
    if (s->ev.world_created) s->ev.world_created(s->ev.ud, j->client, w, 0, NULL);
    free(j);
}

int srv_world_create_async(srv *s, const char *kind, uint64_t seed, const char *params,
                           uint32_t client, char *err, size_t errlen)
{
    if (s->nworlds + s->ncreating >= SRV_MAX_WORLDS) {
        snprintf(err, errlen, "the server already hosts %d worlds (the limit)", SRV_MAX_WORLDS);
        return SRV_ELIMIT;
    }
    /* What is cheap to check is answered at once, with the same sentences a create gives. */
    const sim_kind *k = sim_kind_find(kind);
    if (!k) {
        int rc;
        srv_world *w = srv_world_new(kind, seed, params, 0, &rc, err, errlen);   /* fails at once */
        srv_world_free(w);
        return w ? SRV_EKIND : rc;
    }
    sim_params p;
    if (sim_params_parse(k, params, &p, NULL, 0, err, errlen) != 0) return SRV_EPARAM;
    srv_job *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(err, errlen, "out of memory");
        return SRV_ENOMEM;
    }
    if (strlen(kind) >= sizeof j->kind || strlen(params) >= sizeof j->params) {
        free(j);
        snprintf(err, errlen, "the kind or params text is too long");
        return SRV_EPARAM;
    }
    j->create = 1;
    j->client = client;
    snprintf(j->kind, sizeof j->kind, "%s", kind);
    snprintf(j->params, sizeof j->params, "%s", params);
    j->seed = seed;
    j->t0 = uv_hrtime();
    link_job(s, j);
    int rc = uv_queue_work(s->loop, &j->req, create_work, create_done);
    if (rc != 0) {
        unlink_job(s, j);
        free(j);
        snprintf(err, errlen, "cannot queue the create: %s", uv_strerror(rc));
        return SRV_EWORLD;
    }
    s->ncreating++;
    return 0;
}

/* ---- work on a hosted world ------------------------------------------------------------------------ */
static void world_work(uv_work_t *req)
{
    srv_job *j = req->data;
    worker_yields();
    j->work(j->w, j->arg);
}

static void world_done(uv_work_t *req, int status)
{
    srv_job *j = req->data;
    srv *s = j->s;
    srv_world *w = j->w;
    unlink_job(s, j);
    (void)status;              /* cancelled (stopping) or not, done releases what arg holds */
    w->busy = 0;
    j->done(s, w, j->arg);
    if (w->closed) srv_world_free_later(s, w);    /* closed while the worker held it */
    free(j);
}

int srv_world_job(srv *s, srv_world *w, void (*work)(srv_world *w, void *arg),
                  void (*done)(srv *s, srv_world *w, void *arg), void *arg)
{
    srv_job *j = calloc(1, sizeof *j);
    if (!j) return SRV_ENOMEM;
    j->w = w;
    j->work = work;
    j->done = done;
    j->arg = arg;
    j->t0 = uv_hrtime();
    /* From here the loop leaves w->w alone: what clients are shown stays at this tick. */
    w->busy_tick = sim_world_tick(w->w);
    w->busy = 1;
    link_job(s, j);
    if (uv_queue_work(s->loop, &j->req, world_work, world_done) != 0) {
        unlink_job(s, j);
        w->busy = 0;
        free(j);
        return SRV_ENOMEM;
    }
    return 0;
}

/* ---- work on nothing hosted yet (a timeline being built: play.c) ---------------------------------- */
static void plain_work(uv_work_t *req)
{
    srv_job *j = req->data;
    worker_yields();
    j->gwork(j->arg);
}

static void plain_done(uv_work_t *req, int status)
{
    srv_job *j = req->data;
    unlink_job(j->s, j);
    j->gdone(j->s, j->arg, status == UV_ECANCELED);
    free(j);
}

int srv_job_run(srv *s, void (*work)(void *arg), void (*done)(srv *s, void *arg, int cancelled), void *arg)
{
    srv_job *j = calloc(1, sizeof *j);
    if (!j) return SRV_ENOMEM;
    j->gwork = work;
    j->gdone = done;
    j->arg = arg;
    link_job(s, j);
    if (uv_queue_work(s->loop, &j->req, plain_work, plain_done) != 0) {
        unlink_job(s, j);
        free(j);
        return SRV_ENOMEM;
    }
    return 0;
}

/* ---- freeing a closed world ------------------------------------------------------------------------- */
/* Its memory goes back on a worker too: a large world frees megabytes (munmap, page by page). */
static void free_work(uv_work_t *req)
{
    srv_job *j = req->data;
    srv_world_free(j->w);
    j->w = NULL;
}

static void free_done(uv_work_t *req, int status)
{
    srv_job *j = req->data;
    unlink_job(j->s, j);
    (void)status;
    srv_world_free(j->w);              /* cancelled (stopping): not freed yet */
    free(j);
}

void srv_world_free_later(srv *s, srv_world *w)
{
    srv_job *j = calloc(1, sizeof *j);
    if (!j) {
        srv_world_free(w);
        return;
    }
    j->w = w;
    link_job(s, j);
    if (uv_queue_work(s->loop, &j->req, free_work, free_done) != 0) {
        unlink_job(s, j);
        free(j);
        srv_world_free(w);
    }
}

void srv_jobs_cancel(srv *s)
{
    /* A job already running cannot be stopped; it finishes and its result is discarded. */
    for (srv_job *j = s->jobs; j; j = j->next) uv_cancel((uv_req_t *)&j->req);
}
