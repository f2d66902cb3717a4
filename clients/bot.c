/* bot.c — `viv bot`: a load generator for vivd (docs/PROTOCOL.md).
 *
 * One libuv loop drives every connection, over TCP or (--ws) WebSocket: N viewers (hello, sub, count frames, keyframes and tick
 * gaps), P players (random valid inputs at a fixed total rate; ack latency), K slow clients
 * (subscribe to raw frames and never read) and one control connection (stats before and after the
 * measured window). Viewers decode only a frame's header fields — at 1000 viewers × 60 fps the
 * bot must stay far cheaper than the server it measures — except the --verify ones, which
 * rebuild every frame and check its hash.
 *
 * Phases: CONTROL (control hello, pick the world) → RAMP (connect at most BOT_RAMP_INFLIGHT at a
 * time, each waiting for its welcome — a viewer for its first frame) → RUN (the measured window:
 * S seconds; the control connection samples stats each second to see how far behind the world
 * each viewer is) → FINAL (the last stats, the last acks) → DRAIN (read the slow clients to see
 * whether the server dropped them) → DONE. Everything hangs off one `bot`; nothing is global. */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include "bot.h"
#include "cli.h"
#include "opt.h"

const char *const bot_role_names[ROLE_COUNT] = { "control", "viewer", "player", "slow" };
const char *const bot_role_plural[ROLE_COUNT] = { "control", "viewers", "players", "slow" };

static void after_final(bot *b);

