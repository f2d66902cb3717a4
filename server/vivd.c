/* vivd.c — the Vivarium server: options, start-up, signals, shutdown. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <limits.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "opt.h"
#include "paths.h"
#include "pool.h"
#include "replay.h"
#include "cluster.h"

/* ---- the command line ---------------------------------------------------------------------- */
/* What the command line asks for, checked (vivd_parse, vivd_check); vivd is configured from it.
 * It lives as long as main: the server keeps pointers into it. */
typedef struct vivd_opts {
    char listen_buf[256], http_buf[256];
    const char *listen_host, *http_host;     /* http_host NULL: --no-http */
    int listen_port, http_port, http_asked, no_http;
    const char *web_dir, *wasm_path, *port_file, *http_port_file;
    const char *worlds[SRV_MAX_WORLDS], *plays[SRV_MAX_WORLDS];
    int nworlds, nplays;
    const char *admin, *player;              /* NULL or "": not given */
    const char *db;
    int db_explicit, no_record, fresh, new_tokens, durability;
    size_t record_queue;                     /* --record-queue in bytes; 0: the recorder's default */
    const char *retain;                      /* --retain DURATION as given, or NULL */
    uint64_t retain_s;
    int max_clients, io_threads, threads, log_level;
    int relay;
    uint64_t open_idle_ms;
    srv_cluster_config ccfg;
    /* Found by vivd_check and the start-up: the addresses to bind, the --web and --wasm defaults. */
    struct sockaddr_storage addr, http_addr;
    char bound_ip[64], http_ip[64];
    char web_buf[PATH_MAX], wasm_buf[PATH_MAX];
} vivd_opts;

static void vivd_head(FILE *out)
{
    fprintf(out,
        "usage: vivd [--listen HOST:PORT] [--http HOST:PORT | --no-http] [--web DIR] [--wasm FILE]\n"
        "            [--world KIND[:seed=N][:PARAMS]]... [--play FILE[:N]]...\n"
        "            [--admin-token T] [--player-token T] [--max-clients N] [--io-threads N]\n"
        "            [--db FILE | --no-record] [--fresh] [--new-tokens] [--durability normal|full]\n"
        "            [--retain DURATION]\n"
        "            [--port-file FILE] [--http-port-file FILE] [--threads N] [--open-idle S]\n"
        "            [--quiet | --verbose]\n"
        "            [--cluster redis://HOST:PORT [--node NAME] [--relay] [--cluster-expiry S]]\n"
        "\n"
        "Hosts deterministic pixel-art worlds and streams their frames (docs/PROTOCOL.md).\n"
        "\n");
}

static void vivd_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "Stop with SIGINT or SIGTERM: the current tick finishes, every session is suspended with\n"
        "a checkpoint (the next start on the same FILE resumes it), then vivd exits 0.\n"
        "Watch with: viv view --host 127.0.0.1:7400, or open http://127.0.0.1:7401/\n");
}

/* 1 if s begins with `name=` (letters, digits, '_'): a new spec part, not the rest of a path. */
static int starts_with_key(const char *s)
{
    size_t i = 0;
    while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' ||
           (i > 0 && s[i] >= '0' && s[i] <= '9'))
        i++;
    return i > 0 && s[i] == '=';
}

/* --world KIND[:seed=N][:PARAMS]: parsed and checked against the kind's params before anything
 * is opened, so a typo costs nothing. A part that does not start with `key=` continues the
 * params before it, so values may hold ':' (cycle:scene=file:/scenes/a.lbm). */
static int parse_world_spec(const char *spec, char *kind, size_t kindlen, uint64_t *seed,
                            char *params, size_t paramslen)
{
    char buf[512], err[256] = "";
    *seed = 1;
    kind[0] = params[0] = '\0';
    if (strlen(spec) >= sizeof buf) {
        fprintf(stderr, "vivd: --world spec is too long: %.40s...\n", spec);
        return -1;
    }
    strcpy(buf, spec);
    char *save = NULL;
    int first = 1;
    for (char *part = strtok_r(buf, ":", &save); part; part = strtok_r(NULL, ":", &save)) {
        if (first) {
            snprintf(kind, kindlen, "%s", part);
            first = 0;
        } else if (strncmp(part, "seed=", 5) == 0) {
            char *end;
            errno = 0;
            *seed = strtoull(part + 5, &end, 0);
            if (errno || *end || part[5] == '\0' || part[5] == '-') {
                fprintf(stderr, "vivd: --world %s: seed must be a non-negative integer\n", spec);
                return -1;
            }
        } else if (params[0] && !starts_with_key(part)) {
            /* A path with ':' in it (scene=file:/a/b.lbm): the part continues the params. */
            size_t n = strlen(params);
            snprintf(params + n, paramslen - n, ":%s", part);
        } else {
            if (params[0]) {
                fprintf(stderr, "vivd: --world %s: give params once, as key=value,key=value\n", spec);
                return -1;
            }
            snprintf(params, paramslen, "%s", part);
        }
    }
    if (!kind[0]) {
        fprintf(stderr, "vivd: --world needs a kind, e.g. --world sand:seed=7\n");
        return -1;
    }
    const sim_kind *k = sim_kind_find(kind);
    if (!k) {
        fprintf(stderr, "vivd: --world %s: unknown world kind '%s' (kinds:", spec, kind);
        for (int i = 0; i < sim_kind_count(); i++) fprintf(stderr, " %s", sim_kind_at(i)->name);
        fprintf(stderr, ")\n");
        return -1;
    }
    sim_params p;
    if (sim_params_parse(k, params, &p, NULL, 0, err, sizeof err) != 0) {
        fprintf(stderr, "vivd: --world %s: %s\n", spec, err);
        return -1;
    }
    return 0;
}

static int parse_world(srv *s, const char *spec)
{
    char kind[64], params[SIM_PARAMS_MAX], err[256] = "";
    uint64_t seed;
    if (parse_world_spec(spec, kind, sizeof kind, &seed, params, sizeof params) != 0) return -1;
    if (srv_world_add_local(s, kind, seed, params, err, sizeof err) < 0) {
        fprintf(stderr, "vivd: --world %s: %s\n", spec, err);
        return -1;
    }
    return 0;
}

