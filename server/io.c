/* io.c — I/O threads: the writes of TCP connections, off the tick thread.
 *
 * In the manner of Redis 6's I/O threads, the main loop keeps everything that decides — reading
 * and handling messages, the ticks, encode-once fan-out, the output limits and keyframe skipping
 * — and hands the one thing that costs, the write system calls (on loopback the kernel's TCP work
 * for the receiver too, ~10 µs a message), to I/O threads. Each thread has its own uv loop and its
 * own share of the connections (a connection is given to the thread with the fewest when it
 * subscribes: tcp.c moves it). A slow or stalled socket only ever fills its own queue on its own
 * thread; the loop never waits on one.
 *
 * Commands go one way, loop → thread, gathered in per-thread batches while the loop runs and
 * published once per turn of the loop, just before it polls (a prepare handle: Redis's
 * beforeSleep): one lock and one wake-up per thread per turn, however many messages. A thread
 * runs a batch in order — so a connection's messages are written in the order the loop sent
 * them — then writes each connection it touched with one sendmsg of as many messages as fit.
 *
 * Events go the other way, thread → loop: a write failed (the loop closes the client), or the
 * thread let go of a connection (the loop frees the client once its own handle is closed too).
 * They hang off the client itself (srv_tcp_io's ev_* fields, under the hub's lock), so posting one
 * never allocates and none is lost.
 *
 * What crosses threads: a message's reference count (atomic: the last unref frees it, on
 * whichever thread), a connection's count of bytes done (atomic: the loop reads queued = sent −
 * done for the limits), and the command batches and events (under a lock). A connection's writer
 * side (srv_ioconn) belongs to its thread from ATTACH on; the loop keeps only the pointer, as a
 * name to give commands. */
#define _GNU_SOURCE 1          /* sendmsg's MSG_NOSIGNAL, prctl's thread name */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "network.h"

#define IO_IOV 64                  /* iovecs per sendmsg: 32 messages (length + body each) */
#define IO_BATCH_MIN 256           /* commands in a thread's first batch (then doubling) */

enum { IO_ATTACH, IO_SEND, IO_FINISH };
typedef struct io_cmd {
    int op;
    srv_ioconn *k;
    srv_msg *m;                    /* IO_SEND: a reference the command holds */
} io_cmd;

typedef struct io_batch {
    struct io_batch *next;
    size_t n, cap;
    io_cmd v[];
} io_batch;

enum { K_LIVE, K_FAILED, K_CLOSING, K_UNWATCHED };   /* srv_ioconn.dead */

struct srv_ioconn {
    srv_io *io;
    srv_client *c;                 /* only c->tio.done (atomic) and the events, until released */
    int fd;                        /* a dup of the client's socket: ours to close */
    uv_poll_t poll;
    srv_msg **q;                   /* waiting to be written, oldest at q[head] */
    uint32_t head, n, cap;
    size_t off;                    /* framed bytes of q[head] already written */
    int polling, finish, shut, dirty;
    int dead;                      /* K_… below: live, failed, closing, never watched */
    srv_ioconn *next_dirty;
    srv_ioconn *close_next;        /* the closing lists (loop's, then published) */
    srv_ioconn *prev, *next;       /* the thread's connections */
};

struct srv_io {
    srv_iohub *hub;
    int index;
    uv_thread_t thread;
    uv_loop_t loop;
    uv_async_t wake;
    /* the loop's side */
    io_batch *out_head, *out_tail; /* gathered this turn */
    srv_ioconn *closing_out;
    int nconns;                    /* connections given to this thread and not yet let go */
    uint64_t last_pub;             /* the stamp of the last publish (1 + the loop's turn) */
    uint64_t pending_since;        /* uv_hrtime of the oldest publish not taken yet, or 0 */
    int behind;                    /* pending for over SRV_IO_LAG_MS: the thread is behind */
    /* published: under mu */
    uv_mutex_t mu;
    io_batch *in_head, *in_tail;
    srv_ioconn *closing_in;
    uint64_t pub_stamp;            /* last_pub, for the thread to take with the batches */
    int stop;
    _Atomic uint64_t taken;        /* the thread: the stamp of the last publish it took */
    /* the thread's side */
    srv_ioconn *conns;
    srv_ioconn *dirty;
    int started;
};