void bot_fatal(bot *b, const char *fmt, ...)
{
    if (!b->fatal[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(b->fatal, sizeof b->fatal, fmt, ap);
        va_end(ap);
    }
    b->exit_code = 1;
    if (b->phase == P_RUN) bot_end_window(b);
    else if (b->phase != P_FINAL && b->phase != P_DRAIN) bot_finish(b);
}

static void ramp_done(bot *b)
{
    uint64_t t = now_ns();
    b->phase = P_RUN;
    b->t_window_start = t;
    b->t_window_end = t + (uint64_t)b->o.seconds * 1000000000u;
    b->t_last_ping = b->t_last_sample = t;
    uv_getrusage(&b->ru_start);
    bot_send_stats(b, 1);
    fprintf(stderr, "viv bot: ramp-up took %.2f s: %" PRIu64 " of %" PRIu64 " viewer(s), %" PRIu64
            " of %" PRIu64 " player(s), %" PRIu64 " of %" PRIu64 " slow connected; measuring for %ld s\n",
            (double)(t - b->t_ramp_start) / 1e9, b->ok[ROLE_VIEWER], b->wanted[ROLE_VIEWER],
            b->ok[ROLE_PLAYER], b->wanted[ROLE_PLAYER], b->ok[ROLE_SLOW], b->wanted[ROLE_SLOW],
            b->o.seconds);
    uint64_t want = b->wanted[ROLE_VIEWER] + b->wanted[ROLE_PLAYER] + b->wanted[ROLE_SLOW];
    uint64_t got = b->ok[ROLE_VIEWER] + b->ok[ROLE_PLAYER] + b->ok[ROLE_SLOW];
    if (want > 0 && got == 0) {
        bot_fatal(b, "none of the %" PRIu64 " connection(s) succeeded", want);
        return;
    }
    if (b->o.rate > 0) {
        if (b->ok[ROLE_PLAYER] == 0) {
            bot_fatal(b, "--inputs-per-sec %ld: no player connected, so no input can be sent (see the "
                  "failures above)", b->o.rate);
            return;
        }
        uv_timer_start(&b->input_timer, bot_on_input_timer, BOT_INPUT_MS, BOT_INPUT_MS);
    }
}

void bot_ramp_fill(bot *b)
{
    if (b->in_ramp_fill) return;          /* a synchronous failure re-enters through conn_fail */
    b->in_ramp_fill = 1;
    while (b->phase == P_RAMP && b->inflight < BOT_RAMP_INFLIGHT && b->next_start < b->nconns)
        bot_conn_start(&b->conns[b->next_start++]);
    b->in_ramp_fill = 0;
    if (b->phase == P_RAMP && b->next_start == b->nconns && b->inflight == 0) ramp_done(b);
}

/* ---- phases -------------------------------------------------------------------------------------- */
void bot_end_window(bot *b)
{
    if (b->phase != P_RUN) return;
    b->t_window_end = now_ns();
    uv_getrusage(&b->ru_end);
    uv_timer_stop(&b->input_timer);
    b->phase = P_FINAL;
    b->t_deadline = b->t_window_end + (uint64_t)BOT_STATS_MS * 1000000u;
    bot_conn *ctl = &b->conns[0];
    if (ctl->open && ctl->state == ST_READY) bot_send_stats(b, 2);
    else b->final_stats = 1;
}

static int conns_open(const bot *b, int with_slow)
{
    int n = 0;
    for (int i = 0; i < b->nconns; i++)
        n += b->conns[i].open && b->conns[i].state == ST_READY &&
             (with_slow || b->conns[i].role != ROLE_SLOW);
    return n;
}

static void after_final(bot *b)
{
    if (b->phase != P_FINAL) return;
    int slow_open = 0;
    for (int i = 0; i < b->nconns; i++)
        slow_open += b->conns[i].role == ROLE_SLOW && b->conns[i].open;
    /* If the server counts as many clients as we hold open, it dropped none of the slow ones. */
    if (slow_open == 0 || (b->snap[2].have && b->snap[2].clients == (uint64_t)conns_open(b, 1))) {
        b->slow_alive = (uint64_t)slow_open;
        b->drain_skipped = 1;
        bot_finish(b);
        return;
    }
    b->phase = P_DRAIN;
    b->t_deadline = now_ns() + (uint64_t)BOT_DRAIN_MS * 1000000u;
    for (int i = 0; i < b->nconns; i++) {
        bot_conn *c = &b->conns[i];
        if (c->role == ROLE_SLOW && c->open)
            bot_conn_read_start(c);
    }
}

void bot_finish(bot *b)
{
    if (b->phase == P_DONE) return;
    if (b->phase == P_DRAIN)
        for (int i = 0; i < b->nconns; i++)
            b->slow_alive += b->conns[i].role == ROLE_SLOW && b->conns[i].open;
    b->phase = P_DONE;
    for (int i = 0; i < b->nconns; i++) bot_conn_close(&b->conns[i]);
    if (b->timers_open) {
        b->timers_open = 0;
        uv_close((uv_handle_t *)&b->house, NULL);
        uv_close((uv_handle_t *)&b->input_timer, NULL);
        uv_close((uv_handle_t *)&b->sigint, NULL);
    }
}

static void on_house(uv_timer_t *t)
{
    bot *b = t->data;
    uint64_t now = now_ns();
    if (b->phase == P_CONTROL || b->phase == P_RAMP) {
        for (int i = 0; i < b->nconns; i++) {
            bot_conn *c = &b->conns[i];
            if (c->inflight && now - c->started_ns > (uint64_t)BOT_WELCOME_MS * 1000000u)
                bot_conn_fail(c, "no welcome within %d s", BOT_WELCOME_MS / 1000);
            if (b->phase != P_CONTROL && b->phase != P_RAMP) return;
        }
    } else if (b->phase == P_RUN) {
        if (now >= b->t_window_end) {
            bot_end_window(b);
            return;
        }
        /* About once a second: is anyone left? Slow clients do not count: they never read, so
         * they cannot notice the server going away. */
        if (++b->house_ticks % 50 == 0 && conns_open(b, 0) == 0) {
            bot_fatal(b, "the server closed every connection %.1f s into the run (did vivd exit?)",
                  (double)(now - b->t_window_start) / 1e9);
            return;
        }
        /* One sample at a time: a server slow to answer is sampled less, not queued up. */
        if (now - b->t_last_sample >= (uint64_t)BOT_SAMPLE_MS * 1000000u &&
            b->stats_head == b->stats_tail) {
            b->t_last_sample = now;
            bot_send_stats(b, 3);
        }
        if (now - b->t_last_ping > (uint64_t)BOT_PING_MS * 1000000u) {
            b->t_last_ping = now;
            for (int i = 0; i < b->nconns; i++)
                if (b->conns[i].role == ROLE_CONTROL || b->conns[i].role == ROLE_PLAYER)
                    bot_send_ping(&b->conns[i]);
        }
    } else if (b->phase == P_FINAL) {
        /* The last stats, and the acks of the last inputs (or a time-out for each). */
        if (!b->final_stats && now >= b->t_deadline) {
            fprintf(stderr, "viv bot: no stats reply within %d s\n", BOT_STATS_MS / 1000);
            b->final_stats = 1;
        }
        if (b->final_stats &&
            (b->pending_n == 0 || now - b->t_window_end >= (uint64_t)BOT_ACKS_MS * 1000000u))
            after_final(b);
    } else if (b->phase == P_DRAIN) {
        int left = 0;
        for (int i = 0; i < b->nconns; i++) left += b->conns[i].role == ROLE_SLOW && b->conns[i].open;
        if (left == 0 || now >= b->t_deadline) bot_finish(b);
    }
}

static void on_sigint(uv_signal_t *s, int signum)
{
    bot *b = s->data;
    (void)signum;
    if (b->interrupted) {
        bot_finish(b);              /* a second ^C: stop now */
        return;
    }
    b->interrupted = 1;
    fprintf(stderr, "viv bot: interrupted; finishing (^C again to stop at once)\n");
    if (b->phase == P_RUN) bot_end_window(b);
    else if (b->phase < P_RUN) bot_fatal(b, "interrupted before the run began");
}

/* ---- options --------------------------------------------------------------------------------- */
static void bot_head(FILE *out)
{
    fprintf(out,
        "usage: viv bot [--host H:P[,H:P...] | --host ws://H:P/ws | --ws] [--clients N] [--world ID|KIND]\n"
        "               [--seconds S] [--inputs-per-sec R] [--players P] [--token T] [--slow K]\n"
        "               [--every E] [--rect WxH] [--enc ENC] [--verify M] [--json]\n"
        "\n"
        "Load generator for vivd: many viewers of one world, optional players sending random\n"
        "valid inputs, optional slow clients that never read. Connects at most %d at a time\n"
        "(a viewer counts as connected at its first frame, a player at its welcome), then\n"
        "measures for S seconds and prints a report. Raises the open-file limit as needed.\n"
        "\n", BOT_RAMP_INFLIGHT);
}

static void bot_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "The report: connections ok/failed (with reasons), disconnections, frames received\n"
        "(total, per second, per viewer), bytes, keyframes, gaps, viewer lag (each second,\n"
        "the world's tick from a stats request minus each viewer's latest frame tick), hash\n"
        "mismatches of the verifying viewers, inputs sent/acked/refused (by error code) with\n"
        "ack latency (send to ack: min/p50/p99/max), slow clients dropped or not, the stats\n"
        "round trip (how quickly the server answers under load), the bot's own CPU, and from\n"
        "the server's stats over the window: CPU time per viewer-frame = Δ(user+sys CPU) /\n"
        "Δframes_sent (split into user and sys; server-wide, so host one world to measure\n"
        "one), ticks run, overruns, and tick lateness p50/p99/max (cumulative since the\n"
        "server started, as vivd reports them; and of the window alone, from the two\n"
        "replies' lateness histograms, when the server sends them).\n"
        "Progress goes to stderr. ^C ends the window early and reports; a second ^C stops.\n"
        "\n"
        "Exit status: 0 a completed run; 1 the run could not be done (cannot connect, no\n"
        "world, every connection failed, the server went away, no final stats, interrupted);\n"
        "2 bad flags.\n");
}