/* The default --io-threads: half the cores (the loop, the recorder and the sand workers want the
 * rest), at most 8; none on one core, where a thread could only take turns with the loop. */
static int default_io_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 1) return 0;
    return n / 2 > 8 ? 8 : (int)(n / 2);
}

static void on_walk_close(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

/* vivd's own handles, never libwebsockets': lws closes its own while its context is destroyed,
 * and closing one of them here would have lws close it a second time, which libuv aborts on.
 * A handle never initialised is still zero (UV_UNKNOWN_HANDLE). */
static void close_own_handles(srv *s)
{
    uv_handle_t *own[] = { (uv_handle_t *)&s->net->listener, (uv_handle_t *)&s->net->sweep_timer,
                           (uv_handle_t *)&s->net->guess_timer,
                           (uv_handle_t *)&s->sig_int, (uv_handle_t *)&s->sig_term,
                           (uv_handle_t *)&s->rec_async, (uv_handle_t *)&s->rec_timer };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (own[i]->type != UV_UNKNOWN_HANDLE && !uv_is_closing(own[i])) uv_close(own[i], NULL);
    srv_tick_close(s);
}

/* After the loop stopped: libwebsockets' second step, then anything left, then the loop. 0 if
 * it closed with nothing open. */
static int close_loop_all(srv *s)
{
    srv_http_free(s);
    uv_run(s->loop, UV_RUN_DEFAULT);
    uv_walk(s->loop, on_walk_close, NULL);
    uv_run(s->loop, UV_RUN_DEFAULT);
    return uv_loop_close(s->loop);
}

static void on_signal(uv_signal_t *sig, int signum)
{
    srv *s = sig->data;
    if (s->stopping) return;
    s->stopping = 1;
    srv_log(s, SRV_LOG_INFO, "%s: finishing the current tick and shutting down",
            signum == SIGINT ? "SIGINT" : "SIGTERM");
    srv_world_stats_log(s, SRV_LOG_INFO);
    srv_tick_stop(s);
    uv_timer_stop(&s->net->sweep_timer);
    srv_guess_stop(s);             /* answers to wrong tokens still waiting are not sent */
    srv_cluster_stop(s);           /* this member's worlds leave the registry now */
    srv_jobs_cancel(s);            /* creates and seeks not started; running ones are discarded */
    srv_retain_stop(s);            /* a compaction stops between two of its transactions */
    /* Every session is suspended with a checkpoint at its tick (the next start resumes it there),
     * and everything queued reaches the disk before we go; the lock file goes with it. */
    int suspended = 0;
    for (int i = 0; i < s->nworlds; i++) {
        suspended += s->rec && s->worlds[i]->rec.session >= 0;
        srv_world_finish(s, s->worlds[i]);
        srv_record_suspend(s, s->worlds[i]);
    }
    if (suspended)
        srv_log(s, SRV_LOG_INFO, "%d session(s) suspended in %s: the next vivd --db %s resumes them "
                "(--fresh starts new ones)", suspended, s->db_path, s->db_path);
    srv_record_close(s);
    /* Clients close through their own path (their handles free their memory; a client an I/O
     * thread writes is freed when the thread lets go too: srv_io_stop, after the loop). */
    while (s->net->clients) srv_client_close(s->net->clients, "server shutting down");
    srv_io_flush(s);
    srv_http_stop(s);
    close_own_handles(s);
}

/* The page's files when --web is not given: an installed vivd's (make install:
 * PREFIX/share/vivarium/web), else clients/web of the source tree the binary was built in
 * (bin/vivd, build/san/bin/vivd), so that it is found from any working directory: the nearest
 * ancestor of the binary's folder with a clients/web folder, else the nearest that is the source
 * tree (it has docs/PROTOCOL.md; the page may not be there yet, and vivd says so). */
static const char *default_web_dir(char *out, size_t outlen)
{
    if (opt_installed_path("web", out, outlen) || opt_find_up("clients/web", out, outlen)) return out;
    if (opt_find_up("docs/PROTOCOL.md", out, outlen)) {   /* the tree, and its clients/web: shorter */
        strcpy(out + strlen(out) - strlen("docs/PROTOCOL.md"), "clients/web");
        return out;
    }
    snprintf(out, outlen, "clients/web");
    return out;
}

/* Write a port number to path atomically (a reader sees no file or the whole number). */
static int write_port_file(const char *path, int port, const char *flag)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp || fprintf(fp, "%d\n", port) < 0 || fclose(fp) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "vivd: cannot write %s %s: %s\n", flag, path, strerror(errno));
        return -1;
    }
    return 0;
}

/* HOST:PORT for option flag into host (without brackets' removal: resolve_listen does that) and
 * *port. 0, or -1 with a message on stderr. */
static int parse_hostport(const char *flag, const char *v, const char *example, char *host,
                          size_t hostlen, int *port)
{
    const char *colon = strrchr(v, ':');
    char *end;
    long p = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || colon == v || (size_t)(colon - v) >= hostlen || *end || p < 0 || p > 65535 ||
        colon[1] == '\0') {
        fprintf(stderr, "vivd: %s wants HOST:PORT (e.g. %s), got '%s'\n", flag, example, v);
        return -1;
    }
    memcpy(host, v, (size_t)(colon - v));
    host[colon - v] = '\0';
    *port = (int)p;
    return 0;
}

/* HOST:PORT's host resolved to an address to bind (a name such as localhost, an IPv4 or IPv6
 * address, [::1] in brackets). An IPv4 address is preferred when the name has both: it is what
 * vivd binds by default, and a client that resolves the name tries each address in turn. */