struct srv_iohub {
    srv *s;
    srv_io *io;
    int n;
    /* Two handles on the loop, in srv_net (they outlive the hub until their close callbacks):
     * io_flush publishes the batches before the loop polls; io_events: a thread posted an event. */
    uv_async_t *events;            /* &srv_net.io_events: open until the threads have ended */
    uv_mutex_t mu;                 /* the events: clients linked through tio.ev_next */
    srv_client *ev_head;
};

/* ---- the loop's side: gathering and publishing -------------------------------------------------- */
static int gather(srv_io *io, int op, srv_ioconn *k, srv_msg *m)
{
    io_batch *b = io->out_tail;
    if (!b || b->n == b->cap) {
        size_t cap = b ? b->cap * 2 : IO_BATCH_MIN;
        io_batch *nb = malloc(sizeof *nb + cap * sizeof nb->v[0]);
        if (!nb) return -1;
        nb->next = NULL;
        nb->n = 0;
        nb->cap = cap;
        if (b) b->next = nb;
        else io->out_head = nb;
        io->out_tail = b = nb;
    }
    b->v[b->n++] = (io_cmd){ op, k, m };
    return 0;
}

/* Once per turn of the loop: how far behind the thread is (for the limits: srv_io_behind), then
 * what was gathered this turn goes to it. */
static void publish(srv_io *io)
{
    uint64_t now = uv_hrtime();
    if (atomic_load_explicit(&io->taken, memory_order_relaxed) >= io->last_pub) io->pending_since = 0;
    io->behind = io->pending_since && now - io->pending_since > (uint64_t)SRV_IO_LAG_MS * 1000000u;
    if (!io->out_head && !io->closing_out) return;
    io->last_pub = io->hub->s->net->io_turn + 1;
    if (!io->pending_since) io->pending_since = now;
    uv_mutex_lock(&io->mu);
    io->pub_stamp = io->last_pub;
    if (io->out_head) {
        if (io->in_tail) io->in_tail->next = io->out_head;
        else io->in_head = io->out_head;
        io->in_tail = io->out_tail;
    }
    while (io->closing_out) {
        srv_ioconn *k = io->closing_out;
        io->closing_out = k->close_next;
        k->close_next = io->closing_in;
        io->closing_in = k;
    }
    uv_mutex_unlock(&io->mu);
    io->out_head = io->out_tail = NULL;
    uv_async_send(&io->wake);
}

static void on_flush(uv_prepare_t *h)
{
    srv_iohub *hub = h->data;
    if (!hub) return;
    for (int i = 0; i < hub->n; i++) publish(&hub->io[i]);
    hub->s->net->io_turn++;            /* what was gathered is the threads' now */
}

srv_io *srv_io_pick(srv *s)
{
    srv_iohub *hub = s->net->io;
    if (!hub || !hub->n) return NULL;
    srv_io *best = &hub->io[0];
    for (int i = 1; i < hub->n; i++)
        if (hub->io[i].nconns < best->nconns) best = &hub->io[i];
    return best;
}

int srv_io_behind(const srv_io *io)
{
    return io->behind;
}

int srv_io_index(const srv_io *io)
{
    return io->index + 1;
}

srv_ioconn *srv_io_attach(srv_io *io, srv_client *c, int fd)
{
    srv_ioconn *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->io = io;
    k->c = c;
    k->fd = fd;
    if (gather(io, IO_ATTACH, k, NULL) != 0) {
        free(k);
        return NULL;
    }
    io->nconns++;
    return k;
}

int srv_io_send(srv_ioconn *k, srv_msg *m)
{
    srv_msg_ref(m);
    if (gather(k->io, IO_SEND, k, m) != 0) {
        srv_msg_unref(m);
        return -1;
    }
    return 0;
}

int srv_io_finish(srv_ioconn *k)
{
    return gather(k->io, IO_FINISH, k, NULL);
}

void srv_io_close(srv_ioconn *k)
{
    /* A list through the connection itself: a close is never lost to a failed allocation. The
     * thread runs it after the commands published with it (its ATTACH among them). */
    k->close_next = k->io->closing_out;
    k->io->closing_out = k;
}

/* ---- the thread's side: writing ------------------------------------------------------------------ */
static void post_event(srv_io *io, srv_client *c, int err, int done)
{
    srv_iohub *hub = io->hub;
    uv_mutex_lock(&hub->mu);
    if (err && !c->tio.ev_err) c->tio.ev_err = err;
    if (done) c->tio.ev_done = 1;
    if (!c->tio.ev_queued) {
        c->tio.ev_queued = 1;
        c->tio.ev_next = hub->ev_head;
        hub->ev_head = c;
    }
    uv_mutex_unlock(&hub->mu);
    uv_async_send(hub->events);
}