static int set_host(const opt_prog *p, const opt *o, const char *v)
{
    bot_opts *bo = o->ptr;
    char err[400];
    if (!strstr(v, "://") && cli_addr_list_check(v, err, sizeof err)) {
        fprintf(stderr, "viv bot: --host %s\n", err);
        return OPT_BAD;
    }
    bo->host = v;
    bo->host_given = 1;
    return OPT_OK;
}

static int set_rect(const opt_prog *p, const opt *o, const char *v)
{
    bot_opts *bo = o->ptr;
    char *x, *end;
    long w = strtol(v, &x, 10), h = *x == 'x' ? strtol(x + 1, &end, 10) : 0;
    if (*x != 'x' || *end || w < 1 || h < 1 || w > 4096 || h > 4096) {
        fprintf(stderr, "%s: --rect wants WxH (each 1..4096), got '%s'\n", p->who, v);
        return OPT_BAD;
    }
    bo->rect_w = (int)w;
    bo->rect_h = (int)h;
    return OPT_OK;
}

static int set_enc(const opt_prog *p, const opt *o, const char *v)
{
    /* Passed through: the server says which encodings it knows. */
    if (!*v || strlen(v) > 32) {
        fprintf(stderr, "viv bot: --enc wants an encoding name such as tile or raw, got '%s'\n", v);
        return OPT_BAD;
    }
    *(const char **)o->ptr = v;
    return OPT_OK;
}

/* The command line into o, then what no single option can check. 0, 1 after --help, -1 after
 * a message. */