static int resolve_listen(const char *flag, const char *host, int port, struct sockaddr_storage *out,
                          char *shown, size_t shownlen)
{
    char h[256];
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        snprintf(h, sizeof h, "%.*s", (int)(n - 2), host + 1);
    } else {
        snprintf(h, sizeof h, "%s", host);
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int rc = getaddrinfo(h, ps, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "vivd: %s: cannot resolve '%s': %s\n", flag, host, gai_strerror(rc));
        return -1;
    }
    const struct addrinfo *pick = NULL;
    for (const struct addrinfo *a = res; a; a = a->ai_next)
        if (a->ai_family == AF_INET) {
            pick = a;
            break;
        }
    if (!pick)
        for (const struct addrinfo *a = res; a; a = a->ai_next)
            if (a->ai_family == AF_INET6) {
                pick = a;
                break;
            }
    if (!pick || pick->ai_addrlen > sizeof *out) {
        fprintf(stderr, "vivd: %s: '%s' has no IPv4 or IPv6 address\n", flag, host);
        freeaddrinfo(res);
        return -1;
    }
    memset(out, 0, sizeof *out);
    memcpy(out, pick->ai_addr, pick->ai_addrlen);
    char ip[64] = "";
    uv_ip_name(pick->ai_addr, ip, sizeof ip);
    snprintf(shown, shownlen, "%s", ip);
    freeaddrinfo(res);
    return 0;
}

/* ---- the options' setters (vivd_parse's table) ----------------------------------------------- */
static int set_listen(const opt_prog *p, const opt *o, const char *v)
{
    vivd_opts *vo = o->ptr;
    if (parse_hostport(o->name, v, "127.0.0.1:7400", vo->listen_buf, sizeof vo->listen_buf,
                       &vo->listen_port) != 0)
        return OPT_BAD;
    vo->listen_host = vo->listen_buf;
    return OPT_OK;
}

static int set_http(const opt_prog *p, const opt *o, const char *v)
{
    vivd_opts *vo = o->ptr;
    if (parse_hostport(o->name, v, "127.0.0.1:7401", vo->http_buf, sizeof vo->http_buf, &vo->http_port) != 0)
        return OPT_BAD;
    vo->http_host = vo->http_buf;
    vo->http_asked = 1;
    return OPT_OK;
}

static int set_world(const opt_prog *p, const opt *o, const char *v)
{
    vivd_opts *vo = o->ptr;
    if (vo->nworlds == SRV_MAX_WORLDS) {
        fprintf(stderr, "vivd: at most %d --world options\n", SRV_MAX_WORLDS);
        return OPT_BAD;
    }
    char k[64], params[SIM_PARAMS_MAX];
    uint64_t sd;
    if (parse_world_spec(v, k, sizeof k, &sd, params, sizeof params) != 0) return OPT_BAD;
    vo->worlds[vo->nworlds++] = v;
    return OPT_OK;
}

static int set_play(const opt_prog *p, const opt *o, const char *v)
{
    vivd_opts *vo = o->ptr;
    if (vo->nplays == SRV_MAX_WORLDS) {
        fprintf(stderr, "vivd: at most %d --play options\n", SRV_MAX_WORLDS);
        return OPT_BAD;
    }
    vo->plays[vo->nplays++] = v;
    return OPT_OK;
}

static int set_max_clients(const opt_prog *p, const opt *o, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 1 || n > 1000000) {
        fprintf(stderr, "vivd: --max-clients wants an integer in 1..1000000, got '%s'\n", v);
        return OPT_BAD;
    }
    ((vivd_opts *)o->ptr)->max_clients = (int)n;
    return OPT_OK;
}

static int set_io_threads(const opt_prog *p, const opt *o, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 0 || n > 64) {
        fprintf(stderr, "vivd: --io-threads wants an integer in 0..64, got '%s'\n", v);
        return OPT_BAD;
    }
    ((vivd_opts *)o->ptr)->io_threads = (int)n;
    return OPT_OK;
}

static int set_threads(const opt_prog *p, const opt *o, const char *v)
{
    char err[256];
    if (pool_parse_workers("--threads", v, &((vivd_opts *)o->ptr)->threads, err, sizeof err) != 0) {
        fprintf(stderr, "vivd: %s\n", err);
        return OPT_BAD;
    }
    return OPT_OK;
}

static int set_db(const opt_prog *p, const opt *o, const char *v)
{
    vivd_opts *vo = o->ptr;
    vo->db = v;
    vo->db_explicit = 1;
    return OPT_OK;
}

/* --record-queue SIZE: a whole number of bytes, or of KiB, MiB or GiB with k, m or g. */
static int set_record_queue(const opt_prog *p, const opt *o, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    int shift = 0;
    if (end != v && (*end == 'k' || *end == 'K')) shift = 10, end++;
    else if (end != v && (*end == 'm' || *end == 'M')) shift = 20, end++;
    else if (end != v && (*end == 'g' || *end == 'G')) shift = 30, end++;
    if (end == v || *end || *v == '-' || errno || n > (16ull << 30) >> shift ||
        (n << shift) < (64ull << 10)) {
        fprintf(stderr, "vivd: --record-queue wants a size from 64k to 16g (a whole number of bytes, "
                "or with k, m or g), got '%s'\n", v);
        return OPT_BAD;
    }
    ((vivd_opts *)o->ptr)->record_queue = (size_t)(n << shift);
    return OPT_OK;
}

static int set_durability(const opt_prog *p, const opt *o, const char *v)
{
    vivd_opts *vo = o->ptr;
    if (strcmp(v, "normal") == 0) vo->durability = RPL_DUR_NORMAL;
    else if (strcmp(v, "full") == 0) vo->durability = RPL_DUR_FULL;
    else {
        fprintf(stderr, "vivd: --durability is normal or full, got '%s'\n", v);
        return OPT_BAD;
    }
    return OPT_OK;
}

static int set_retain(const opt_prog *p, const opt *o, const char *v)
{
    vivd_opts *vo = o->ptr;
    char err[256];
    if (rpl_duration_parse(v, &vo->retain_s, err, sizeof err) != 0) {
        fprintf(stderr, "vivd: --retain %s\n", err);
        return OPT_BAD;
    }
    vo->retain = v;
    return OPT_OK;
}

static int set_cluster(const opt_prog *p, const opt *o, const char *v)
{
    char h[256], err[256];
    int port;
    if (srv_redis_parse_url(v, h, sizeof h, &port, err, sizeof err) != 0) {
        fprintf(stderr, "vivd: %s\n", err);
        return OPT_BAD;
    }
    ((vivd_opts *)o->ptr)->ccfg.url = v;
    return OPT_OK;
}

