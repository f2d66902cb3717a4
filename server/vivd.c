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
#include "pool.h"
#include "replay.h"
#include "cluster.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: vivd [--listen HOST:PORT] [--http HOST:PORT | --no-http] [--web DIR] [--wasm FILE]\n"
        "            [--world KIND[:seed=N][:PARAMS]]... [--play FILE[:N]]...\n"
        "            [--admin-token T] [--player-token T] [--max-clients N] [--io-threads N]\n"
        "            [--db FILE | --no-record] [--fresh] [--new-tokens] [--durability normal|full]\n"
        "            [--port-file FILE] [--http-port-file FILE] [--threads N] [--quiet | --verbose]\n"
        "            [--cluster redis://HOST:PORT [--node NAME] [--relay] [--cluster-expiry S]]\n"
        "\n"
        "Hosts deterministic pixel-art worlds and streams their frames (docs/PROTOCOL.md).\n"
        "\n"
        "  --listen HOST:PORT   address to listen on (default 127.0.0.1:7400; port 0 picks one);\n"
        "                       HOST is an address or a name (localhost), resolved at start-up\n"
        "  --http HOST:PORT     serve the browser viewer and WebSocket clients on this address\n"
        "                       (default 127.0.0.1:7401; port 0 picks one): the page at\n"
        "                       http://HOST:PORT/, the protocol at ws://HOST:PORT/ws. Given\n"
        "                       explicitly, a failure to serve it stops vivd (exit 1); the\n"
        "                       default only warns (one line) and vivd serves TCP alone.\n"
        "                       Needs libwebsockets' libuv plugin (apt-get install\n"
        "                       libwebsockets-evlib-uv)\n"
        "  --no-http            no HTTP or WebSocket port: TCP only\n"
        "  --web DIR            the page's files (default: clients/web of the source tree the\n"
        "                       vivd binary was built in)\n"
        "  --wasm FILE          the page's sim module, served at /vivarium.wasm (default:\n"
        "                       vivarium.wasm beside the vivd binary; make builds it)\n");
    /* (two strings: C99 promises compilers only 4095 bytes for one) */
    fprintf(out,
        "  --world SPEC         host a world: KIND, then optional :seed=N and :key=value,... params,\n"
        "                       e.g. --world sand:seed=7:scene=bench. Repeatable. Default: one\n"
        "                       world of every kind (the demo set).\n"
        "  --admin-token T      token for the admin role (create/close worlds). Default:\n"
        "                       $VIVD_ADMIN_TOKEN, else the one kept in FILE.tokens (see below).\n"
        "  --player-token T     token for the player role (send inputs). Default:\n"
        "                       $VIVD_PLAYER_TOKEN, else the one kept in FILE.tokens.\n"
        "                       Tokens not given are kept in FILE.tokens beside the --db FILE\n"
        "                       (./vivarium.db.tokens; mode 0600, readable by you alone): made at\n"
        "                       random and printed at the first start, reused at every later one.\n"
        "                       With --no-record (or only --play) there is no file: tokens not\n"
        "                       given are new at each start.\n"
        "  --new-tokens         make new random tokens (for the roles not given) and keep them in\n"
        "                       FILE.tokens instead of the old ones\n"
        "  --max-clients N      connections beyond N are refused (default 1024)\n");
    fprintf(out,   /* two pieces: C caps a string literal at 4,095 bytes */
        "  --io-threads N       threads that write to subscribers' TCP sockets, each with its own\n"
        "                       event loop and share of the connections, so that the loop that\n"
        "                       ticks the worlds never makes those system calls (0..64; default:\n"
        "                       half the cores, at most 8, and 0 on one core). 0 writes every\n"
        "                       socket on the loop, as vivd did before. WebSocket clients are\n"
        "                       always written by the loop.\n"
        "  --db FILE            record every world in this replay file (default ./vivarium.db);\n"
        "                       sessions suspended by a clean stop or left running by a crash are\n"
        "                       resumed from it at start-up, at their last tick, checked against\n"
        "                       every recorded hash (then the demo set is not added; --world adds\n"
        "                       worlds as usual)\n"
        "  --fresh              resume nothing: close the sessions a stop or a crash left in FILE\n"
        "                       and start new ones\n"
        "  --no-record          record nothing\n"
        "  --durability MODE    normal (default: survives a crash of vivd) or full (also a power\n"
        "                       cut: every commit is synced to disk)\n"
        "  --play FILE[:N]      host session N of a replay file (the only one if N is omitted) as a\n"
        "                       read-only world, paused at its start; players and admins pause,\n"
        "                       resume, step, seek and set its speed (docs/PROTOCOL.md, play)\n"
        "  --port-file FILE     write the port actually bound to FILE (for scripts and tests)\n"
        "  --http-port-file FILE  the same for the HTTP port (nothing is written without HTTP)\n");
    fprintf(out,
        "  --threads N          workers for the worlds' parallel passes (sand's strips), the tick\n"
        "                       thread included (default: one per CPU, at most %d; 1: all on the\n"
        "                       tick thread). Frames, hashes and recordings are the same for every\n"
        "                       N: a session recorded with one N verifies and resumes with another\n"
        "  --quiet              log warnings and errors only\n"
        "  --cluster redis://HOST:PORT  join a cluster of vivd nodes and relays through this Redis\n"
        "                       (docs/CLUSTER.md): this vivd's worlds are listed for every member,\n"
        "                       its frames published for relays, and its viewers see every\n"
        "                       world of the cluster. Give every member the same tokens.\n"
        "  --node NAME          this member's name in the cluster (default HOSTNAME:PORT of\n"
        "                       --listen); letters, digits, . - _ : (a restarted node keeps it)\n"
        "  --relay              host no world: serve the cluster's worlds to viewers, and pass\n"
        "                       inputs, creates and closes on to their nodes (with --cluster)\n"
        "  --cluster-expiry S   seconds a member's registration outlives its last heartbeat\n"
        "                       (default 5; heartbeats every quarter of it). At start-up, a Redis\n"
        "                       that cannot be reached or refuses vivd, or a --node name another\n"
        "                       running vivd holds, is one line and exit status 1; once running,\n"
        "                       a lost Redis is retried (0.1 s doubling to 2 s) while worlds go on\n"
        "  --verbose            log every connection and error reply too\n"
        "\n"
        "Stop with SIGINT or SIGTERM: the current tick finishes, every session is suspended with\n"
        "a checkpoint (the next start on the same FILE resumes it), then vivd exits 0.\n"
        "Watch with: viv view --host 127.0.0.1:7400, or open http://127.0.0.1:7401/\n",
        POOL_DEFAULT_MAX);
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
                           (uv_handle_t *)&s->sig_int, (uv_handle_t *)&s->sig_term,
                           (uv_handle_t *)&s->rec_async };
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
    srv_cluster_stop(s);           /* this member's worlds leave the registry now */
    srv_jobs_cancel(s);            /* creates and seeks not started; running ones are discarded */
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