static int parse_opts(int argc, char **argv, bot_opts *o)
{
    memset(o, 0, sizeof *o);
    o->host = "127.0.0.1:7400";
    o->enc = NULL;             /* the server's default (tile.zst) */
    o->clients = 10;
    o->seconds = 10;
    o->every = 1;
    o->players = -1;
    o->token = getenv("VIVD_PLAYER_TOKEN");
    const opt table[] = {
        OPT_CALL("--host", "H:P", set_host, o, "server address (default 127.0.0.1:7400, vivd's TCP port)"),
        OPT_FORM("--host", "H:P,H:P,...",
                 "up to 16 addresses (a cluster's relays, docs/CLUSTER.md): the\n"
                 "connections are spread over them in turn, the control connection\n"
                 "(stats) on the first; a viewer or player whose server goes away\n"
                 "during the run moves to the next address that answers and goes\n"
                 "on from a keyframe (reported as moved; TCP only). The server\n"
                 "figures of the report are the first address's"),
        OPT_FORM("--host", "ws://H:P/PATH",
                 "connect over WebSocket instead (RFC 6455: masked binary frames,\n"
                 "one msgpack map each, subprotocol \"vivarium\") to vivd's --http\n"
                 "port; the path defaults to /ws. Every role, check and report is\n"
                 "the same as over TCP; bytes received include the frame headers"),
        OPT_FLAG("--ws", &o->ws, "WebSocket at --host H:P (default 127.0.0.1:7401), path /ws"),
        OPT_LONG("--clients", "N", &o->clients, 0, 100000,
                 "viewer connections (default 10); each sends hello (name bot-<i>)\n"
                 "and sub, and counts frames, keyframes and tick gaps (a gap: the\n"
                 "tick jumped by more than E; the frames in between were skipped)"),
        OPT_STR("--world", "ID|KIND", &o->world,
                "the world to watch: an id, or the first world of a kind\n"
                "(default: the server's first world)"),
        OPT_LONG("--seconds", "S", &o->seconds, 1, 86400,
                 "length of the measured window, after the ramp-up (default 10)"),
        OPT_LONG("--inputs-per-sec", "R", &o->rate, 0, 100000,
                 "total inputs per second from the players (default 0): a random\n"
                 "input kind of the world, each argument uniform in its range,\n"
                 "but x/y arguments inside the frame and a radius r of at most 8"),
        OPT_LONG("--players", "P", &o->players, 0, 1000,
                 "player connections (default 1 when R > 0); a player may send 32\n"
                 "inputs per tick, so R above 32·hz needs more players"),
        OPT_STR("--token", "T", &o->token, "the player token (default $VIVD_PLAYER_TOKEN); needed for players"),
        OPT_LONG("--slow", "K", &o->slow, 0, 100000,
                 "connections that subscribe to raw frames and never read (default\n"
                 "0), to show that the server bounds them; at the end they are read\n"
                 "for a moment to see whether the server dropped them (vivd drops a\n"
                 "client after 30 s over its output limit)"),
        OPT_LONG("--every", "E", &o->every, 1, 3600, "subscribe to every E-th tick, 1..3600 (default 1)"),
        OPT_CALL("--rect", "WxH", set_rect, o,
                 "each viewer watches a W×H rect of the world (docs/PROTOCOL.md, sub)\n"
                 "at a place of its own, drawn from its number (the same every run),\n"
                 "instead of the whole world"),
        OPT_CALL("--enc", "ENC", set_enc, &o->enc,
                 "frame encoding the viewers ask for: tile.zst (the server's default,\n"
                 "used when --enc is not given), tile or raw; a refusal is\n"
                 "reported per viewer"),
        OPT_LONG("--verify", "M", &o->verify, 0, 100000,
                 "M of the N viewers rebuild every frame and check its hash\n"
                 "(default 0; the others decode only the header)"),
        OPT_FLAG("--json", &o->json, "print the report as one JSON object on stdout"),
        OPT_END
    };
    const opt_prog prog = { .who = "viv bot", .opts = table, .column = 23, .head = bot_head,
                            .tail = bot_tail };
    int rc = opt_parse(&prog, argc, argv);
    if (rc != OPT_OK) return rc == OPT_DONE ? 1 : -1;
    if (o->players < 0) o->players = o->rate > 0 ? 1 : 0;
    if (strchr(o->host, ',') && (o->ws || strstr(o->host, "://"))) {
        fprintf(stderr, "viv bot: a list of addresses goes over TCP only: give --host H:P,H:P "
                        "without --ws or ws://\n");
        return -1;
    }
    if (strstr(o->host, "://")) {       /* a URL: ws://, or a scheme that gets a clear error */
        char err[300];
        if (cli_ws_url_split(o->host, o->ws_hostport, sizeof o->ws_hostport, o->ws_path,
                             sizeof o->ws_path, err, sizeof err)) {
            fprintf(stderr, "viv bot: --host %s\n", err);
            return -1;
        }
        o->ws = 1;
    } else if (o->ws) {
        /* --ws with HOST:PORT: vivd's HTTP port, at its WebSocket path. */
        const char *hp = o->host_given ? o->host : "127.0.0.1:7401";
        if (strlen(hp) >= sizeof o->ws_hostport) {
            fprintf(stderr, "viv bot: --host '%s' is too long\n", hp);
            return -1;
        }
        snprintf(o->ws_hostport, sizeof o->ws_hostport, "%s", hp);
        snprintf(o->ws_path, sizeof o->ws_path, "%s", CLI_WS_PATH);
    }
    if (o->verify > o->clients) {
        fprintf(stderr, "viv bot: --verify %ld is more than the %ld viewer(s) of --clients\n",
                o->verify, o->clients);
        return -1;
    }
    if (o->rate > 0 && o->players == 0) {
        fprintf(stderr, "viv bot: --inputs-per-sec needs at least one player (--players P)\n");
        return -1;
    }
    if (o->players > 0 && (!o->token || !*o->token)) {
        fprintf(stderr, "viv bot: players need the player token: give --token T or set "
                        "VIVD_PLAYER_TOKEN (vivd prints a generated one at start-up)\n");
        return -1;
    }
    if (o->world && !*o->world) {
        fprintf(stderr, "viv bot: --world needs an id or a kind\n");
        return -1;
    }
    return 0;
}