static int set_node(const opt_prog *p, const opt *o, const char *v)
{
    if (!srv_cluster_name_ok(v)) {
        fprintf(stderr, "vivd: --node '%s': a name is 1..63 letters, digits and . - _ :\n", v);
        return OPT_BAD;
    }
    ((vivd_opts *)o->ptr)->ccfg.name = v;
    return OPT_OK;
}

static int set_cluster_expiry(const opt_prog *p, const opt *o, const char *v)
{
    char *end;
    double sec = strtod(v, &end);
    if (*end || end == v || !(sec >= 0.5 && sec <= 600)) {
        fprintf(stderr, "vivd: --cluster-expiry wants seconds in 0.5..600, got '%s'\n", v);
        return OPT_BAD;
    }
    ((vivd_opts *)o->ptr)->ccfg.expiry_ms = (uint64_t)(sec * 1000.0);
    return OPT_OK;
}

static int set_open_idle(const opt_prog *p, const opt *o, const char *v)
{
    char *end;
    double sec = strtod(v, &end);
    if (*end || end == v || !(sec >= 1 && sec <= 86400)) {
        fprintf(stderr, "vivd: --open-idle wants seconds in 1..86400, got '%s'\n", v);
        return OPT_BAD;
    }
    ((vivd_opts *)o->ptr)->open_idle_ms = (uint64_t)(sec * 1000.0);
    return OPT_OK;
}

static int print_version(const opt_prog *p, const opt *o, const char *v)
{
    printf("vivd %s\n", SRV_VERSION);
    return OPT_DONE;
}

/* The command line into vo, every value checked as it comes (opt.h): OPT_OK, OPT_DONE (--help or
 * --version printed) or OPT_BAD (a message printed). */
static int vivd_parse(vivd_opts *vo, int argc, char **argv)
{
    memset(vo, 0, sizeof *vo);
    vo->listen_host = "127.0.0.1";
    vo->listen_port = 7400;
    vo->http_host = "127.0.0.1";
    vo->http_port = 7401;
    vo->admin = getenv("VIVD_ADMIN_TOKEN");
    vo->player = getenv("VIVD_PLAYER_TOKEN");
    vo->db = "vivarium.db";
    vo->durability = RPL_DUR_NORMAL;
    vo->max_clients = 1024;
    vo->io_threads = default_io_threads();
    vo->threads = pool_default_workers();
    vo->open_idle_ms = SRV_OPENED_IDLE_MS;
    vo->log_level = SRV_LOG_INFO;
    const opt table[] = {
        OPT_CALL("--listen", "HOST:PORT", set_listen, vo,
                 "address to listen on (default 127.0.0.1:7400; port 0 picks one);\n"
                 "HOST is an address or a name (localhost), resolved at start-up"),
        OPT_CALL("--http", "HOST:PORT", set_http, vo,
                 "serve the browser viewer and WebSocket clients on this address\n"
                 "(default 127.0.0.1:7401; port 0 picks one): the page at\n"
                 "http://HOST:PORT/, the protocol at ws://HOST:PORT/ws. Given\n"
                 "explicitly, a failure to serve it stops vivd (exit 1); the\n"
                 "default only warns (one line) and vivd serves TCP alone.\n"
                 "Needs libwebsockets' libuv plugin (apt-get install\n"
                 "libwebsockets-evlib-uv)"),
        OPT_FLAG("--no-http", &vo->no_http, "no HTTP or WebSocket port: TCP only"),
        OPT_STR("--web", "DIR", &vo->web_dir,
                "the page's files (default: ../share/vivarium/web from the vivd\n"
                "binary's folder when installed there by make install, else\n"
                "clients/web of the source tree the vivd binary was built in)"),
        OPT_STR("--wasm", "FILE", &vo->wasm_path,
                "the page's sim module, served at /vivarium.wasm (default:\n"
                "../share/vivarium/vivarium.wasm from the vivd binary's folder\n"
                "when installed, else vivarium.wasm beside the vivd binary; make\n"
                "builds it)"),
        OPT_CALL("--world", "SPEC", set_world, vo,
                 "host a world: KIND, then optional :seed=N and :key=value,... params,\n"
                 "e.g. --world sand:seed=7:scene=bench. Repeatable. Default: one\n"
                 "world of every kind (the demo set)."),
        OPT_STR("--admin-token", "T", &vo->admin,
                "token for the admin role (create/close worlds). Default:\n"
                "$VIVD_ADMIN_TOKEN, else the one kept in FILE.tokens (see below)."),
        OPT_STR("--player-token", "T", &vo->player,
                "token for the player role (send inputs). Default:\n"
                "$VIVD_PLAYER_TOKEN, else the one kept in FILE.tokens.\n"
                "Tokens not given are kept in FILE.tokens beside the --db FILE\n"
                "(./vivarium.db.tokens; mode 0600, readable by you alone): made at\n"
                "random and printed at the first start, reused at every later one\n"
                "(whose log names the file, never the tokens).\n"
                "With only --play FILE, they are kept in FILE.tokens beside the\n"
                "(first) recording played: the tokens of the vivd that recorded it.\n"
                "With --no-record there is no file: tokens not given are new at\n"
                "each start."),
        OPT_FLAG("--new-tokens", &vo->new_tokens,
                 "make new random tokens (for the roles not given) and keep them in\n"
                 "FILE.tokens instead of the old ones"),
        OPT_CALL("--max-clients", "N", set_max_clients, vo,
                 "connections beyond N are refused (default 1024)"),
        OPT_CALL("--io-threads", "N", set_io_threads, vo,
                 "threads that write to subscribers' TCP sockets, each with its own\n"
                 "event loop and share of the connections, so that the loop that\n"
                 "ticks the worlds never makes those system calls (0..64; default:\n"
                 "half the cores, at most 8, and 0 on one core). 0 writes every\n"
                 "socket on the loop, as vivd did before. WebSocket clients are\n"
                 "always written by the loop."),
        OPT_CALL("--db", "FILE", set_db, vo,
                 "record every world in this replay file (default ./vivarium.db);\n"
                 "sessions suspended by a clean stop or left running by a crash are\n"
                 "resumed from it at start-up, at their last tick, checked against\n"
                 "every recorded hash (then the demo set is not added; --world adds\n"
                 "worlds as usual). While FILE cannot be written (a full disk), inputs\n"
                 "are refused, worlds and viewers go on, a line every 60 s (or\n"
                 "$VIVD_FAILING_LOG_SECONDS) says so, and recording resumes by itself\n"
                 "(docs/OPERATIONS.md)"),
        OPT_FLAG("--fresh", &vo->fresh,
                 "resume nothing: close the sessions a stop or a crash left in FILE\n"
                 "and start new ones"),
        OPT_FLAG("--no-record", &vo->no_record, "record nothing"),
        OPT_CALL("--durability", "MODE", set_durability, vo,
                 "normal (default: survives a crash of vivd) or full (also a power\n"
                 "cut: every commit is synced to disk)"),
        OPT_CALL("--record-queue", "SIZE", set_record_queue, vo,
                 "the most the replay log's writer may have waiting (64k to 16g;\n"
                 "default 256m). Past it, a disk too slow for the worlds: the ticks\n"
                 "that do not fit are a gap in their sessions (named by viv replay\n"
                 "verify), inputs are refused until the writer catches up, and\n"
                 "recording resumes by itself at each world's next checkpoint"),
        OPT_CALL("--retain", "DURATION", set_retain, vo,
                 "compact the sessions of FILE closed more than DURATION ago (30d,\n"
                 "12h, 90m, 45s), at start-up and every hour, beside the recording:\n"
                 "their inputs, gaps and lineage stay, their hashes thin to one every\n"
                 "600 ticks and their checkpoints to one every 10 min of world time\n"
                 "(viv replay compact, docs/REPLAY.md). Default: nothing is compacted"),
        OPT_CALL("--play", "FILE[:N]", set_play, vo,
                 "host session N of a replay file (the only one if N is omitted) as a\n"
                 "read-only world, paused at its start; players and admins pause,\n"
                 "resume, step, seek and set its speed (docs/PROTOCOL.md, play)"),
        OPT_CALL("--open-idle", "S", set_open_idle, vo,
                 "seconds a recording a viewer opened (the page's Watch, the `open`\n"
                 "message) stays hosted after its last viewer left (default 60)"),
        OPT_STR("--port-file", "FILE", &vo->port_file,
                "write the port actually bound to FILE (for scripts and tests)"),
        OPT_STR("--http-port-file", "FILE", &vo->http_port_file,
                "the same for the HTTP port (nothing is written without HTTP)"),
        OPT_CALL("--threads", "N", set_threads, vo,
                 "workers for the worlds' parallel passes (sand's strips), the tick\n"
                 "thread included (default: one per CPU, at most " OPT_STRINGIFY(POOL_DEFAULT_MAX)
                 "; 1: all on the\n"
                 "tick thread). Frames, hashes and recordings are the same for every\n"
                 "N: a session recorded with one N verifies and resumes with another"),
        OPT_SET("--quiet", &vo->log_level, SRV_LOG_WARN, "log warnings and errors only"),
        OPT_CALL("--cluster", "redis://HOST:PORT", set_cluster, vo,
                 "join a cluster of vivd nodes and relays through this Redis\n"
                 "(docs/CLUSTER.md): this vivd's worlds are listed for every member,\n"
                 "its frames published for relays, and its viewers see every\n"
                 "world of the cluster. Give every member the same tokens."),
        OPT_CALL("--node", "NAME", set_node, vo,
                 "this member's name in the cluster (default HOSTNAME:PORT of\n"
                 "--listen); letters, digits, . - _ : (a restarted node keeps it)"),
        OPT_FLAG("--relay", &vo->relay,
                 "host no world: serve the cluster's worlds to viewers, and pass\n"
                 "inputs, creates and closes on to their nodes (with --cluster)"),
        OPT_CALL("--cluster-expiry", "S", set_cluster_expiry, vo,
                 "seconds a member's registration outlives its last heartbeat\n"
                 "(default 5; heartbeats every quarter of it). At start-up, a Redis\n"
                 "that cannot be reached or refuses vivd, or a --node name another\n"
                 "running vivd holds, is one line and exit status 1; once running,\n"
                 "a lost Redis is retried (0.1 s doubling to 2 s) while worlds go on"),
        OPT_SET("--verbose", &vo->log_level, SRV_LOG_DEBUG, "log every connection and error reply too"),
        OPT_CALL("--version", NULL, print_version, vo, "print vivd's version and exit"),
        OPT_END
    };
    const opt_prog prog = { .who = "vivd", .opts = table, .column = 23, .head = vivd_head,
                            .tail = vivd_tail };
    return opt_parse(&prog, argc, argv);
}

