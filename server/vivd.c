/* vivd.c — the Vivarium server: options, start-up, signals, shutdown. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include "replay.h"
#include "network.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: vivd [--listen HOST:PORT] [--world KIND[:seed=N][:PARAMS]]... [--play FILE[:N]]...\n"
        "            [--admin-token T] [--player-token T] [--max-clients N]\n"
        "            [--db FILE | --no-record] [--durability normal|full]\n"
        "            [--port-file FILE] [--quiet | --verbose]\n"
        "\n"
        "Hosts deterministic pixel-art worlds and streams their frames (docs/PROTOCOL.md).\n"
        "\n"
        "  --listen HOST:PORT   address to listen on (default 127.0.0.1:7400; port 0 picks one)\n"
        "  --world SPEC         host a world: KIND, then optional :seed=N and :key=value,... params,\n"
        "                       e.g. --world sand:seed=7:scene=bench. Repeatable. Default: one\n"
        "                       world of every kind (the demo set).\n"
        "  --admin-token T      token for the admin role (create/close worlds). Default:\n"
        "                       $VIVD_ADMIN_TOKEN, else a random one printed at start-up.\n"
        "  --player-token T     token for the player role (send inputs). Default:\n"
        "                       $VIVD_PLAYER_TOKEN, else a random one printed at start-up.\n"
        "  --max-clients N      connections beyond N are refused (default 1024)\n"
        "  --db FILE            record every world in this replay file (default ./vivarium.db);\n"
        "                       sessions left running by a crash are resumed from it at start-up\n"
        "                       (then the demo set is not added; --world adds worlds as usual)\n"
        "  --no-record          record nothing\n"
        "  --durability MODE    normal (default: survives a crash of vivd) or full (also a power\n"
        "                       cut: every commit is synced to disk)\n"
        "  --play FILE[:N]      host session N of a replay file (the only one if N is omitted) as a\n"
        "                       read-only world, paused at its start; players and admins pause,\n"
        "                       resume, step, seek and set its speed (docs/PROTOCOL.md, play)\n"
        "  --port-file FILE     write the port actually bound to FILE (for scripts and tests)\n"
        "  --quiet              log warnings and errors only\n"
        "  --verbose            log every connection and error reply too\n"
        "\n"
        "Stop with SIGINT or SIGTERM: the current tick finishes, then vivd exits 0.\n"
        "Watch with: viv view --host 127.0.0.1:7400\n");
}

static int random_token(char *out, size_t cap)
{
    uint8_t b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) return -1;
    for (size_t i = 0; i < sizeof b && 2 * i + 2 < cap; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
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

static void on_walk_close(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

static void on_signal(uv_signal_t *sig, int signum)
{
    srv *s = sig->data;
    if (s->stopping) return;
    s->stopping = 1;
    srv_log(s, SRV_LOG_INFO, "%s: finishing the current tick and shutting down",
            signum == SIGINT ? "SIGINT" : "SIGTERM");
    srv_world_stats_log(s, SRV_LOG_INFO);
    uv_timer_stop(&s->tick_timer);
    uv_timer_stop(&s->net->sweep_timer);
    /* Every session ends closed, and everything queued reaches the disk before we go. */
    for (int i = 0; i < s->nworlds; i++) srv_record_end(s, s->worlds[i]);
    srv_record_close(s);
    /* Clients close through their own path (their handles free their memory). */
    while (s->net->clients) srv_client_close(s->net->clients, "server shutting down");
    uv_walk(s->loop, on_walk_close, NULL);
}