static int resolve(const char *hostport, struct sockaddr_storage *out)
{
    struct addrinfo *res = NULL;
    int gai = 0, rc = cli_lookup(hostport, &res, &gai);
    if (rc == CLI_EPROTO) {
        fprintf(stderr, "viv bot: --host wants HOST:PORT (e.g. 127.0.0.1:7400), got '%s'\n", hostport);
        return 2;
    }
    rc = gai;
    if (rc || !res) {
        fprintf(stderr, "viv bot: cannot resolve %s: %s\n", hostport, rc ? gai_strerror(rc) : "no address");
        return 1;
    }
    memcpy(out, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

/* Enough descriptors for every connection plus the loop's own. 0, or 1 after a message. */
static int raise_nofile(long need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= (rlim_t)need) return 0;
    if (rl.rlim_cur == RLIM_INFINITY) return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need) {
        fprintf(stderr, "viv bot: %ld connections need %ld file descriptors, but the hard limit is "
                "%llu; raise it (ulimit -Hn as root, or /etc/security/limits.conf) or use fewer "
                "--clients/--slow/--players\n", need - 10, need, (unsigned long long)rl.rlim_max);
        return 1;
    }
    struct rlimit want = { rl.rlim_max, rl.rlim_max };
    if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
        want.rlim_cur = (rlim_t)need;           /* RLIM_INFINITY may exceed nr_open */
        if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
            fprintf(stderr, "viv bot: cannot raise the open-file limit from %llu to %ld: %s\n",
                    (unsigned long long)rl.rlim_cur, need, strerror(errno));
            return 1;
        }
    }
    return 0;
}

