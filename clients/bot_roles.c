/* bot_roles.c — what `viv bot`'s roles do with the server's messages: the control connection
 * picks the world from its welcome and samples stats; viewers count frames, keyframes and tick
 * gaps (the --verify ones rebuild every frame); players send random valid inputs at a fixed
 * total rate and time their acks; slow clients only subscribe. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bot.h"

/* ---- the control connection and keep-alives ---------------------------------------------------- */
void bot_send_stats(bot *b, int slot)
{
    bot_conn *c = &b->conns[0];
    if (!c->open || c->state != ST_READY) return;
    if ((b->stats_tail + 1) % 8 == b->stats_head) return;
    cli_put_bare(&b->wb, "stats");
    if (bot_conn_send_buf(c, &b->wb) == 0) {
        b->stats_fifo[b->stats_tail] = slot;
        b->stats_sent_ns[b->stats_tail] = now_ns();
        b->stats_tail = (b->stats_tail + 1) % 8;
    }
}

void bot_send_ping(bot_conn *c)
{
    bot *b = c->b;
    if (!c->open || c->state != ST_READY) return;
    cli_put_bare(&b->wb, "ping");
    bot_conn_send_buf(c, &b->wb);
}

/* ---- the world and its inputs ----------------------------------------------------------------------- */
static int name_ends(const char *name, char ch)
{
    size_t n = strlen(name);
    return n > 0 && name[n - 1] == ch;
}

/* Narrow an argument's range so that random values are valid and visible: coordinates inside the
 * frame, a radius of at most 8. Never widens it; an empty intersection keeps the world's range. */
static void narrow_arg(const bot *b, const char *name, int32_t *lo, int32_t *hi)
{
    int32_t l = *lo, h = *hi;
    if (name_ends(name, 'x')) { if (l < 0) l = 0; if (h > b->fw - 1) h = b->fw - 1; }
    else if (name_ends(name, 'y')) { if (l < 0) l = 0; if (h > b->fh - 1) h = b->fh - 1; }
    else if (strcmp(name, "r") == 0 || strcmp(name, "radius") == 0) { if (h > 8) h = 8; }
    if (l <= h) {
        *lo = l;
        *hi = h;
    }
}

/* Read the chosen world's "inputs" and "ranges" (cli_inputs_read) into b->inputs, keeping the
 * inputs whose every argument has a valid range; a description that does not read leaves none. */
static void parse_inputs(bot *b, const wire_msg *wm)
{
    int n = 0;
    b->ninputs = 0;
    if (cli_inputs_read(wm, b->inputs, BOT_MAX_INPUTS, &n)) return;
    for (int k = 0; k < n; k++) {
        cli_input_desc *in = &b->inputs[k];
        int good = 1;
        for (int a = 0; a < in->nargs; a++) good &= in->exact[a];
        if (!good) continue;
        for (int a = 0; a < in->nargs; a++) narrow_arg(b, in->arg[a], &in->lo[a], &in->hi[a]);
        if (b->ninputs != k) b->inputs[b->ninputs] = *in;
        b->ninputs++;
    }
}