int main(int argc, char **argv)
{
    srv s;
    srv_net net;
    memset(&s, 0, sizeof s);
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
    int no_record = 0, db_explicit = 0, nplays = 0;
    const char *plays[SRV_MAX_WORLDS];
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
        }
        static const char *const with_value[] = { "--listen", "--world", "--admin-token",
                                                  "--player-token", "--max-clients", "--port-file",
                                                  "--db", "--durability", "--play" };
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
            const char *colon = strrchr(v, ':');
            char *end;
            long port = colon ? strtol(colon + 1, &end, 10) : -1;
            if (!colon || colon == v || (size_t)(colon - v) >= sizeof host || *end || port < 0 ||
                port > 65535 || colon[1] == '\0') {
                fprintf(stderr, "vivd: --listen wants HOST:PORT (e.g. 127.0.0.1:7400), got '%s'\n", v);
                return 2;
            }
            memcpy(host, v, (size_t)(colon - v));
            host[colon - v] = '\0';
            s.cfg.listen_host = host;
            s.cfg.listen_port = (int)port;
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
        } else if (strcmp(a, "--port-file") == 0) {
            s.cfg.port_file = v;
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
    /* The address is checked before anything is opened or created. */
    struct sockaddr_storage addr;
    int rc = uv_ip4_addr(s.cfg.listen_host, s.cfg.listen_port, (struct sockaddr_in *)&addr);
    if (rc) rc = uv_ip6_addr(s.cfg.listen_host, s.cfg.listen_port, (struct sockaddr_in6 *)&addr);
    if (rc) {
        fprintf(stderr, "vivd: --listen: '%s' is not an IPv4 or IPv6 address\n", s.cfg.listen_host);
        return 2;
    }
    int gen_admin = !admin || !*admin, gen_player = !player || !*player;
    if (gen_admin ? random_token(s.cfg.admin_token, sizeof s.cfg.admin_token)
                  : (snprintf(s.cfg.admin_token, sizeof s.cfg.admin_token, "%s", admin), 0)) {
        fprintf(stderr, "vivd: cannot generate a random token: %s\n", strerror(errno));
        return 1;
    }
    if (gen_player ? random_token(s.cfg.player_token, sizeof s.cfg.player_token)
                   : (snprintf(s.cfg.player_token, sizeof s.cfg.player_token, "%s", player), 0)) {
        fprintf(stderr, "vivd: cannot generate a random token: %s\n", strerror(errno));
        return 1;
    }
    if (strcmp(s.cfg.admin_token, s.cfg.player_token) == 0) {
        fprintf(stderr, "vivd: the admin and player tokens must differ\n");
        return 2;
    }
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
    if (srv_net_init(&s, &net) != 0) {
        fprintf(stderr, "vivd: out of memory (zstd context)\n");
        status = 1;
        goto done;
    }
    s.loop = uv_default_loop();
    s.lock_fd = -1;
    if (no_record && db && strcmp(db, "vivarium.db") != 0) {
        fprintf(stderr, "vivd: --db and --no-record contradict each other\n");
        status = 2;
        goto done;
    }
    /* Only playing recordings: nothing live to record, unless a --db was asked for. */
    if (nplays && !nworlds && !db_explicit) no_record = 1;
    s.db_path = no_record ? NULL : db;
    if (s.db_path) {
        char err[512];
        if (srv_record_open(&s, err, sizeof err) != 0) {
            fprintf(stderr, "vivd: --db %s: %s\n", s.db_path, err);
            status = 1;
            goto done;
        }
    }
    int resumed = srv_record_resume_all(&s);
    for (int i = 0; i < nworlds; i++)
        if (parse_world(&s, worlds[i]) != 0) {
            status = 2;
            goto done;
        }
    for (int i = 0; i < nplays; i++) {
        char err[512];
        if (srv_play_open(&s, plays[i], err, sizeof err) < 0) {
            fprintf(stderr, "vivd: --play %s: %s\n", plays[i], err);
            status = 2;
            goto done;
        }
    }
    if (nworlds == 0 && resumed == 0 && nplays == 0) {   /* the demo set, unless told otherwise */
        for (int k = 0; k < sim_kind_count(); k++) {
            char err[256] = "";
            if (srv_world_add(&s, sim_kind_at(k)->name, 1, "", err, sizeof err) < 0) {
                fprintf(stderr, "vivd: demo world %s: %s\n", sim_kind_at(k)->name, err);
                status = 1;
                goto done;
            }
        }
    }
    uv_tcp_init(s.loop, &s.net->listener);
    s.net->listener.data = &s;
    rc = uv_tcp_bind(&s.net->listener, (const struct sockaddr *)&addr, 0);
    if (!rc) rc = uv_listen((uv_stream_t *)&s.net->listener, 511, srv_on_connection);
    if (rc) {
        fprintf(stderr, "vivd: cannot listen on %s:%d: %s\n", s.cfg.listen_host, s.cfg.listen_port,
                uv_strerror(rc));
        status = 1;
        goto close_loop;
    }
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    int port = s.cfg.listen_port;
    if (uv_tcp_getsockname(&s.net->listener, (struct sockaddr *)&bound, &blen) == 0)
        port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                 : ((struct sockaddr_in *)&bound)->sin_port);
    srv_log(&s, SRV_LOG_INFO, "vivd %s listening on %s:%d with %d world(s)", SRV_VERSION,
            s.cfg.listen_host, port, s.nworlds);
    if (gen_admin) srv_log(&s, SRV_LOG_INFO, "admin token (generated): %s", s.cfg.admin_token);
    if (gen_player) srv_log(&s, SRV_LOG_INFO, "player token (generated): %s", s.cfg.player_token);
    if (s.cfg.port_file) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", s.cfg.port_file);
        FILE *fp = fopen(tmp, "w");
        if (!fp || fprintf(fp, "%d\n", port) < 0 || fclose(fp) != 0 || rename(tmp, s.cfg.port_file) != 0) {
            fprintf(stderr, "vivd: cannot write --port-file %s: %s\n", s.cfg.port_file, strerror(errno));
            status = 1;
            goto close_loop;
        }
    }
    uv_timer_init(s.loop, &s.tick_timer);
    uv_timer_init(s.loop, &s.net->sweep_timer);
    s.net->sweep_timer.data = &s;
    uv_timer_start(&s.net->sweep_timer, srv_sweep, 1000, 1000);
    uv_signal_init(s.loop, &s.sig_int);
    uv_signal_init(s.loop, &s.sig_term);
    s.sig_int.data = s.sig_term.data = &s;
    uv_signal_start(&s.sig_int, on_signal, SIGINT);
    uv_signal_start(&s.sig_term, on_signal, SIGTERM);
    srv_tick_start(&s);
    uv_run(s.loop, UV_RUN_DEFAULT);
    rc = uv_loop_close(s.loop);
    if (rc) srv_log(&s, SRV_LOG_WARN, "loop closed with handles open: %s", uv_strerror(rc));
    srv_log(&s, SRV_LOG_INFO, "stopped");
    goto done;
close_loop:
    for (int i = 0; i < s.nworlds; i++) srv_record_end(&s, s.worlds[i]);
    srv_record_close(&s);
    uv_walk(s.loop, on_walk_close, NULL);
    uv_run(s.loop, UV_RUN_DEFAULT);
    uv_loop_close(s.loop);
done:
    if (s.rec) {                           /* an early exit: leave nothing half-written */
        for (int i = 0; i < s.nworlds; i++) srv_record_end(&s, s.worlds[i]);
        srv_record_close(&s);
        uv_close((uv_handle_t *)&s.rec_async, NULL);
        uv_run(s.loop, UV_RUN_DEFAULT);
        uv_loop_close(s.loop);
    }
    srv_net_free(&s);
    for (int i = 0; i < s.nworlds; i++) srv_world_free(s.worlds[i]);
    s.nworlds = 0;
    return status;
}