/* ---- main ------------------------------------------------------------------------------------------ */
int cli_bot_main(int argc, char **argv)
{
    bot_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc > 0 ? 0 : 2;
    long need = o.clients + o.slow + o.players + 10;
    bot *b = calloc(1, sizeof *b);
    if (!b) {
        fprintf(stderr, "viv bot: out of memory\n");
        return 1;
    }
    int code = 1;
    b->o = o;
    if (o.ws) {                    /* shown as the address in the report and messages */
        snprintf(b->url, sizeof b->url, "ws://%s%s", o.ws_hostport, o.ws_path);
        b->o.host = b->url;
    }
    b->naddrs = o.ws ? 1 : cli_addr_count(o.host);
    for (int i = 0; i < b->naddrs; i++) {
        char one[300];
        if (o.ws) snprintf(one, sizeof one, "%s", o.ws_hostport);
        else cli_addr_at(o.host, i, one, sizeof one);   /* checked by parse_opts */
        if ((rc = resolve(one, &b->addrs[i])) != 0) {
            code = rc;
            goto done;
        }
    }
    if (raise_nofile(need)) goto done;
    signal(SIGPIPE, SIG_IGN);
    b->nconns = (int)(1 + o.clients + o.players + o.slow);
    b->conns = calloc((size_t)b->nconns, sizeof *b->conns);
    b->rbuf = malloc(BOT_READ_BUF);
    if (o.players) {
        b->ring = calloc(BOT_RING, sizeof *b->ring);
        b->lat_hist = calloc(BOT_LAT_BUCKETS, sizeof *b->lat_hist);
    }
    if (!b->conns || !b->rbuf || (o.players && (!b->ring || !b->lat_hist))) {
        fprintf(stderr, "viv bot: out of memory for %d connections\n", b->nconns);
        goto done;
    }
    for (int i = 0; i < b->nconns; i++) {
        bot_conn *c = &b->conns[i];
        c->b = b;
        c->at = i % b->naddrs;     /* spread over a list; the control connection on the first */
        c->role = i == 0 ? ROLE_CONTROL : i <= o.clients ? ROLE_VIEWER
                : i <= o.clients + o.players ? ROLE_PLAYER : ROLE_SLOW;
        c->idx = c->role == ROLE_VIEWER ? i - 1 : c->role == ROLE_PLAYER ? i - 1 - (int)o.clients
               : c->role == ROLE_SLOW ? i - 1 - (int)(o.clients + o.players) : 0;
        b->wanted[c->role]++;
        if (c->role == ROLE_VIEWER && c->idx < o.verify) {
            c->cf = calloc(1, sizeof *c->cf);
            if (!c->cf) {
                fprintf(stderr, "viv bot: out of memory\n");
                goto done;
            }
        }
    }
    sim_rng_seed(&b->rng, now_ns(), 0x626f74);
    b->next_seq = 1;
    wire_buf_init(&b->wb);
    if (o.ws) {
        sim_rng_seed(&b->mask_rng, now_ns(), 0x7773);
        wire_buf_init(&b->wsout);
    }
    b->loop = malloc(sizeof *b->loop);
    if (!b->loop || uv_loop_init(b->loop) != 0) {
        fprintf(stderr, "viv bot: cannot start the event loop\n");
        free(b->loop);
        b->loop = NULL;
        goto done;
    }
    uv_timer_init(b->loop, &b->house);
    uv_timer_init(b->loop, &b->input_timer);
    uv_signal_init(b->loop, &b->sigint);
    b->house.data = b->input_timer.data = b->sigint.data = b;
    b->timers_open = 1;
    uv_timer_start(&b->house, on_house, BOT_HOUSE_MS, BOT_HOUSE_MS);
    uv_signal_start(&b->sigint, on_sigint, SIGINT);
    b->t_begin = now_ns();
    b->phase = P_CONTROL;
    b->next_start = 1;
    bot_conn_start(&b->conns[0]);
    uv_run(b->loop, UV_RUN_DEFAULT);
    bot_finish(b);                                    /* nothing left open: a no-op, or closes */
    uv_run(b->loop, UV_RUN_DEFAULT);
    if (uv_loop_close(b->loop) != 0) fprintf(stderr, "viv bot: warning: the loop closed with handles open\n");

    if (b->world) {
        if (!b->exit_code && !b->control_moved && (!b->snap[1].have || !b->snap[2].have)) {
            bot_fatal(b, "the server's stats were not received, so the server numbers are missing");
        }
        if (!b->exit_code && b->interrupted) {
            b->exit_code = 1;
            snprintf(b->fatal, sizeof b->fatal, "interrupted");
        }
        bot_summary s;
        bot_summarise(b, &s);
        if (o.json) bot_report_json(b, &s);
        else bot_report_text(b, &s);
        fflush(stdout);
    }
    if (b->fatal[0]) fprintf(stderr, "viv bot: %s\n", b->fatal);
    code = b->exit_code;
done:
    if (b->conns)
        for (int i = 0; i < b->nconns; i++) {
            free(b->conns[i].pend);
            if (o.ws) cli_ws_reader_free(&b->conns[i].wr);
            if (b->conns[i].cf) {
                cli_frame_free(b->conns[i].cf);
                free(b->conns[i].cf);
            }
        }
    free(b->conns);
    free(b->rbuf);
    free(b->ring);
    free(b->lat_hist);
    wire_buf_free(&b->wb);
    if (o.ws) wire_buf_free(&b->wsout);
    free(b->loop);
    free(b);
    return code;
}