/* Pick the world from the control connection's welcome (--world ID or KIND; default the first). */
static int pick_world(bot *b, const wire_msg *welcome)
{
    cli_world_iter wi;
    if (cli_worlds_begin(welcome, &wi)) {
        bot_fatal(b, "the server's welcome lists no worlds");
        return -1;
    }
    char listing[400] = "";
    size_t ll = 0;
    char *tail = (char *)"";
    unsigned long want_id = b->o.world ? strtoul(b->o.world, &tail, 10) : 0;
    int by_id = b->o.world && b->o.world[0] >= '0' && b->o.world[0] <= '9' && *tail == '\0';
    wire_val w;
    cli_world_entry e;
    int rc;
    for (uint32_t i = 0; (rc = cli_worlds_next(&wi, &w)) != 0; i++) {
        if (rc < 0 || cli_world_read(&w, &e) || !e.has_hz || e.w < 1 || e.w > 4096 || e.h < 1 ||
            e.h > 4096 || e.hz < 1 || e.hz > 1000) {
            bot_fatal(b, "the server's welcome has a malformed world entry");
            return -1;
        }
        if (ll < sizeof listing - 40)
            ll += (size_t)snprintf(listing + ll, sizeof listing - ll, "%s%" PRIu32 " %s",
                                   i ? ", " : "", e.id, e.kind);
        int match = !b->o.world ? i == 0 : by_id ? e.id == want_id : strcmp(e.kind, b->o.world) == 0;
        if (match && !b->world) {
            b->world = e.id;
            memcpy(b->kind, e.kind, sizeof b->kind);
            b->fw = (int)e.w;
            b->fh = (int)e.h;
            b->hz = (int)e.hz;
            parse_inputs(b, &e.m);
        }
    }
    if (!b->world) {
        if (wi.n == 0) bot_fatal(b, "the server at %s hosts no worlds", b->o.host);
        else bot_fatal(b, "no world '%s' on %s (worlds: %s); give --world ID or KIND", b->o.world,
                   b->o.host, listing);
        return -1;
    }
    if (b->o.rate > 0 && b->ninputs == 0) {
        bot_fatal(b, "world %u (%s) accepts no inputs the bot can build; drop --inputs-per-sec",
              b->world, b->kind);
        return -1;
    }
    return 0;
}

static void send_input(bot *b, bot_conn *p)
{
    const cli_input_desc *in = &b->inputs[sim_rng_below(&b->rng, (uint32_t)b->ninputs)];
    uint32_t seq = b->next_seq++;
    if (b->next_seq == 0) b->next_seq = 1;
    bot_pending *pe = &b->ring[seq & (BOT_RING - 1)];
    if (pe->used) {                         /* its slot is reused: that ack never came */
        b->unanswered++;
        b->pending_n--;
    }
    int64_t args[SIM_INPUT_MAX_ARGS];
    for (int a = 0; a < in->nargs; a++) args[a] = sim_rng_range(&b->rng, in->lo[a], in->hi[a]);
    cli_put_input(&b->wb, b->world, seq, in->name, args, in->nargs);
    pe->used = 1;
    pe->seq = seq;
    pe->sent_ns = now_ns();
    if (bot_conn_send_buf(p, &b->wb) == 0) {
        b->in_sent++;
        b->pending_n++;
    } else {
        pe->used = 0;
    }
}

/* Paced by elapsed time, so a late timer sends a few at once rather than falling behind; more
 * than 50 ms of backlog is dropped (counted as late) instead of arriving as one burst. */
void bot_on_input_timer(uv_timer_t *t)
{
    bot *b = t->data;
    if (b->phase != P_RUN) return;
    uint64_t elapsed = now_ns() - b->t_window_start;
    uint64_t due = elapsed * (uint64_t)b->o.rate / 1000000000u;
    if (due <= b->in_planned) return;
    uint64_t n = due - b->in_planned, cap = (uint64_t)b->o.rate / 20 + 1;
    if (n > cap) {
        b->in_late += n - cap;
        b->in_planned += n - cap;
        n = cap;
    }
    int first = 1 + (int)b->wanted[ROLE_VIEWER];
    for (uint64_t k = 0; k < n; k++) {
        b->in_planned++;
        bot_conn *p = NULL;
        for (long tries = 0; tries < b->o.players && !p; tries++) {
            bot_conn *c = &b->conns[first + b->next_player];
            b->next_player = (b->next_player + 1) % (int)b->o.players;
            if (c->open && c->state == ST_READY) p = c;
        }
        if (!p) {
            b->in_noplayer++;
            continue;
        }
        send_input(b, p);
    }
}

/* ---- messages ----------------------------------------------------------------------------------- */
/* A viewer's tick jumped by more than --every: a gap, the frames between skipped. */
static void count_jump(bot *b, bot_conn *c, uint64_t jump, uint64_t every)
{
    c->gaps++;
    b->gaps++;
    c->skipped += jump / every - 1;
    b->skipped += jump / every - 1;
    if (jump > b->max_jump) b->max_jump = jump;
}