/* Drop what is queued: counted done (the loop's queued figure falls), references released. */
static void discard(srv_ioconn *k)
{
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < k->n; i++) {
        srv_msg *m = k->q[(k->head + i) % k->cap];
        bytes += m->len - (i == 0 ? k->off : 0);
        srv_msg_unref(m);
    }
    k->n = k->head = 0;
    k->off = 0;
    atomic_fetch_add_explicit(&k->c->tio.done, bytes, memory_order_relaxed);
}

static void on_writable(uv_poll_t *p, int status, int events);

static void want_writable(srv_ioconn *k, int on)
{
    if (on == k->polling) return;
    k->polling = on;
    if (on) uv_poll_start(&k->poll, UV_WRITABLE, on_writable);
    else uv_poll_stop(&k->poll);
}

static void conn_fail(srv_ioconn *k, int err)
{
    k->dead = K_FAILED;
    discard(k);
    if (k->polling) want_writable(k, 0);
    post_event(k->io, k->c, err ? err : UV_EIO, 0);
}

/* Write as much of the queue as the kernel takes; then wait for room, or, once it is empty and
 * the last word was said, end our side. */
static void conn_write(srv_ioconn *k)
{
    while (k->n && !k->dead) {
        struct iovec iov[IO_IOV];
        int niov = 0;
        size_t skip = k->off;
        for (uint32_t i = 0; i < k->n && niov + 2 <= IO_IOV; i++) {
            srv_msg *m = k->q[(k->head + i) % k->cap];
            if (skip < 4) {
                iov[niov++] = (struct iovec){ m->prefix + skip, 4 - skip };
                iov[niov++] = (struct iovec){ SRV_MSG_BODY(m), SRV_MSG_BODYLEN(m) };
            } else {
                iov[niov++] = (struct iovec){ SRV_MSG_BODY(m) + (skip - 4), SRV_MSG_BODYLEN(m) - (skip - 4) };
            }
            skip = 0;
        }
        struct msghdr mh;
        memset(&mh, 0, sizeof mh);
        mh.msg_iov = iov;
        mh.msg_iovlen = (size_t)niov;
        ssize_t w = sendmsg(k->fd, &mh, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                atomic_store_explicit(&k->c->tio.stuck, 1, memory_order_relaxed);
                want_writable(k, 1);
                return;
            }
            conn_fail(k, -errno);
            return;
        }
        atomic_fetch_add_explicit(&k->c->tio.done, (uint64_t)w, memory_order_relaxed);
        size_t left = (size_t)w;
        while (left) {                 /* whole messages go; a part stays as the offset */
            srv_msg *m = k->q[k->head];
            size_t rest = m->len - k->off;
            if (left < rest) {
                k->off += left;
                break;
            }
            left -= rest;
            k->off = 0;
            k->head = (k->head + 1) % k->cap;
            k->n--;
            srv_msg_unref(m);
        }
    }
    if (k->dead) return;
    atomic_store_explicit(&k->c->tio.stuck, 0, memory_order_relaxed);
    want_writable(k, 0);
    if (k->cap > 1024) {              /* a burst is over: give its ring back */
        free(k->q);
        k->q = NULL;
        k->cap = k->head = 0;
    }
    if (k->finish && !k->shut) {
        k->shut = 1;
        if (shutdown(k->fd, SHUT_WR) != 0 && errno != ENOTCONN) conn_fail(k, -errno);
    }
}

static void on_writable(uv_poll_t *p, int status, int events)
{
    srv_ioconn *k = p->data;
    (void)events;
    if (status < 0) {
        conn_fail(k, status);
        return;
    }
    conn_write(k);
}

static void mark_dirty(srv_io *io, srv_ioconn *k)
{
    if (k->dirty) return;
    k->dirty = 1;
    k->next_dirty = io->dirty;
    io->dirty = k;
}

static void push(srv_ioconn *k, srv_msg *m)
{
    if (k->n == k->cap) {
        uint32_t nc = k->cap ? k->cap * 2 : 16;
        srv_msg **q = malloc(nc * sizeof *q);
        if (!q) {
            srv_msg_unref(m);
            atomic_fetch_add_explicit(&k->c->tio.done, m->len, memory_order_relaxed);
            conn_fail(k, UV_ENOMEM);
            return;
        }
        for (uint32_t i = 0; i < k->n; i++) q[i] = k->q[(k->head + i) % k->cap];
        free(k->q);
        k->q = q;
        k->cap = nc;
        k->head = 0;
    }
    k->q[(k->head + k->n) % k->cap] = m;
    k->n++;
}

