/* e2e.c — see e2e.h. */
#define _GNU_SOURCE 1
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "e2e.h"

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Start bin/vivd with extra args (NULL-terminated); wait for its port file. fsize > 0 limits the
 * size of files it may write (RLIMIT_FSIZE: a full disk); log & E2E_LOG sends its stderr to
 * <dir>/vivd.log; log & E2E_OWN_TOKENS gives it no token (flags or environment). */
void server_start_opts(server *sv, const char *const *extra, long fsize, int log)
{
    const char *bin = getenv("VIV_BIN");
    char vivd[512], portfile[128], dbfile[128], httpfile[128], webdir[128];
    snprintf(vivd, sizeof vivd, "%s/vivd", bin ? bin : "../bin");
    snprintf(sv->dir, sizeof sv->dir, "/tmp/vivtest.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(sv->dir));
    snprintf(portfile, sizeof portfile, "%s/port", sv->dir);
    snprintf(dbfile, sizeof dbfile, "%s/replay.db", sv->dir);
    const char *argv[96];
    int n = 0;
    argv[n++] = vivd;
    argv[n++] = "--listen";
    argv[n++] = "127.0.0.1:0";
    argv[n++] = "--port-file";
    argv[n++] = portfile;
    if (!(log & E2E_OWN_TOKENS)) {
        argv[n++] = "--admin-token";
        argv[n++] = ADMIN;
        argv[n++] = "--player-token";
        argv[n++] = PLAYER;
    }
    argv[n++] = "--quiet";
    int has_db = 0, has_http = 0, no_http = 0, has_web = 0;
    for (int i = 0; extra && extra[i]; i++) {
        has_db |= strcmp(extra[i], "--db") == 0 || strcmp(extra[i], "--no-record") == 0;
        has_http |= strcmp(extra[i], "--http") == 0;
        no_http |= strcmp(extra[i], "--no-http") == 0;
        has_web |= strcmp(extra[i], "--web") == 0;
    }
    snprintf(httpfile, sizeof httpfile, "%s/http-port", sv->dir);
    sv->http[0] = '\0';
    if (!no_http) {
        if (!has_http) {
            argv[n++] = "--http";
            argv[n++] = "127.0.0.1:0";
        }
        argv[n++] = "--http-port-file";
        argv[n++] = httpfile;
        if (!has_web) {
            snprintf(webdir, sizeof webdir, "%s/web", sv->dir);
            ck_assert_int_eq(mkdir(webdir, 0700), 0);
            char index[160];
            snprintf(index, sizeof index, "%s/index.html", webdir);
            FILE *fp = fopen(index, "w");
            ck_assert_ptr_nonnull(fp);
            fputs("<!doctype html><title>vivarium test</title>\n", fp);
            fclose(fp);
            argv[n++] = "--web";
            argv[n++] = webdir;
        }
    }
    if (!has_db) {                     /* record into the test's own directory, never ./vivarium.db */
        argv[n++] = "--db";
        argv[n++] = dbfile;
    }
    for (int i = 0; extra && extra[i]; i++) {
        ck_assert_int_lt(n, 94);
        argv[n++] = extra[i];
    }
    argv[n] = NULL;
    sv->pid = fork();
    ck_assert_int_ge(sv->pid, 0);
    if (sv->pid == 0) {
        if (fsize > 0) {
            struct rlimit rl = { (rlim_t)fsize, (rlim_t)RLIM_INFINITY };
            signal(SIGXFSZ, SIG_IGN);             /* writes past the limit fail with EFBIG */
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        if (log & E2E_OWN_TOKENS) {
            unsetenv("VIVD_ADMIN_TOKEN");
            unsetenv("VIVD_PLAYER_TOKEN");
        }
        if (log & E2E_LOG) {
            char lp[160];
            snprintf(lp, sizeof lp, "%s/vivd.log", sv->dir);
            if (!freopen(lp, "w", stderr)) _exit(126);
        }
        execv(vivd, (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", vivd, strerror(errno));
        _exit(127);
    }
    for (int i = 0; i < 1000; i++) {
        FILE *fp = fopen(portfile, "r");
        int port = 0;
        if (fp) {
            int ok = fscanf(fp, "%d", &port);
            fclose(fp);
            if (ok == 1 && port > 0) {
                snprintf(sv->addr, sizeof sv->addr, "127.0.0.1:%d", port);
                /* vivd writes the HTTP port's file first, when it serves HTTP */
                int hport = 0;
                FILE *hf = no_http ? NULL : fopen(httpfile, "r");
                if (hf) {
                    if (fscanf(hf, "%d", &hport) != 1) hport = 0;
                    fclose(hf);
                }
                if (hport > 0) snprintf(sv->http, sizeof sv->http, "127.0.0.1:%d", hport);
                return;
            }
        }
        int st;
        if (waitpid(sv->pid, &st, WNOHANG) == sv->pid) ck_abort_msg("vivd exited at start-up");
        usleep(10000);
    }
    ck_abort_msg("vivd did not write its port file");
}

void server_start(server *sv, const char *const *extra)
{
    server_start_opts(sv, extra, 0, 0);
}

int server_stop_keep(server *sv)
{
    kill(sv->pid, SIGTERM);
    int st = 0;
    for (int i = 0; i < 3000; i++) {
        pid_t r = waitpid(sv->pid, &st, WNOHANG);
        if (r == sv->pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(10000);
    }
    kill(sv->pid, SIGKILL);
    waitpid(sv->pid, &st, 0);
    return -1;
}

void server_cleanup(server *sv)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", sv->dir);
    if (system(cmd) != 0) { /* a leftover temp dir is harmless */ }
}

/* SIGTERM and wait (at most 30 s); returns the exit status, or -1 if it had to be killed. */
int server_stop(server *sv)
{
    int rc = server_stop_keep(sv);
    server_cleanup(sv);
    return rc;
}

void connect_hello(cli_conn *c, const server *sv, const char *name, const char *token,
                          wire_msg *welcome)
{
    char err[256];
    ck_assert_msg(cli_connect(c, sv->addr, err, sizeof err) == 0, "%s", err);
    wire_msg tmp;
    ck_assert_msg(cli_hello(c, name, token, welcome ? welcome : &tmp, err, sizeof err) == 0, "%s", err);
}

/* The world ids and kinds listed in a welcome. */
int welcome_worlds(const wire_msg *welcome, uint32_t *ids, char kinds[][16], int max)
{
    const wire_val *ws = wire_msg_get(welcome, "worlds");
    ck_assert_ptr_nonnull(ws);
    ck_assert_int_eq(ws->type, WIRE_ARRAY);
    const uint8_t *it = ws->p, *end = ws->raw + ws->rawlen;
    int n = 0;
    wire_val w;
    while (n < max && it < end && wire_next(&it, end, &w) == 0) {
        ck_assert_int_eq(w.type, WIRE_MAP);
        wire_msg wm;
        ck_assert_int_eq(wire_msg_decode(w.raw, w.rawlen, &wm), 0);
        uint64_t id;
        const char *k;
        size_t kl;
        ck_assert_int_eq(wire_get_u64(&wm, "id", &id), 0);
        ck_assert_int_eq(wire_get_str(&wm, "kind", &k, &kl), 0);
        ids[n] = (uint32_t)id;
        snprintf(kinds[n], 16, "%.*s", (int)kl, k);
        n++;
    }
    return n;
}

void send_msg(cli_conn *c, wire_buf *b)
{
    ck_assert_int_eq(cli_send(c, b), 0);
    wire_buf_reset(b);
}

void sub(cli_conn *c, uint32_t world, uint32_t every, const char *enc, const char *view)
{
    wire_buf b;
    wire_buf_init(&b);
    cli_put_sub(&b, world, every, enc, view);
    send_msg(c, &b);
    wire_buf_free(&b);
}

void track_frame(tracker *t, const wire_msg *m)
{
    char err[256];
    uint64_t world, tick;
    ck_assert_int_eq(wire_get_u64(m, "world", &world), 0);
    ck_assert_int_eq(wire_get_u64(m, "tick", &tick), 0);
    ck_assert_uint_lt(world, 16);
    int rc = cli_frame_apply(&t->f[world], m, err, sizeof err);
    ck_assert_msg(rc == 0, "world %llu tick %llu: %s", (unsigned long long)world,
                  (unsigned long long)tick, err);
    int key;
    wire_get_bool(m, "key", &key);
    if (t->count[world] == 0) ck_assert_msg(key, "the first frame of a subscription must be a keyframe");
    else if (tick != t->last_tick[world] + (t->every[world] ? t->every[world] : 1)) t->gaps++;
    if (t->every[world] > 1) ck_assert_uint_eq(tick % t->every[world], 0);
    t->keys[world] += key;
    t->count[world]++;
    t->last_tick[world] = tick;
}

/* Receive for at most timeout_ms in all, applying frames; returns 1 at the first message that is
 * not a frame (in *m), 0 when the time is up. */
int recv_until_not_frame(cli_conn *c, tracker *t, wire_msg *m, int timeout_ms)
{
    char err[256];
    double end = now_s() + timeout_ms / 1000.0;
    for (;;) {
        int left = (int)((end - now_s()) * 1000.0);
        int rc = cli_recv_msg(c, left > 0 ? left : 0, m, err, sizeof err);
        ck_assert_msg(rc >= 0, "receive: %s", err);
        if (rc == 0) return 0;
        if (!cli_msg_is(m, "frame")) return 1;
        track_frame(t, m);
    }
}

/* ---- bad input ---------------------------------------------------------------------------------- */
void put_kv_str(wire_buf *b, const char *k, const char *v) { wire_put_str(b, k); wire_put_str(b, v); }

/* Send raw body bytes (framed) and expect an error with `code` (and optionally a disconnect). */
void expect_error(cli_conn *c, tracker *t, const uint8_t *body, size_t len, const char *code)
{
    uint8_t hdr[4] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len };
    ck_assert_int_eq(cli_send_raw(c, hdr, 4), 0);
    ck_assert_int_eq(cli_send_raw(c, body, len), 0);
    wire_msg m;
    ck_assert_msg(recv_until_not_frame(c, t, &m, 5000) == 1, "no reply; wanted %s", code);
    ck_assert_msg(cli_msg_is(&m, "error"), "wanted error %s", code);
    const char *got;
    size_t gl;
    ck_assert_int_eq(wire_get_str(&m, "code", &got, &gl), 0);
    ck_assert_msg(wire_str_eq((const uint8_t *)got, gl, code), "wanted %s, got %.*s", code, (int)gl, got);
    const char *msg;
    size_t ml;
    ck_assert_int_eq(wire_get_str(&m, "msg", &msg, &ml), 0);
    ck_assert_uint_gt(ml, 5);                             /* a sentence, not just a code */
}

void expect_error_msg(cli_conn *c, tracker *t, wire_buf *b, const char *code)
{
    ck_assert(!b->oom);
    expect_error(c, t, b->p + 4, b->len - 4, code);
    wire_buf_reset(b);
}

void expect_closed(cli_conn *c)
{
    char err[256];
    wire_msg m;
    for (int i = 0; i < 100000; i++) {
        int rc = cli_recv_msg(c, 5000, &m, err, sizeof err);
        if (rc < 0) return;
        ck_assert_msg(rc != 0, "the server did not disconnect");
    }
}

void send_paint(cli_conn *c, uint32_t seq, int x, int y, int r, int el, acked *log, uint32_t client)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 5);
    put_kv_str(&b, "t", "input");
    wire_put_str(&b, "world"); wire_put_uint(&b, 1);
    wire_put_str(&b, "seq"); wire_put_uint(&b, seq);
    put_kv_str(&b, "kind", "paint");
    wire_put_str(&b, "args"); wire_put_array(&b, 4);
    wire_put_int(&b, x); wire_put_int(&b, y); wire_put_int(&b, r); wire_put_int(&b, el);
    wire_msg_end(&b);
    send_msg(c, &b);
    wire_buf_free(&b);
    memset(log, 0, sizeof *log);
    log->client = client;
    log->seq = seq;
    log->in.client = client;
    log->in.seq = seq;
    log->in.kind = 0;
    log->in.nargs = 4;
    log->in.args[0] = x; log->in.args[1] = y; log->in.args[2] = r; log->in.args[3] = el;
}

uint32_t welcome_client(const wire_msg *w)
{
    uint64_t id;
    ck_assert_int_eq(wire_get_u64(w, "client", &id), 0);
    return (uint32_t)id;
}

/* Wait for the ack of (conn, seq); record its tick. */
void wait_ack(cli_conn *c, tracker *t, acked *a)
{
    wire_msg m;
    ck_assert_msg(recv_until_not_frame(c, t, &m, 5000) == 1, "no ack for seq %u", a->seq);
    ck_assert_msg(cli_msg_is(&m, "ack"), "expected an ack");
    uint64_t seq, tick;
    ck_assert_int_eq(wire_get_u64(&m, "seq", &seq), 0);
    ck_assert_int_eq(wire_get_u64(&m, "tick", &tick), 0);
    ck_assert_uint_eq(seq, a->seq);
    a->tick = tick;
    a->in.tick = tick;
}

/* ---- the replay log -------------------------------------------------------------------------------- */
int count_rows(const char *db, const char *sql)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sqlite3 -readonly '%s' \"%s\"", db, sql);
    FILE *fp = popen(cmd, "r");
    int n = -1;
    if (fp && fscanf(fp, "%d", &n) != 1) n = -1;
    if (fp) pclose(fp);
    return n;
}