static void on_frame(bot_conn *c, const wire_msg *m)
{
    bot *b = c->b;
    uint64_t world, tick;
    int key = 0;
    if (cli_frame_header(m, &world, &tick, &key)) {
        b->malformed++;
        return;
    }
    if (world != b->world) {
        b->other_world++;
        return;
    }
    int counting = b->phase == P_RUN;
    uint64_t every = (uint64_t)b->o.every;
    int first = !c->have_tick;
    if (first) {
        if (!key) b->first_not_key++;
        b->first_keys += (uint64_t)key;
    } else if (c->rejoined) {
        /* Moved to another server: a new stream, which must start with a keyframe; the ticks
         * missed meanwhile are skipped frames, and one seen already is no anomaly. */
        c->rejoined = 0;
        if (!key) b->first_not_key++;
        if (tick > c->last_tick + every && counting) count_jump(b, c, tick - c->last_tick, every);
    } else if (tick <= c->last_tick) {
        if (counting) b->out_of_order++;
    } else if (tick - c->last_tick > every && counting) {
        count_jump(b, c, tick - c->last_tick, every);
    }
    c->last_tick = tick;
    c->have_tick = 1;
    if (counting) {
        b->frames++;
        b->keys += (uint64_t)(key && !first);
    }
    if (c->cf) {
        char err[128];
        int rc = cli_frame_apply(c->cf, m, err, sizeof err);
        if (counting) {
            b->verified += rc == WIRE_FRAME_OK;
            b->mismatches += rc == WIRE_FRAME_EHASH;
            b->verify_errors += rc != WIRE_FRAME_OK && rc != WIRE_FRAME_EHASH;
        }
        if (rc && !b->first_verify_err[0])
            snprintf(b->first_verify_err, sizeof b->first_verify_err, "viewer %d: %s", c->idx, err);
    }
}

/* A world entry's histogram `key` (late_hist or work_hist: [bucket, count, …], docs/PROTOCOL.md)
 * into hist; 1 when it has a whole one. */
static int read_hist(const wire_msg *wm, const char *key, uint32_t hist[WIRE_LATE_BUCKETS])
{
    memset(hist, 0, WIRE_LATE_BUCKETS * sizeof *hist);
    const wire_val *h = wire_msg_get(wm, key);
    if (!h || h->type != WIRE_ARRAY || h->n % 2) return 0;
    const uint8_t *it = h->p, *end = h->raw + h->rawlen;
    for (uint32_t i = 0; i < h->n; i += 2) {
        wire_val k, v;
        if (wire_next(&it, end, &k) || wire_next(&it, end, &v) || k.type != WIRE_UINT ||
            v.type != WIRE_UINT || k.u >= WIRE_LATE_BUCKETS || v.u > UINT32_MAX)
            return 0;
        hist[k.u] = (uint32_t)v.u;
    }
    return 1;
}