/* What no single option can check, before anything is opened or created: options that
 * contradict each other, and the addresses to listen on. 0, or 2 after a message. */
static int vivd_check(vivd_opts *vo)
{
    if (vo->no_record && vo->db_explicit) {
        fprintf(stderr, "vivd: --db and --no-record contradict each other\n");
        return 2;
    }
    if (vo->no_http && (vo->http_asked || vo->web_dir || vo->http_port_file || vo->wasm_path)) {
        fprintf(stderr, "vivd: --no-http contradicts %s\n", vo->http_asked ? "--http" : vo->web_dir
                ? "--web" : vo->wasm_path ? "--wasm" : "--http-port-file");
        return 2;
    }
    if (vo->no_http) vo->http_host = NULL;
    srv_cluster_config *cc = &vo->ccfg;
    if (!cc->url && (vo->relay || cc->name || cc->expiry_ms)) {
        fprintf(stderr, "vivd: %s needs --cluster redis://HOST:PORT\n", vo->relay ? "--relay"
                : cc->name ? "--node" : "--cluster-expiry");
        return 2;
    }
    if (vo->relay && (vo->nworlds || vo->nplays || vo->db_explicit || vo->fresh || vo->new_tokens)) {
        fprintf(stderr, "vivd: --relay hosts no world and records nothing: it contradicts %s\n",
                vo->nworlds ? "--world" : vo->nplays ? "--play" : vo->db_explicit ? "--db"
                : vo->fresh ? "--fresh" : "--new-tokens");
        return 2;
    }
    if (vo->relay) vo->no_record = 1;
    cc->relay = vo->relay;
    if (vo->retain && (vo->no_record || (vo->nplays && !vo->nworlds && !vo->db_explicit))) {
        fprintf(stderr, "vivd: --retain compacts the sessions of the --db FILE, and %s records "
                "none: give --db FILE\n", vo->relay ? "a --relay" : vo->no_record ? "--no-record"
                : "a vivd with only --play");
        return 2;
    }
    if (vo->admin && *vo->admin && vo->player && *vo->player && strcmp(vo->admin, vo->player) == 0) {
        fprintf(stderr, "vivd: the admin and player tokens must differ\n");
        return 2;
    }
    if (resolve_listen("--listen", vo->listen_host, vo->listen_port, &vo->addr, vo->bound_ip,
                       sizeof vo->bound_ip) != 0)
        return 2;
    if (vo->http_host && resolve_listen("--http", vo->http_host, vo->http_port, &vo->http_addr,
                                        vo->http_ip, sizeof vo->http_ip) != 0)
        return 2;
    return 0;
}