int file_count(const char *path, const char *needle)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, fp)) n += strstr(line, needle) != NULL;
    fclose(fp);
    return n;
}

int file_contains(const char *path, const char *needle)
{
    return file_count(path, needle) > 0;
}

/* ---- slow clients ------------------------------------------------------------------------------- */
long rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *fp = fopen(path, "r");
    long kb = -1;
    while (fp && fgets(line, sizeof line, fp))
        if (strncmp(line, "VmRSS:", 6) == 0) kb = atol(line + 6);
    if (fp) fclose(fp);
    return kb;
}

int open_fds(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

void connect_small_rcvbuf(cli_conn *c, const server *sv, int rcvbuf)
{
    memset(c, 0, sizeof *c);
    const char *colon = strrchr(sv->addr, ':');
    ck_assert_ptr_nonnull(colon);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)atoi(colon + 1));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(c->fd, 0);
    ck_assert_int_eq(setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf), 0);
    ck_assert_msg(connect(c->fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect: %s", strerror(errno));
}

void stats_ask(cli_conn *c, tracker *t, wire_msg *m)
{
    wire_buf b;
    wire_buf_init(&b);
    cli_put_bare(&b, "stats");
    send_msg(c, &b);
    wire_buf_free(&b);
    ck_assert_msg(recv_until_not_frame(c, t, m, 5000) == 1, "no stats reply within 5 s");
    ck_assert_msg(cli_msg_is(m, "stats"), "expected the stats reply");
}

int stats_worlds(const wire_msg *stats, wire_msg *out, int max)
{
    const wire_val *ws = wire_msg_get(stats, "worlds");
    ck_assert_ptr_nonnull(ws);
    ck_assert_uint_le(ws->n, (uint32_t)max);
    const uint8_t *it = ws->p, *end = ws->raw + ws->rawlen;
    for (uint32_t i = 0; i < ws->n; i++) {
        wire_val w;
        ck_assert_int_eq(wire_next(&it, end, &w), WIRE_OK);
        ck_assert_int_eq(wire_msg_decode(w.raw, w.rawlen, &out[i]), WIRE_OK);
    }
    return (int)ws->n;
}

/* What the server says it did not send: frames dropped for clients over the soft output limit,
 * and ticks its worlds skipped when it fell behind (a loaded machine). A test that sees gaps in
 * a stream's ticks allows only these. */
void stats_losses(cli_conn *c, tracker *t, uint64_t *dropped, uint64_t *skipped)
{
    wire_msg m, ws[64];
    stats_ask(c, t, &m);
    ck_assert_int_eq(wire_get_u64(&m, "frames_skipped", dropped), 0);
    *skipped = 0;
    int n = stats_worlds(&m, ws, 64);
    for (int i = 0; i < n; i++) {
        uint64_t k;
        ck_assert_int_eq(wire_get_u64(&ws[i], "skipped", &k), 0);
        *skipped += k;
    }
}

/* ---- the fixture ------------------------------------------------------------------------------ */
void e2e_fixture_start_args(e2e_fixture *fx, const char *const *worlds, const char *const *args,
                            long fsize, int flags)
{
    memset(fx, 0, sizeof *fx);
    fx->peer = calloc(E2E_PEERS, sizeof *fx->peer);
    ck_assert_ptr_nonnull(fx->peer);
    const char *argv[64];
    int n = 0;
    for (int i = 0; worlds && worlds[i]; i++) {
        ck_assert_int_lt(n, 60);
        argv[n++] = "--world";
        argv[n++] = worlds[i];
    }
    if (flags & E2E_VERBOSE) argv[n++] = "--verbose";
    if (flags & E2E_NO_RECORD) argv[n++] = "--no-record";
    for (int i = 0; args && args[i]; i++) {
        ck_assert_int_lt(n, 62);
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    server_start_opts(&fx->sv, argv, fsize, flags & (E2E_LOG | E2E_OWN_TOKENS));
}

void e2e_fixture_start(e2e_fixture *fx, const char *const *worlds, int flags)
{
    e2e_fixture_start_args(fx, worlds, NULL, 0, flags);
}

e2e_peer *e2e_hello(e2e_fixture *fx, const char *name, const char *token, wire_msg *welcome)
{
    ck_assert_int_lt(fx->npeers, E2E_PEERS);
    e2e_peer *p = &fx->peer[fx->npeers++];
    memset(p, 0, sizeof *p);
    wire_msg w;
    connect_hello(&p->c, &fx->sv, name, token, &w);
    p->open = 1;
    p->client = welcome_client(&w);
    if (welcome) *welcome = w;
    return p;
}

void e2e_sub(e2e_peer *p, uint32_t world, uint32_t every, const char *enc, const char *view)
{
    sub(&p->c, world, every, enc, view);
    if (world < 16) p->t.every[world] = every;
}

void e2e_close(e2e_peer *p)
{
    if (p->open) cli_close(&p->c);
    p->open = 0;
}

static void fixture_release(e2e_fixture *fx)
{
    for (int i = 0; i < fx->npeers; i++) {
        e2e_close(&fx->peer[i]);
        for (int k = 0; k < 16; k++) cli_frame_free(&fx->peer[i].t.f[k]);
    }
    fx->npeers = 0;
    free(fx->peer);
    fx->peer = NULL;
}

int e2e_fixture_stop(e2e_fixture *fx)
{
    fixture_release(fx);
    return server_stop(&fx->sv);
}

int e2e_fixture_stop_keep(e2e_fixture *fx)
{
    fixture_release(fx);
    return server_stop_keep(&fx->sv);
}