static void on_stats(bot *b, const wire_msg *m)
{
    if (b->stats_head == b->stats_tail) return;        /* not asked for */
    int slot = b->stats_fifo[b->stats_head];
    uint64_t rtt = now_ns() - b->stats_sent_ns[b->stats_head];
    if (slot == 3 || slot == 2) {
        b->rtt_n++;
        b->rtt_sum += rtt;
        if (rtt > b->rtt_max) b->rtt_max = rtt;
    }
    b->stats_head = (b->stats_head + 1) % 8;
    bot_stats *s = &b->snap[slot];
    memset(s, 0, sizeof *s);
    if (wire_get_u64(m, "clients", &s->clients) || wire_get_u64(m, "frames_sent", &s->frames_sent) ||
        wire_get_u64(m, "bytes_sent", &s->bytes_sent) ||
        wire_get_u64(m, "frames_skipped", &s->frames_skipped) ||
        wire_get_u64(m, "cpu_user_us", &s->cpu_user_us) || wire_get_u64(m, "cpu_sys_us", &s->cpu_sys_us)) {
        fprintf(stderr, "viv bot: the server's stats reply lacks a field; ignoring it\n");
    } else {
        s->have = 1;
        const wire_val *ws = wire_msg_get(m, "worlds");
        if (ws && ws->type == WIRE_ARRAY) {
            const uint8_t *it = ws->p, *end = ws->raw + ws->rawlen;
            for (uint32_t i = 0; i < ws->n; i++) {
                wire_val w;
                wire_msg wm;
                uint64_t id;
                if (wire_next(&it, end, &w) || w.type != WIRE_MAP ||
                    wire_msg_decode(w.raw, w.rawlen, &wm) || wire_get_u64(&wm, "id", &id))
                    break;
                if (id != b->world) continue;
                s->have_world = !wire_get_u64(&wm, "tick", &s->tick) &&
                                !wire_get_u64(&wm, "ticks", &s->ticks) &&
                                !wire_get_u64(&wm, "late_p50_us", &s->late_p50_us) &&
                                !wire_get_u64(&wm, "late_p99_us", &s->late_p99_us) &&
                                !wire_get_u64(&wm, "late_max_us", &s->late_max_us) &&
                                !wire_get_u64(&wm, "overruns", &s->overruns) &&
                                !wire_get_u64(&wm, "subs", &s->subs);
                s->have_hist = read_hist(&wm, "late_hist", s->late_hist);
                s->have_work_hist = read_hist(&wm, "work_hist", s->work_hist);
            }
        }
    }
    if (slot == 2) b->final_stats = 1;
    if ((slot == 3 || slot == 2) && s->have_world)    /* how far behind the world each viewer is */
        for (int i = 0; i < b->nconns; i++) {
            const bot_conn *c = &b->conns[i];
            if (c->role != ROLE_VIEWER || c->state != ST_READY || !c->open || !c->have_tick) continue;
            uint64_t lag = s->tick > c->last_tick ? s->tick - c->last_tick : 0;
            b->lag_hist[lag < BOT_LAG_BUCKETS ? lag : BOT_LAG_BUCKETS - 1]++;
            b->lag_n++;
            if (lag > b->lag_max) b->lag_max = lag;
        }
}

/* Returns -1 if the connection is gone. */
static int on_error(bot_conn *c, const wire_msg *m)
{
    bot *b = c->b;
    cli_error e;
    cli_error_read(m, "?", &e);
    const char *code = e.code, *msg = e.msg;
    size_t cl = e.code_len, ml = e.msg_len;
    snprintf(c->last_err, sizeof c->last_err, "%.*s", (int)cl, code);
    if (c->state == ST_HELLO || c->state == ST_SUB) {
        bot_conn_fail(c, "refused: %.*s: %.*s", (int)cl, code, (int)(ml > 160 ? 160 : ml), msg);
        return -1;
    }
    uint64_t seq;
    if (c->role == ROLE_PLAYER && wire_get_u64(m, "seq", &seq) == 0 && seq <= UINT32_MAX) {
        bot_pending *pe = &b->ring[seq & (BOT_RING - 1)];
        if (pe->used && pe->seq == seq) {
            pe->used = 0;
            b->pending_n--;
        }
        if (bot_tally_add(&b->input_errs, code, cl))
            fprintf(stderr, "viv bot: an input was refused: %.*s: %.*s\n", (int)cl, code,
                    (int)(ml > 200 ? 200 : ml), msg);
        return 0;
    }
    if (bot_tally_add(&b->errs, code, cl)) {
        char name[48];
        bot_conn_name(c, name, sizeof name);
        fprintf(stderr, "viv bot: server error on %s: %.*s: %.*s\n", name, (int)cl, code,
                (int)(ml > 200 ? 200 : ml), msg);
    }
    return 0;
}

/* --rect: viewer idx's rect, at a place drawn from idx (splitmix64) so that runs repeat; NULL
 * without --rect. A rect larger than the world is the whole world's size. */
static const int32_t *viewer_rect(const bot *b, int idx, int32_t *r)
{
    if (!b->o.rect_w) return NULL;
    uint64_t z = (uint64_t)idx * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    int w = b->o.rect_w < b->fw ? b->o.rect_w : b->fw, h = b->o.rect_h < b->fh ? b->o.rect_h : b->fh;
    r[0] = (int32_t)((z & 0xffffffffu) % (uint64_t)(b->fw - w + 1));
    r[1] = (int32_t)((z >> 32) % (uint64_t)(b->fh - h + 1));
    r[2] = w;
    r[3] = h;
    return r;
}