/* ---- start-up, run, stop --------------------------------------------------------------------- */
/* The server's defaults and the options, before anything is opened. */
static void vivd_config(srv *s, const vivd_opts *vo)
{
    memset(s, 0, sizeof *s);
    s->lock_fd = -1;
    s->next_world_id = 1;
    s->cfg.listen_host = vo->listen_host;
    s->cfg.listen_port = vo->listen_port;
    s->cfg.port_file = vo->port_file;
    s->cfg.max_clients = vo->max_clients;
    s->cfg.log_level = vo->log_level;
    s->durability = vo->durability;
    s->rec_queue_bytes = vo->record_queue;
    s->open_idle_ms = vo->open_idle_ms;
}

/* Each client is a descriptor: raise the soft limit to the hard one, and keep max-clients under
 * it, or accepts would fail with nothing to show for it. */
static void raise_nofile(srv *s)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)s->cfg.max_clients + 64 > rl.rlim_cur) {
        int cap = rl.rlim_cur > 128 ? (int)rl.rlim_cur - 64 : 64;
        srv_log(s, SRV_LOG_WARN, "--max-clients %d lowered to %d: the open-file limit is %llu",
                s->cfg.max_clients, cap, (unsigned long long)rl.rlim_cur);
        s->cfg.max_clients = cap;
    }
}

/* The TCP port actually bound (--listen's port 0 picks one). */
static int listener_port(srv *s)
{
    struct sockaddr_storage b;
    int blen = sizeof b;
    if (uv_tcp_getsockname(&s->net->listener, (struct sockaddr *)&b, &blen) != 0) return s->cfg.listen_port;
    return ntohs(b.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&b)->sin6_port
                                         : ((struct sockaddr_in *)&b)->sin_port);
}

/* Then the port: a start that cannot listen (the port is in use) has written nothing. 0, or 1
 * after a message. */
static int listen_tcp(srv *s, const vivd_opts *vo)
{
    uv_tcp_init(s->loop, &s->net->listener);
    s->net->listener.data = s;
    int rc = uv_tcp_bind(&s->net->listener, (const struct sockaddr *)&vo->addr, 0);
    if (!rc) rc = uv_listen((uv_stream_t *)&s->net->listener, 511, srv_on_connection);
    if (rc) {
        fprintf(stderr, "vivd: cannot listen on %s:%d: %s%s\n", s->cfg.listen_host, s->cfg.listen_port,
                uv_strerror(rc), rc == UV_EADDRINUSE ? " (another vivd? pick another --listen port)" : "");
        return 1;
    }
    return 0;
}

/* HTTP first: asked for, it must work; by default, a failure is one line and TCP goes on. 0, or 1
 * after a message. */
static int start_http(srv *s, vivd_opts *vo)
{
    if (!vo->http_host) return 0;
    char err[600];
    s->net->http_host = vo->http_ip;
    s->net->http_port = vo->http_port;
    s->net->http_asked = vo->http_asked;
    s->net->web_dir = vo->web_dir ? vo->web_dir : default_web_dir(vo->web_buf, sizeof vo->web_buf);
    s->net->wasm_path = vo->wasm_path ? vo->wasm_path : opt_shipped_file("vivarium.wasm", vo->wasm_buf, sizeof vo->wasm_buf);
    if (srv_http_start(s, err, sizeof err) != 0) {
        if (vo->http_asked) {
            fprintf(stderr, "vivd: --http %s:%d: %s\n", vo->http_host, vo->http_port, err);
            return 1;
        }
        srv_log(s, SRV_LOG_WARN, "no browser viewer on %s:%d: %s; serving TCP only", vo->http_host,
                vo->http_port, err);
    }
    return 0;
}

/* The cluster next: a name clash or an unreachable Redis stops vivd before anything is written,
 * and a node's world ids start in its own id space. 0, or 1 after a message. */
static int join_cluster(srv *s, vivd_opts *vo)
{
    if (!vo->ccfg.url) return 0;
    char err[600], shown[160], hshown[160] = "";
    snprintf(shown, sizeof shown, "%s:%d", vo->bound_ip, listener_port(s));
    if (srv_http_port(s)) snprintf(hshown, sizeof hshown, "%s:%d", vo->http_ip, srv_http_port(s));
    vo->ccfg.listen = shown;
    vo->ccfg.http = hshown;
    if (srv_cluster_start(s, &vo->ccfg, err, sizeof err) != 0) {
        fprintf(stderr, "vivd: --cluster %s: %s\n", vo->ccfg.url, err);
        return 1;
    }
    s->node_name = srv_cluster_node(s);
    return 0;
}

/* Where the replay file is, or NULL when nothing is recorded: known before anything starts, since
 * the tokens are kept beside it. */
static void choose_record(srv *s, vivd_opts *vo)
{
    /* Only playing recordings: nothing live to record, unless a --db was asked for. */
    if (vo->nplays && !vo->nworlds && !vo->db_explicit) vo->no_record = 1;
    s->db_path = vo->no_record ? NULL : vo->db;
}

/* The replay file, unless nothing is recorded. 0, or 1 after a message. */
static int open_record(srv *s, vivd_opts *vo)
{
    if (!s->db_path) return 0;
    char err[512];
    if (srv_record_open(s, err, sizeof err) != 0) {
        fprintf(stderr, "vivd: --db %s: %s\n", s->db_path, err);
        return 1;
    }
    return 0;
}