/* The thread lets go of k: its descriptor closes (the socket with it, once the loop's is closed
 * too), and the loop hears of it last. */
static void conn_release(srv_ioconn *k)
{
    srv_io *io = k->io;
    close(k->fd);
    if (k->prev) k->prev->next = k->next;
    else io->conns = k->next;
    if (k->next) k->next->prev = k->prev;
    free(k->q);
    srv_client *c = k->c;
    free(k);
    post_event(io, c, 0, 1);       /* the last word about c from this thread */
}

static void on_conn_closed(uv_handle_t *h)
{
    conn_release(h->data);
}

static void conn_close(srv_ioconn *k)
{
    if (k->dead == K_CLOSING) return;
    discard(k);
    if (k->dead == K_UNWATCHED) {      /* its poll handle never initialised: nothing to close */
        conn_release(k);
        return;
    }
    k->dead = K_CLOSING;
    uv_close((uv_handle_t *)&k->poll, on_conn_closed);
}

static void run_cmd(srv_io *io, const io_cmd *cmd)
{
    srv_ioconn *k = cmd->k;
    switch (cmd->op) {
    case IO_ATTACH:
        k->next = io->conns;
        if (io->conns) io->conns->prev = k;
        io->conns = k;
        if (uv_poll_init_socket(&io->loop, &k->poll, k->fd) != 0) {
            /* Cannot watch it: failed, and the loop closes the client. */
            k->dead = K_UNWATCHED;
            post_event(io, k->c, UV_EBADF, 0);
            return;
        }
        k->poll.data = k;
        return;
    case IO_SEND:
        atomic_fetch_add_explicit(&k->c->tio.seen, cmd->m->len, memory_order_relaxed);
        if (k->dead) {
            atomic_fetch_add_explicit(&k->c->tio.done, cmd->m->len, memory_order_relaxed);
            srv_msg_unref(cmd->m);
            return;
        }
        push(k, cmd->m);
        mark_dirty(io, k);
        return;
    case IO_FINISH:
        k->finish = 1;
        mark_dirty(io, k);
        return;
    }
}

static void on_wake(uv_async_t *a)
{
    srv_io *io = a->data;
    uv_mutex_lock(&io->mu);
    io_batch *b = io->in_head;
    srv_ioconn *closing = io->closing_in;
    int stop = io->stop;
    uint64_t stamp = io->pub_stamp;
    io->in_head = io->in_tail = NULL;
    io->closing_in = NULL;
    uv_mutex_unlock(&io->mu);
    atomic_store_explicit(&io->taken, stamp, memory_order_relaxed);
    while (b) {
        for (size_t i = 0; i < b->n; i++) run_cmd(io, &b->v[i]);
        io_batch *nx = b->next;
        free(b);
        b = nx;
    }
    for (srv_ioconn *k = io->dirty, *nx; k; k = nx) {
        nx = k->next_dirty;
        k->dirty = 0;
        k->next_dirty = NULL;
        if (!k->dead) conn_write(k);
    }
    io->dirty = NULL;
    while (closing) {
        srv_ioconn *k = closing;
        closing = k->close_next;
        conn_close(k);
    }
    if (stop) {
        for (srv_ioconn *k = io->conns, *nx; k; k = nx) {
            nx = k->next;
            conn_close(k);
        }
        uv_close((uv_handle_t *)&io->wake, NULL);
    }
}

static void io_thread(void *arg)
{
    srv_io *io = arg;
    char name[16];
    snprintf(name, sizeof name, "vivd-io%d", (io->index + 1) % 100);
    prctl(PR_SET_NAME, name, 0, 0, 0);
    uv_run(&io->loop, UV_RUN_DEFAULT);
}