static int on_welcome(bot_conn *c, const wire_msg *m)
{
    bot *b = c->b;
    if (c->role == ROLE_VIEWER) {
        c->state = ST_SUB;             /* ready at its first frame */
        int32_t rect[4];
        cli_put_sub_rect(&b->wb, b->world, (uint32_t)b->o.every, 1, b->o.enc, NULL, 0,
                         viewer_rect(b, c->idx, rect));
        return bot_conn_send_buf(c, &b->wb);
    }
    int again = c->was_ready;
    bot_conn_ready(c);
    if (c->role == ROLE_CONTROL && again) return 0;    /* moved: the world is picked already */
    if (c->role == ROLE_CONTROL) {
        if (pick_world(b, m)) return -1;
        b->phase = P_RAMP;
        b->t_ramp_start = now_ns();
        bot_send_stats(b, 0);
        fprintf(stderr, "viv bot: world %u (%s, %dx%d at %d Hz) on %s: connecting %ld viewer(s), "
                    "%ld player(s), %ld slow\n", b->world, b->kind, b->fw, b->fh, b->hz, b->o.host,
                    b->o.clients, b->o.players, b->o.slow);
        if (b->o.rate > 32L * b->hz * b->o.players)
            fprintf(stderr, "viv bot: note: %ld inputs/s from %ld player(s) exceeds vivd's 32 inputs "
                    "per tick per connection at %d Hz; expect rate_limited errors (add --players)\n",
                    b->o.rate, b->o.players, b->hz);
    } else if (c->role == ROLE_PLAYER) {
        const char *role;
        size_t rl;
        if (wire_get_str(m, "role", &role, &rl) == 0 && wire_str_eq((const uint8_t *)role, rl, "viewer"))
            fprintf(stderr, "viv bot: player %d was admitted as a viewer; its inputs will be refused\n",
                    c->idx);
    }
    bot_ramp_fill(b);
    return 0;
}

/* One message body from the server. Returns -1 if the connection is gone. */
int bot_conn_message(bot_conn *c, const uint8_t *body, size_t len)
{
    bot *b = c->b;
    wire_msg m;
    const char *t;
    size_t tl;
    if (wire_msg_decode(body, len, &m) || wire_get_str(&m, "t", &t, &tl)) {
        b->malformed++;
        return 0;
    }
    const uint8_t *tt = (const uint8_t *)t;
    if (wire_str_eq(tt, tl, "frame")) {
        if (c->role != ROLE_VIEWER || (c->state != ST_READY && c->state != ST_SUB)) return 0;
        on_frame(c, &m);
        if (c->state == ST_SUB) {
            bot_conn_ready(c);
            bot_ramp_fill(b);
        }
        return 0;
    }
    if (wire_str_eq(tt, tl, "error")) return on_error(c, &m);
    if (c->state == ST_HELLO) {
        if (wire_str_eq(tt, tl, "welcome")) return on_welcome(c, &m);
        bot_conn_fail(c, "expected welcome, got '%.*s'", (int)(tl > 32 ? 32 : tl), t);
        return -1;
    }
    if (wire_str_eq(tt, tl, "ack")) {
        uint64_t seq;
        if (wire_get_u64(&m, "seq", &seq) == 0 && seq <= UINT32_MAX) {
            bot_pending *pe = b->ring ? &b->ring[seq & (BOT_RING - 1)] : NULL;
            if (pe && pe->used && pe->seq == seq) {
                pe->used = 0;
                b->pending_n--;
                bot_lat_add(b, now_ns() - pe->sent_ns);
            } else {
                b->ack_unknown++;
            }
        }
    } else if (wire_str_eq(tt, tl, "stats")) {
        if (c->role == ROLE_CONTROL) on_stats(b, &m);
    } else if (wire_str_eq(tt, tl, "closed")) {
        b->world_closed++;
    }
    return 0;
}