/* Where the tokens not given are kept: FILE.tokens beside the --db FILE; with only --play, beside
 * the (first) recording played, so that the player token of the vivd that recorded it is still
 * the player token (issue 29; FILE:N names a session of FILE). 1 (out filled in), or 0: none. */
static int tokens_path(const srv *s, const vivd_opts *vo, char *out, size_t n)
{
    if (s->db_path) return snprintf(out, n, "%s.tokens", s->db_path) < (int)n;
    if (!vo->nplays || vo->relay) return 0;
    snprintf(out, n, "%s", vo->plays[0]);
    char *colon = strrchr(out, ':'), *end = NULL;
    if (colon && colon[1] && strtoll(colon + 1, &end, 10) > 0 && end && *end == '\0') *colon = '\0';
    if (strlen(out) + sizeof ".tokens" > n) return 0;
    strcat(out, ".tokens");
    return 1;
}

/* The two roles' tokens, and where each came from (origin[SRV_TOKEN_…]). 0, or 2 after a
 * message. */
static int setup_tokens(srv *s, const vivd_opts *vo, int origin[2])
{
    char err[512], tpath[4200];
    const char *given[2] = { vo->admin, vo->player };
    int have = tokens_path(s, vo, tpath, sizeof tpath);
    if (srv_tokens_setup(s, have ? tpath : NULL, given, vo->new_tokens, origin, err, sizeof err) != 0) {
        fprintf(stderr, "vivd: %s\n", err);
        return 2;
    }
    /* A relay's tokens are the nodes' (which check them again): one not given is none, and
     * nobody takes that role through this relay. */
    for (int r = 0; vo->relay && r < 2; r++) {
        if (origin[r] != SRV_TOKEN_NEW) continue;
        (r == SRV_TOKEN_ADMIN ? s->cfg.admin_token : s->cfg.player_token)[0] = '\0';
        origin[r] = SRV_TOKEN_GIVEN;
        srv_log(s, SRV_LOG_INFO, "no %s token given to this relay: no %s can use it (give it "
                "the nodes' --%s-token or $VIVD_%s_TOKEN)", r ? "player" : "admin",
                r ? "player" : "admin", r ? "player" : "admin", r ? "PLAYER" : "ADMIN");
    }
    return 0;
}

/* The worlds: the sessions resumed from the file, --world, --play, else the demo set; then the
 * log is written. 0, or 1 or 2 after a message. */
static int add_worlds(srv *s, const vivd_opts *vo)
{
    /* Nothing is written to the log until every world is in place (srv_record_start). */
    s->rec_starting = 1;
    int resumed = vo->relay ? 0 : srv_record_resume_all(s, vo->fresh);
    for (int i = 0; i < vo->nworlds; i++)
        if (parse_world(s, vo->worlds[i]) != 0) return 2;
    for (int i = 0; i < vo->nplays; i++) {
        char err[512];
        if (srv_play_open(s, vo->plays[i], err, sizeof err) < 0) {
            fprintf(stderr, "vivd: --play %s: %s\n", vo->plays[i], err);
            return 2;
        }
    }
    if (!vo->relay && vo->nworlds == 0 && resumed == 0 && vo->nplays == 0) {   /* the demo set, unless told otherwise */
        for (int k = 0; k < sim_kind_count(); k++) {
            char err[256] = "";
            if (srv_world_add(s, sim_kind_at(k)->name, 1, "", err, sizeof err) < 0) {
                fprintf(stderr, "vivd: demo world %s: %s\n", sim_kind_at(k)->name, err);
                return 1;
            }
        }
    }
    s->rec_starting = 0;
    if (srv_record_start(s) != 0)
        srv_log(s, SRV_LOG_ERROR, "the sessions could not all be written to %s", s->db_path);
    return 0;
}

/* The start-up lines of the log: where vivd listens, the browser viewer, the tokens. */
static void log_started(srv *s, const vivd_opts *vo, const int origin[2])
{
    int port = listener_port(s);
    if (strcmp(vo->bound_ip, s->cfg.listen_host) == 0)
        srv_log(s, SRV_LOG_INFO, "vivd %s listening on %s:%d with %d world(s)", SRV_VERSION,
                s->cfg.listen_host, port, s->nworlds);
    else
        srv_log(s, SRV_LOG_INFO, "vivd %s listening on %s:%d (%s) with %d world(s)", SRV_VERSION,
                s->cfg.listen_host, port, vo->bound_ip, s->nworlds);
    if (srv_http_port(s)) {
        const char *hh = strchr(vo->http_ip, ':') ? "[" : "";
        srv_log(s, SRV_LOG_INFO, "the browser viewer: http://%s%s%s:%d/ (WebSocket ws://%s%s%s:%d/ws, "
                "files from %s)", hh, vo->http_ip, *hh ? "]" : "", srv_http_port(s), hh, vo->http_ip,
                *hh ? "]" : "", srv_http_port(s), srv_http_web_dir(s));
    }
    /* A token is printed once, when it is made. One read from the file is not: logs are shipped
     * and shared, and the file (0600) is where it is kept; the log names the file. */
    static const char *const role[2] = { "admin", "player" };
    char tpath[4200];
    int kept = tokens_path(s, vo, tpath, sizeof tpath);
    int from_file = 0;
    for (int r = 0; r < 2; r++) {
        const char *tok = r == SRV_TOKEN_ADMIN ? s->cfg.admin_token : s->cfg.player_token;
        if (origin[r] == SRV_TOKEN_NEW && kept)
            srv_log(s, SRV_LOG_INFO, "%s token (new, kept in %s): %s", role[r], tpath, tok);
        else if (origin[r] == SRV_TOKEN_NEW)
            srv_log(s, SRV_LOG_INFO, "%s token (generated): %s", role[r], tok);
        else if (origin[r] == SRV_TOKEN_FILE)
            from_file |= 1 << r;
    }
    if (from_file)
        srv_log(s, SRV_LOG_INFO, "%s read from %s (not printed: read them there)",
                from_file == 3 ? "the admin and player tokens"
                : from_file & (1 << SRV_TOKEN_ADMIN) ? "the admin token" : "the player token",
                tpath);
}