/* ---- the loop's side: events ------------------------------------------------------------------------- */
static void take_events(srv_iohub *hub)
{
    uv_mutex_lock(&hub->mu);
    srv_client *list = hub->ev_head;
    hub->ev_head = NULL;
    /* Copy each client's events out under the lock: a thread may be adding to them (and link
     * it anew through ev_next) as soon as the lock is let go. */
    for (srv_client *c = list; c; c = c->tio.ev_next) {
        c->tio.ev_local_next = c->tio.ev_next;
        c->tio.ev_queued = 0;
        c->tio.ev_got_err = c->tio.ev_err;
        c->tio.ev_got_done = c->tio.ev_done;
        c->tio.ev_err = 0;
        c->tio.ev_done = 0;
    }
    uv_mutex_unlock(&hub->mu);
    for (srv_client *c = list, *nx; c; c = nx) {
        nx = c->tio.ev_local_next;
        int err = c->tio.ev_got_err, done = c->tio.ev_got_done;
        if (err) srv_tcp_io_failed(c, err);
        if (done) {
            srv_io *io = c->tio.io;
            io->nconns--;
            srv_tcp_io_released(c);     /* may free c */
        }
    }
}

static void on_events(uv_async_t *a)
{
    if (a->data) take_events(a->data);
}

/* ---- start and stop ------------------------------------------------------------------------------------ */
int srv_io_start(srv *s, int n, char *err, size_t errlen)
{
    if (n <= 0) return 0;
    srv_net *net = s->net;
    srv_iohub *hub = calloc(1, sizeof *hub);
    if (!hub || !(hub->io = calloc((size_t)n, sizeof *hub->io))) {
        free(hub);
        snprintf(err, errlen, "out of memory");
        return SRV_ENOMEM;
    }
    hub->s = s;
    uv_mutex_init(&hub->mu);
    net->io = hub;
    uv_prepare_init(s->loop, &net->io_flush);
    net->io_flush.data = hub;
    uv_prepare_start(&net->io_flush, on_flush);
    uv_unref((uv_handle_t *)&net->io_flush);          /* never what keeps the loop running */
    uv_async_init(s->loop, &net->io_events, on_events);
    net->io_events.data = hub;
    hub->events = &net->io_events;
    uv_unref((uv_handle_t *)&net->io_events);
    for (int i = 0; i < n; i++) {
        srv_io *io = &hub->io[i];
        io->hub = hub;
        io->index = i;
        uv_mutex_init(&io->mu);
        int rc = uv_loop_init(&io->loop);
        if (!rc) {
            rc = uv_async_init(&io->loop, &io->wake, on_wake);
            io->wake.data = io;
            if (!rc) {
                rc = uv_thread_create(&io->thread, io_thread, io);
                if (rc) {
                    uv_close((uv_handle_t *)&io->wake, NULL);
                    uv_run(&io->loop, UV_RUN_DEFAULT);
                }
            }
            if (rc) uv_loop_close(&io->loop);
        }
        if (rc) {
            uv_mutex_destroy(&io->mu);
            snprintf(err, errlen, "cannot start I/O thread %d: %s", i + 1, uv_strerror(rc));
            srv_io_stop(s);
            return SRV_EINVAL;
        }
        hub->n = i + 1;
    }
    return 0;
}

int srv_io_threads(const srv *s)
{
    return s->net && s->net->io ? s->net->io->n : 0;
}

void srv_io_stop(srv *s)
{
    srv_iohub *hub = s->net ? s->net->io : NULL;
    if (!hub) return;
    for (int i = 0; i < hub->n; i++) {
        srv_io *io = &hub->io[i];
        publish(io);
        uv_mutex_lock(&io->mu);
        io->stop = 1;
        uv_mutex_unlock(&io->mu);
        uv_async_send(&io->wake);
    }
    for (int i = 0; i < hub->n; i++) {
        srv_io *io = &hub->io[i];
        uv_thread_join(&io->thread);
        uv_loop_close(&io->loop);
        uv_mutex_destroy(&io->mu);
    }
    take_events(hub);                  /* every connection's DONE: their clients are freed */
    /* The handles close with the loop (their memory is srv_net's); nothing reaches the hub. */
    s->net->io_flush.data = NULL;
    s->net->io_events.data = NULL;
    uv_prepare_stop(&s->net->io_flush);
    if (!uv_is_closing((uv_handle_t *)&s->net->io_flush)) uv_close((uv_handle_t *)&s->net->io_flush, NULL);
    if (!uv_is_closing((uv_handle_t *)&s->net->io_events)) uv_close((uv_handle_t *)&s->net->io_events, NULL);
    uv_mutex_destroy(&hub->mu);
    free(hub->io);
    free(hub);
    s->net->io = NULL;
}

void srv_io_flush(srv *s)
{
    srv_iohub *hub = s->net ? s->net->io : NULL;
    for (int i = 0; hub && i < hub->n; i++) publish(&hub->io[i]);
}