/* The page's files when --web is not given: clients/web of the source tree the binary was built
 * in (bin/vivd, build/san/bin/vivd), so that it is found from any working directory: the nearest
 * ancestor of the binary's folder with a clients/web folder, else the nearest that is the source
 * tree (it has docs/PROTOCOL.md; the page may not be there yet, and vivd says so). */
static const char *default_web_dir(char *out, size_t outlen)
{
    char exe[PATH_MAX], tree[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(out, outlen, "clients/web");
    if (n <= 0) return out;
    exe[n] = '\0';
    for (int up = 0; up < 6; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash || slash == exe) break;
        *slash = '\0';
        char probe[PATH_MAX + 32];
        struct stat st;
        snprintf(probe, sizeof probe, "%s/clients/web", exe);
        if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode) && strlen(probe) < outlen) {
            memcpy(out, probe, strlen(probe) + 1);
            return out;
        }
        snprintf(probe, sizeof probe, "%s/docs/PROTOCOL.md", exe);
        if (!tree[0] && stat(probe, &st) == 0) snprintf(tree, sizeof tree, "%s", exe);
    }
    if (tree[0] && strlen(tree) + 12 < outlen) {
        memcpy(out, tree, strlen(tree));
        memcpy(out + strlen(tree), "/clients/web", 13);
    }
    return out;
}

/* The page's sim module when --wasm is not given: vivarium.wasm beside the vivd binary (make
 * builds bin/vivarium.wasm beside bin/vivd, and a sanitizer build's beside its own). */
static const char *default_wasm_path(char *out, size_t outlen)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(out, outlen, "vivarium.wasm");
    if (n <= 0) return out;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    size_t dir = slash ? (size_t)(slash - exe) : 0;
    if (slash && dir + sizeof "/vivarium.wasm" <= outlen) {
        memcpy(out, exe, dir);
        memcpy(out + dir, "/vivarium.wasm", sizeof "/vivarium.wasm");
    }
    return out;
}