/* Signals are caught before the port files say we are up: a script that reads the port and sends
 * SIGTERM at once gets the clean shutdown, not the default action (exit 143, lock file and
 * unwritten checkpoints left behind). A signal before uv_run waits for the loop. */
static void catch_signals(srv *s)
{
    uv_signal_init(s->loop, &s->sig_int);
    uv_signal_init(s->loop, &s->sig_term);
    s->sig_int.data = s->sig_term.data = s;
    uv_signal_start(&s->sig_int, on_signal, SIGINT);
    uv_signal_start(&s->sig_term, on_signal, SIGTERM);
}

/* --http-port-file and --port-file. 0, or 1 after a message. */
static int write_port_files(srv *s, const vivd_opts *vo)
{
    if (vo->http_port_file && srv_http_port(s) &&
        write_port_file(vo->http_port_file, srv_http_port(s), "--http-port-file") != 0)
        return 1;
    if (s->cfg.port_file && write_port_file(s->cfg.port_file, listener_port(s), "--port-file") != 0)
        return 1;
    return 0;
}

/* The once-a-second sweep and the I/O threads. 0, or 1 after a message. */
static int start_io(srv *s, const vivd_opts *vo)
{
    uv_timer_init(s->loop, &s->net->sweep_timer);
    s->net->sweep_timer.data = s;
    uv_timer_start(&s->net->sweep_timer, srv_sweep, 1000, 1000);
    char err[256];
    if (srv_io_start(s, vo->io_threads, err, sizeof err) != 0) {
        fprintf(stderr, "vivd: --io-threads %d: %s\n", vo->io_threads, err);
        return 1;
    }
    if (vo->io_threads)
        srv_log(s, SRV_LOG_INFO, "%d I/O thread(s) write to subscribers' TCP sockets", vo->io_threads);
    return 0;
}

/* --retain: the compaction thread, once the sessions of this start are written. 0, or 1 after a
 * message. */
static int start_retain(srv *s, const vivd_opts *vo)
{
    char err[256];
    if (!vo->retain || !s->db_path) return 0;
    if (srv_retain_start(s, vo->retain_s, vo->retain, err, sizeof err) != 0) {
        fprintf(stderr, "vivd: --retain %s: %s\n", vo->retain, err);
        return 1;
    }
    return 0;
}

/* Everything up to the first tick, in the order a failure must stop it (a port in use before
 * anything is written). 0, or the exit status after a message. */
static int vivd_start(srv *s, vivd_opts *vo)
{
    int origin[2], status;
    /* The tokens before any listener: a cluster start turns the loop (srv_cluster_start), and a
     * hello answered then, from a client or from another member for its client, must be checked
     * against this server's tokens, not against none. HTTP before TCP: a failed HTTP start
     * finishes its teardown on the loop, which must not hold a listener yet (srv_http_start). */
    choose_record(s, vo);
    /* A cluster start turns the loop while it waits for Redis; a client greeted then would be
     * dropped without a word if Redis then fails: none is accepted until it has joined. */
    s->net->holding = vo->ccfg.url != NULL;
    if ((status = setup_tokens(s, vo, origin)) || (status = start_http(s, vo)) || (status = listen_tcp(s, vo)) ||
        (status = join_cluster(s, vo)))
        return status;
    srv_net_accepting(s);
    if ((status = open_record(s, vo)) || (status = add_worlds(s, vo))) return status;
    log_started(s, vo, origin);
    catch_signals(s);
    if ((status = write_port_files(s, vo)) || (status = start_io(s, vo)) || (status = start_retain(s, vo)))
        return status;
    return 0;
}

/* Tick until a signal has stopped everything (on_signal). */
static void vivd_run(srv *s)
{
    srv_cluster_run(s);        /* registered with every world in place; the heartbeat starts */
    srv_tick_start(s);
    uv_run(s->loop, UV_RUN_DEFAULT);
}

/* After the run: close what the signal left open. */
static void vivd_stop(srv *s)
{
    srv_io_stop(s);            /* the threads let go; the clients they wrote are freed */
    srv_cluster_close(s);
    int rc = close_loop_all(s);
    if (rc) srv_log(s, SRV_LOG_WARN, "loop closed with handles open: %s", uv_strerror(rc));
    srv_log(s, SRV_LOG_INFO, "stopped");
}

/* A failed start: sessions not yet written stay unwritten (end skips them), and those a resume
 * had picked up stay suspended or running, for the next start. */
static void vivd_abandon(srv *s)
{
    srv_retain_stop(s);
    for (int i = 0; i < s->nworlds; i++) srv_record_end(s, s->worlds[i]);
    srv_record_close(s);
    srv_cluster_stop(s);       /* the name goes from Redis at once, not at expiry */
    srv_http_stop(s);
    close_own_handles(s);
    uv_run(s->loop, UV_RUN_DEFAULT);
    srv_cluster_close(s);
    close_loop_all(s);
}

static void vivd_free(srv *s)
{
    srv_net_free(s);
    for (int i = 0; i < s->nworlds; i++) srv_world_free(s->worlds[i]);
    s->nworlds = 0;
    srv_timelines_free(s);
    pool_destroy(s->pool);
}

int main(int argc, char **argv)
{
    vivd_opts vo;
    int rc = vivd_parse(&vo, argc, argv);
    if (rc != OPT_OK) return OPT_EXIT(rc);
    if (vivd_check(&vo) != 0) return 2;
    srv s;
    srv_net net;
    vivd_config(&s, &vo);
    signal(SIGPIPE, SIG_IGN);
    raise_nofile(&s);
    if (vo.threads > 1 && !vo.relay) {   /* a relay steps no world */
        char err[256];
        if (pool_create(vo.threads, &s.pool, err, sizeof err) != 0) {
            fprintf(stderr, "vivd: --threads %d: %s\n", vo.threads, err);
            return 1;
        }
    }
    int status = 1;
    if (srv_net_init(&s, &net) != 0) {
        fprintf(stderr, "vivd: out of memory (zstd context)\n");
    } else {
        s.loop = uv_default_loop();
        status = vivd_start(&s, &vo);
        if (status == 0) {
            vivd_run(&s);
            vivd_stop(&s);
        } else {
            vivd_abandon(&s);
        }
    }
    vivd_free(&s);
    return status;
}