/* Write a port number to path atomically (a reader sees no file or the whole number). */
static int write_port_file(const char *path, int port, const char *opt)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp || fprintf(fp, "%d\n", port) < 0 || fclose(fp) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "vivd: cannot write %s %s: %s\n", opt, path, strerror(errno));
        return -1;
    }
    return 0;
}

/* HOST:PORT for option opt into host (without brackets' removal: resolve_listen does that) and
 * *port. 0, or -1 with a message on stderr. */
static int parse_hostport(const char *opt, const char *v, const char *example, char *host,
                          size_t hostlen, int *port)
{
    const char *colon = strrchr(v, ':');
    char *end;
    long p = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || colon == v || (size_t)(colon - v) >= hostlen || *end || p < 0 || p > 65535 ||
        colon[1] == '\0') {
        fprintf(stderr, "vivd: %s wants HOST:PORT (e.g. %s), got '%s'\n", opt, example, v);
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
static int resolve_listen(const char *opt, const char *host, int port, struct sockaddr_storage *out,
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
        fprintf(stderr, "vivd: %s: cannot resolve '%s': %s\n", opt, host, gai_strerror(rc));
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
        fprintf(stderr, "vivd: %s: '%s' has no IPv4 or IPv6 address\n", opt, host);
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

int main(int argc, char **argv)
{
    srv s;
    srv_net net;
    memset(&s, 0, sizeof s);
    s.lock_fd = -1;
    s.cfg.listen_host = "127.0.0.1";
    s.cfg.listen_port = 7400;
    s.cfg.max_clients = 1024;
    s.cfg.log_level = SRV_LOG_INFO;
    s.next_world_id = 1;
    const char *worlds[SRV_MAX_WORLDS];
    int nworlds = 0;
    const char *admin = getenv("VIVD_ADMIN_TOKEN"), *player = getenv("VIVD_PLAYER_TOKEN");
    static char host[256];
    const char *db = "vivarium.db";
    int no_record = 0, db_explicit = 0, nplays = 0, fresh = 0, new_tokens = 0;
    static char hhost[256];
    const char *http_host = "127.0.0.1", *web_dir = NULL, *http_port_file = NULL, *wasm_path = NULL;
    int http_port = 7401, http_asked = 0, no_http = 0;
    int io_threads = default_io_threads();
    const char *plays[SRV_MAX_WORLDS];
    int relay = 0;
    srv_cluster_config ccfg;
    memset(&ccfg, 0, sizeof ccfg);
    int threads = pool_default_workers();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("vivd %s\n", SRV_VERSION);
            return 0;
        } else if (strcmp(a, "--quiet") == 0) {
            s.cfg.log_level = SRV_LOG_WARN;
            continue;
        } else if (strcmp(a, "--verbose") == 0) {
            s.cfg.log_level = SRV_LOG_DEBUG;
            continue;
        } else if (strcmp(a, "--no-record") == 0) {
            s.db_path = NULL;
            no_record = 1;
            continue;
        } else if (strcmp(a, "--fresh") == 0) {
            fresh = 1;
            continue;
        } else if (strcmp(a, "--new-tokens") == 0) {
            new_tokens = 1;
            continue;
        } else if (strcmp(a, "--no-http") == 0) {
            no_http = 1;
            continue;
        } else if (strcmp(a, "--relay") == 0) {
            relay = 1;
            continue;
        }
        static const char *const with_value[] = { "--listen", "--world", "--admin-token",
                                                  "--player-token", "--max-clients", "--port-file",
                                                  "--db", "--durability", "--play", "--http",
                                                  "--web", "--http-port-file", "--wasm",
                                                  "--io-threads", "--threads", "--cluster",
                                                  "--node", "--cluster-expiry" };
        int known = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
            known |= strcmp(a, with_value[k]) == 0;
        if (!known) {
            fprintf(stderr, "vivd: unknown option '%s' (see vivd --help)\n", a);
            return 2;
        }
        if (!v) {
            fprintf(stderr, "vivd: %s needs a value (see vivd --help)\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--listen") == 0) {
            if (parse_hostport(a, v, "127.0.0.1:7400", host, sizeof host, &s.cfg.listen_port) != 0) return 2;
            s.cfg.listen_host = host;
        } else if (strcmp(a, "--http") == 0) {
            if (parse_hostport(a, v, "127.0.0.1:7401", hhost, sizeof hhost, &http_port) != 0) return 2;
            http_host = hhost;
            http_asked = 1;
        } else if (strcmp(a, "--web") == 0) {
            web_dir = v;
        } else if (strcmp(a, "--wasm") == 0) {
            wasm_path = v;
        } else if (strcmp(a, "--http-port-file") == 0) {
            http_port_file = v;
        } else if (strcmp(a, "--world") == 0) {
            if (nworlds == SRV_MAX_WORLDS) {
                fprintf(stderr, "vivd: at most %d --world options\n", SRV_MAX_WORLDS);
                return 2;
            }
            char k[64], p[SIM_PARAMS_MAX];
            uint64_t sd;
            if (parse_world_spec(v, k, sizeof k, &sd, p, sizeof p) != 0) return 2;
            worlds[nworlds++] = v;
        } else if (strcmp(a, "--admin-token") == 0) {
            admin = v;
        } else if (strcmp(a, "--player-token") == 0) {
            player = v;
        } else if (strcmp(a, "--max-clients") == 0) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1000000) {
                fprintf(stderr, "vivd: --max-clients wants an integer in 1..1000000, got '%s'\n", v);
                return 2;
            }
            s.cfg.max_clients = (int)n;
        } else if (strcmp(a, "--io-threads") == 0) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 0 || n > 64) {
                fprintf(stderr, "vivd: --io-threads wants an integer in 0..64, got '%s'\n", v);
                return 2;
            }
            io_threads = (int)n;
        } else if (strcmp(a, "--cluster") == 0) {
            char h[256], err[256];
            int p;
            if (srv_redis_parse_url(v, h, sizeof h, &p, err, sizeof err) != 0) {
                fprintf(stderr, "vivd: %s\n", err);
                return 2;
            }
            ccfg.url = v;
        } else if (strcmp(a, "--node") == 0) {
            if (!srv_cluster_name_ok(v)) {
                fprintf(stderr, "vivd: --node '%s': a name is 1..63 letters, digits and . - _ :\n", v);
                return 2;
            }
            ccfg.name = v;
        } else if (strcmp(a, "--cluster-expiry") == 0) {
            char *end;
            double sec = strtod(v, &end);
            if (*end || end == v || !(sec >= 0.5 && sec <= 600)) {
                fprintf(stderr, "vivd: --cluster-expiry wants seconds in 0.5..600, got '%s'\n", v);
                return 2;
            }
            ccfg.expiry_ms = (uint64_t)(sec * 1000.0);
        } else if (strcmp(a, "--port-file") == 0) {
            s.cfg.port_file = v;
        } else if (strcmp(a, "--threads") == 0) {
            char err[256];
            if (pool_parse_workers("--threads", v, &threads, err, sizeof err) != 0) {
                fprintf(stderr, "vivd: %s\n", err);
                return 2;
            }
        } else if (strcmp(a, "--db") == 0) {
            db = v;
            db_explicit = 1;
        } else if (strcmp(a, "--play") == 0) {
            if (nplays == SRV_MAX_WORLDS) {
                fprintf(stderr, "vivd: at most %d --play options\n", SRV_MAX_WORLDS);
                return 2;
            }
            plays[nplays++] = v;
        } else if (strcmp(a, "--durability") == 0) {
            if (strcmp(v, "normal") == 0) s.durability = RPL_DUR_NORMAL;
            else if (strcmp(v, "full") == 0) s.durability = RPL_DUR_FULL;
            else {
                fprintf(stderr, "vivd: --durability is normal or full, got '%s'\n", v);
                return 2;
            }
        } else {
            fprintf(stderr, "vivd: unknown option '%s' (see vivd --help)\n", a);
            return 2;
        }
    }
    /* Everything that can be checked is checked before anything is opened or created. */
    if (no_record && db_explicit) {
        fprintf(stderr, "vivd: --db and --no-record contradict each other\n");
        return 2;
    }
    if (no_http && (http_asked || web_dir || http_port_file || wasm_path)) {
        fprintf(stderr, "vivd: --no-http contradicts %s\n", http_asked ? "--http" : web_dir ? "--web"
                : wasm_path ? "--wasm" : "--http-port-file");
        return 2;
    }
    if (no_http) http_host = NULL;
    if (!ccfg.url && (relay || ccfg.name || ccfg.expiry_ms)) {
        fprintf(stderr, "vivd: %s needs --cluster redis://HOST:PORT\n", relay ? "--relay" : ccfg.name
                ? "--node" : "--cluster-expiry");
        return 2;
    }
    if (relay && (nworlds || nplays || db_explicit || fresh || new_tokens)) {
        fprintf(stderr, "vivd: --relay hosts no world and records nothing: it contradicts %s\n",
                nworlds ? "--world" : nplays ? "--play" : db_explicit ? "--db" : fresh ? "--fresh"
                : "--new-tokens");
        return 2;
    }
    if (relay) no_record = 1;
    ccfg.relay = relay;
    if (admin && *admin && player && *player && strcmp(admin, player) == 0) {
        fprintf(stderr, "vivd: the admin and player tokens must differ\n");
        return 2;
    }
    struct sockaddr_storage addr;
    char bound_ip[64];
    if (resolve_listen("--listen", s.cfg.listen_host, s.cfg.listen_port, &addr, bound_ip, sizeof bound_ip) != 0)
        return 2;
    struct sockaddr_storage http_addr;
    char http_ip[64] = "";
    if (http_host && resolve_listen("--http", http_host, http_port, &http_addr, http_ip, sizeof http_ip) != 0)
        return 2;
    int rc;
    signal(SIGPIPE, SIG_IGN);
    /* Each client is a descriptor: raise the soft limit to the hard one, and keep max-clients
     * under it, or accepts would fail with nothing to show for it. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        if (rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
            getrlimit(RLIMIT_NOFILE, &rl);
        }
        if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)s.cfg.max_clients + 64 > rl.rlim_cur) {
            int cap = rl.rlim_cur > 128 ? (int)rl.rlim_cur - 64 : 64;
            srv_log(&s, SRV_LOG_WARN, "--max-clients %d lowered to %d: the open-file limit is %llu",
                    s.cfg.max_clients, cap, (unsigned long long)rl.rlim_cur);
            s.cfg.max_clients = cap;
        }
    }
    int status = 0;
    if (threads > 1 && !relay) {         /* a relay steps no world */
        char err[256];
        if (pool_create(threads, &s.pool, err, sizeof err) != 0) {
            fprintf(stderr, "vivd: --threads %d: %s\n", threads, err);
            return 1;
        }
    }
    if (srv_net_init(&s, &net) != 0) {
        fprintf(stderr, "vivd: out of memory (zstd context)\n");
        status = 1;
        goto done;
    }
    s.loop = uv_default_loop();
    /* The port first: a start that cannot listen (the port is in use) has touched nothing. */
    uv_tcp_init(s.loop, &s.net->listener);
    s.net->listener.data = &s;
    rc = uv_tcp_bind(&s.net->listener, (const struct sockaddr *)&addr, 0);
    if (!rc) rc = uv_listen((uv_stream_t *)&s.net->listener, 511, srv_on_connection);
    if (rc) {
        fprintf(stderr, "vivd: cannot listen on %s:%d: %s%s\n", s.cfg.listen_host, s.cfg.listen_port,
                uv_strerror(rc), rc == UV_EADDRINUSE ? " (another vivd? pick another --listen port)" : "");
        status = 1;
        goto close_loop;
    }
    /* Then HTTP: asked for, it must work; by default, a failure is one line and TCP goes on. */
    if (http_host) {
        static char webbuf[PATH_MAX], wasmbuf[PATH_MAX];
        char err[600];
        s.net->http_host = http_ip;
        s.net->http_port = http_port;
        s.net->http_asked = http_asked;
        s.net->web_dir = web_dir ? web_dir : default_web_dir(webbuf, sizeof webbuf);
        s.net->wasm_path = wasm_path ? wasm_path : default_wasm_path(wasmbuf, sizeof wasmbuf);
        if (srv_http_start(&s, err, sizeof err) != 0) {
            if (http_asked) {
                fprintf(stderr, "vivd: --http %s:%d: %s\n", http_host, http_port, err);
                status = 1;
                goto close_loop;
            }
            srv_log(&s, SRV_LOG_WARN, "no browser viewer on %s:%d: %s; serving TCP only", http_host,
                    http_port, err);
        }
    }
    /* The cluster next: a name clash or an unreachable Redis stops vivd before anything is
     * written, and a node's world ids start in its own id space. */
    if (ccfg.url) {
        char err[600], shown[160], hshown[160] = "";
        struct sockaddr_storage b;
        int blen = sizeof b, bport = s.cfg.listen_port;
        if (uv_tcp_getsockname(&s.net->listener, (struct sockaddr *)&b, &blen) == 0)
            bport = ntohs(b.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&b)->sin6_port
                                                  : ((struct sockaddr_in *)&b)->sin_port);
        snprintf(shown, sizeof shown, "%s:%d", bound_ip, bport);
        if (srv_http_port(&s)) snprintf(hshown, sizeof hshown, "%s:%d", http_ip, srv_http_port(&s));
        ccfg.listen = shown;
        ccfg.http = hshown;
        if (srv_cluster_start(&s, &ccfg, err, sizeof err) != 0) {
            fprintf(stderr, "vivd: --cluster %s: %s\n", ccfg.url, err);
            status = 1;
            goto close_loop;
        }
        s.node_name = srv_cluster_node(&s);
    }
    /* Only playing recordings: nothing live to record, unless a --db was asked for. */
    if (nplays && !nworlds && !db_explicit) no_record = 1;
    s.db_path = no_record ? NULL : db;
    if (s.db_path) {
        char err[512];
        if (srv_record_open(&s, err, sizeof err) != 0) {
            fprintf(stderr, "vivd: --db %s: %s\n", s.db_path, err);
            status = 1;
            goto close_loop;
        }
    }
    int origin[2];
    {
        char err[512], tpath[4200];
        const char *given[2] = { admin, player };
        if (s.db_path) snprintf(tpath, sizeof tpath, "%s.tokens", s.db_path);
        if (srv_tokens_setup(&s, s.db_path ? tpath : NULL, given, new_tokens, origin, err, sizeof err) != 0) {
            fprintf(stderr, "vivd: %s\n", err);
            status = 2;
            goto close_loop;
        }
        /* A relay's tokens are the nodes' (which check them again): one not given is none, and
         * nobody takes that role through this relay. */
        for (int r = 0; relay && r < 2; r++) {
            if (origin[r] != SRV_TOKEN_NEW) continue;
            (r == SRV_TOKEN_ADMIN ? s.cfg.admin_token : s.cfg.player_token)[0] = '\0';
            origin[r] = SRV_TOKEN_GIVEN;
            srv_log(&s, SRV_LOG_INFO, "no %s token given to this relay: no %s can use it (give it "
                    "the nodes' --%s-token or $VIVD_%s_TOKEN)", r ? "player" : "admin",
                    r ? "player" : "admin", r ? "player" : "admin", r ? "PLAYER" : "ADMIN");
        }
    }
    /* Nothing is written to the log until every world is in place (srv_record_start). */
    s.rec_starting = 1;
    int resumed = relay ? 0 : srv_record_resume_all(&s, fresh);
    for (int i = 0; i < nworlds; i++)
        if (parse_world(&s, worlds[i]) != 0) {
            status = 2;
            goto close_loop;
        }
    for (int i = 0; i < nplays; i++) {
        char err[512];
        if (srv_play_open(&s, plays[i], err, sizeof err) < 0) {
            fprintf(stderr, "vivd: --play %s: %s\n", plays[i], err);
            status = 2;
            goto close_loop;
        }
    }
    if (!relay && nworlds == 0 && resumed == 0 && nplays == 0) {   /* the demo set, unless told otherwise */
        for (int k = 0; k < sim_kind_count(); k++) {
            char err[256] = "";
            if (srv_world_add(&s, sim_kind_at(k)->name, 1, "", err, sizeof err) < 0) {
                fprintf(stderr, "vivd: demo world %s: %s\n", sim_kind_at(k)->name, err);
                status = 1;
                goto close_loop;
            }
        }
    }
    s.rec_starting = 0;
    if (srv_record_start(&s) != 0)
        srv_log(&s, SRV_LOG_ERROR, "the sessions could not all be written to %s", s.db_path);
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    int port = s.cfg.listen_port;
    if (uv_tcp_getsockname(&s.net->listener, (struct sockaddr *)&bound, &blen) == 0)
        port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                 : ((struct sockaddr_in *)&bound)->sin_port);
    if (strcmp(bound_ip, s.cfg.listen_host) == 0)
        srv_log(&s, SRV_LOG_INFO, "vivd %s listening on %s:%d with %d world(s)", SRV_VERSION,
                s.cfg.listen_host, port, s.nworlds);
    else
        srv_log(&s, SRV_LOG_INFO, "vivd %s listening on %s:%d (%s) with %d world(s)", SRV_VERSION,
                s.cfg.listen_host, port, bound_ip, s.nworlds);
    if (srv_http_port(&s)) {
        const char *hh = strchr(http_ip, ':') ? "[" : "";
        srv_log(&s, SRV_LOG_INFO, "the browser viewer: http://%s%s%s:%d/ (WebSocket ws://%s%s%s:%d/ws, "
                "files from %s)", hh, http_ip, *hh ? "]" : "", srv_http_port(&s), hh, http_ip,
                *hh ? "]" : "", srv_http_port(&s), srv_http_web_dir(&s));
    }
    static const char *const role[2] = { "admin", "player" };
    for (int r = 0; r < 2; r++) {
        const char *tok = r == SRV_TOKEN_ADMIN ? s.cfg.admin_token : s.cfg.player_token;
        if (origin[r] == SRV_TOKEN_NEW && s.db_path)
            srv_log(&s, SRV_LOG_INFO, "%s token (new, kept in %s.tokens): %s", role[r], s.db_path, tok);
        else if (origin[r] == SRV_TOKEN_NEW)
            srv_log(&s, SRV_LOG_INFO, "%s token (generated): %s", role[r], tok);
        else if (origin[r] == SRV_TOKEN_FILE)
            srv_log(&s, SRV_LOG_INFO, "%s token (from %s.tokens): %s", role[r], s.db_path, tok);
    }
    /* Signals are caught before the port files say we are up: a script that reads the port and
     * sends SIGTERM at once gets the clean shutdown, not the default action (exit 143, lock file
     * and unwritten checkpoints left behind). A signal before uv_run waits for the loop. */
    uv_signal_init(s.loop, &s.sig_int);
    uv_signal_init(s.loop, &s.sig_term);
    s.sig_int.data = s.sig_term.data = &s;
    uv_signal_start(&s.sig_int, on_signal, SIGINT);
    uv_signal_start(&s.sig_term, on_signal, SIGTERM);
    if (http_port_file && srv_http_port(&s) &&
        write_port_file(http_port_file, srv_http_port(&s), "--http-port-file") != 0) {
        status = 1;
        goto close_loop;
    }
    if (s.cfg.port_file && write_port_file(s.cfg.port_file, port, "--port-file") != 0) {
        status = 1;
        goto close_loop;
    }
    uv_timer_init(s.loop, &s.net->sweep_timer);
    s.net->sweep_timer.data = &s;
    uv_timer_start(&s.net->sweep_timer, srv_sweep, 1000, 1000);
    {
        char err[256];
        if (srv_io_start(&s, io_threads, err, sizeof err) != 0) {
            fprintf(stderr, "vivd: --io-threads %d: %s\n", io_threads, err);
            status = 1;
            goto close_loop;
        }
        if (io_threads)
            srv_log(&s, SRV_LOG_INFO, "%d I/O thread(s) write to subscribers' TCP sockets", io_threads);
    }
    srv_cluster_run(&s);       /* registered with every world in place; the heartbeat starts */
    srv_tick_start(&s);
    uv_run(s.loop, UV_RUN_DEFAULT);
    srv_io_stop(&s);           /* the threads let go; the clients they wrote are freed */
    srv_cluster_close(&s);
    rc = close_loop_all(&s);
    if (rc) srv_log(&s, SRV_LOG_WARN, "loop closed with handles open: %s", uv_strerror(rc));
    srv_log(&s, SRV_LOG_INFO, "stopped");
    goto done;
close_loop:
    /* A failed start: sessions not yet written stay unwritten (end skips them), and those a
     * resume had picked up stay suspended or running, for the next start. */
    for (int i = 0; i < s.nworlds; i++) srv_record_end(&s, s.worlds[i]);
    srv_record_close(&s);
    srv_cluster_stop(&s);      /* the name goes from Redis at once, not at expiry */
    srv_http_stop(&s);
    close_own_handles(&s);
    uv_run(s.loop, UV_RUN_DEFAULT);
    srv_cluster_close(&s);
    close_loop_all(&s);
done:
    srv_net_free(&s);
    for (int i = 0; i < s.nworlds; i++) srv_world_free(s.worlds[i]);
    s.nworlds = 0;
    pool_destroy(s.pool);
    return status;
}
