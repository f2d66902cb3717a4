/* bot_report.c — `viv bot`'s numbers: tallies of error codes and reasons, the ack latency and
 * viewer lag histograms, the summary of the measured window, and the text and JSON reports. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "bot.h"

int bot_tally_add(bot_tally *t, const char *key, size_t len)
{
    if (len >= sizeof t->e[0].key) len = sizeof t->e[0].key - 1;
    for (int i = 0; i < t->n; i++)
        if (strlen(t->e[i].key) == len && memcmp(t->e[i].key, key, len) == 0) {
            t->e[i].count++;
            return 0;
        }
    if (t->n == BOT_MAX_CODES) {
        t->other++;
        return 0;
    }
    memcpy(t->e[t->n].key, key, len);
    t->e[t->n].key[len] = '\0';
    t->e[t->n].count = 1;
    t->n++;
    return 1;           /* a new key */
}

uint64_t bot_tally_total(const bot_tally *t)
{
    uint64_t n = t->other;
    for (int i = 0; i < t->n; i++) n += t->e[i].count;
    return n;
}

void bot_lat_add(bot *b, uint64_t ns)
{
    uint64_t us = ns / 1000;
    uint64_t k = us < BOT_LAT_FINE ? us : BOT_LAT_FINE + (us - BOT_LAT_FINE) / 64;
    if (k >= BOT_LAT_BUCKETS) k = BOT_LAT_BUCKETS - 1;
    b->lat_hist[k]++;
    if (!b->acks || us < b->lat_min) b->lat_min = us;
    if (us > b->lat_max) b->lat_max = us;
    b->lat_sum += us;
    b->acks++;
}

/* The latency percentile in µs (the bucket's lower bound; exact below 65.5 ms). */
uint64_t bot_lat_pct(const bot *b, double pct)
{
    if (!b->acks) return 0;
    uint64_t want = (uint64_t)((double)b->acks * pct / 100.0), seen = 0;
    if (want >= b->acks) want = b->acks - 1;
    for (uint32_t k = 0; k < BOT_LAT_BUCKETS; k++) {
        seen += b->lat_hist[k];
        if (seen > want) {
            uint64_t us = k < BOT_LAT_FINE ? k : BOT_LAT_FINE + (uint64_t)(k - BOT_LAT_FINE) * 64;
            return us < b->lat_min ? b->lat_min : us > b->lat_max ? b->lat_max : us;
        }
    }
    return b->lat_max;
}

/* Viewer lag percentile in ticks. */
uint64_t bot_lag_pct(const bot *b, double pct)
{
    if (!b->lag_n) return 0;
    uint64_t want = (uint64_t)((double)b->lag_n * pct / 100.0), seen = 0;
    if (want >= b->lag_n) want = b->lag_n - 1;
    for (uint32_t k = 0; k < BOT_LAG_BUCKETS; k++) {
        seen += b->lag_hist[k];
        if (seen > want) return k;
    }
    return b->lag_max;
}

/* The tick times of the measured window alone (lateness, or work): the difference of the two
 * replies' histograms a and z (0.1 ms buckets; a percentile is its bucket's upper edge, as vivd
 * reports them). 1 with out[] = p50, p99, max; 0 when the window counts no tick. */
static int window_times(const uint32_t *a, const uint32_t *z, uint64_t out[3])
{
    uint64_t n = 0;
    for (int k = 0; k < WIRE_LATE_BUCKETS; k++) n += z[k] - a[k];
    if (!n) return 0;
    uint64_t seen = 0, p50 = n / 2, p99 = n * 99 / 100;
    int got50 = 0, got99 = 0;
    for (int k = 0; k < WIRE_LATE_BUCKETS; k++) {
        uint64_t d = z[k] - a[k];
        if (!d) continue;
        seen += d;
        uint64_t edge = (uint64_t)(k + 1) * 100;
        if (!got50 && seen > p50) { out[0] = edge; got50 = 1; }
        if (!got99 && seen > p99) { out[1] = edge; got99 = 1; }
        out[2] = edge;
    }
    return 1;
}

static void window_lateness(const bot_stats *a, const bot_stats *z, bot_summary *s)
{
    uint64_t t[3];
    if (a->have_hist && z->have_hist && window_times(a->late_hist, z->late_hist, t)) {
        s->have_window_late = 1;
        s->w_late_p50_us = t[0], s->w_late_p99_us = t[1], s->w_late_max_us = t[2];
    }
    if (a->have_work_hist && z->have_work_hist && window_times(a->work_hist, z->work_hist, t)) {
        s->have_window_work = 1;
        s->w_work_p50_us = t[0], s->w_work_p99_us = t[1], s->w_work_max_us = t[2];
    }
}

/* ---- the report ----------------------------------------------------------------------------------- */
static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
        else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
        else fputc(ch, out);
    }
    fputc('"', out);
}

static void json_tally(FILE *out, const bot_tally *t)
{
    fputc('{', out);
    for (int i = 0; i < t->n; i++) {
        if (i) fputc(',', out);
        json_str(out, t->e[i].key);
        fprintf(out, ":%" PRIu64, t->e[i].count);
    }
    if (t->other) fprintf(out, "%s\"(other)\":%" PRIu64, t->n ? "," : "", t->other);
    fputc('}', out);
}

static void text_tally(FILE *out, const bot_tally *t)
{
    for (int i = 0; i < t->n; i++)
        fprintf(out, "%s%s ×%" PRIu64, i ? ", " : "", t->e[i].key, t->e[i].count);
    if (t->other) fprintf(out, "%s(other) ×%" PRIu64, t->n ? ", " : "", t->other);
}

static uint64_t ru_us(const uv_rusage_t *r)
{
    return (uint64_t)r->ru_utime.tv_sec * 1000000u + (uint64_t)r->ru_utime.tv_usec +
           (uint64_t)r->ru_stime.tv_sec * 1000000u + (uint64_t)r->ru_stime.tv_usec;
}


void bot_summarise(const bot *b, bot_summary *s)
{
    memset(s, 0, sizeof *s);
    uint64_t end = b->t_window_end ? b->t_window_end : now_ns();
    s->secs = b->t_window_start ? (double)(end - b->t_window_start) / 1e9 : 0;
    s->fps = s->secs > 0 ? (double)b->frames / s->secs : 0;
    s->per_viewer = b->ok[ROLE_VIEWER] ? s->fps / (double)b->ok[ROLE_VIEWER] : 0;
    s->expect_per_viewer = (double)b->hz / (double)b->o.every;
    if (s->secs >= 0.05 && b->ru_end.ru_utime.tv_sec + b->ru_end.ru_utime.tv_usec > 0)
        s->bot_cpu_pct = (double)(ru_us(&b->ru_end) - ru_us(&b->ru_start)) / (s->secs * 1e4);
    const bot_stats *a = &b->snap[1], *z = &b->snap[2];
    s->have_srv = a->have && z->have && !b->control_moved;   /* one server's two replies */
    if (s->have_srv) {
        s->d_user = z->cpu_user_us - a->cpu_user_us;
        s->d_sys = z->cpu_sys_us - a->cpu_sys_us;
        s->d_cpu = s->d_user + s->d_sys;
        s->d_frames = z->frames_sent - a->frames_sent;
        s->d_bytes = z->bytes_sent - a->bytes_sent;
        s->d_skipped = z->frames_skipped - a->frames_skipped;
        s->cpu_per_frame = s->d_frames ? (double)s->d_cpu / (double)s->d_frames : 0;
        s->srv_cpu_pct = s->secs >= 0.05 ? (double)s->d_cpu / (s->secs * 1e4) : 0;
        s->have_world = a->have_world && z->have_world;
        if (s->have_world) {
            s->d_ticks = z->ticks - a->ticks;
            s->d_overruns = z->overruns - a->overruns;
            window_lateness(a, z, s);
        }
    }
    s->worst_idx = -1;
    for (int i = 0; i < b->nconns; i++) {
        const bot_conn *c = &b->conns[i];
        if (c->role != ROLE_VIEWER || !c->gaps) continue;
        s->viewers_with_gaps++;
        if (c->gaps > s->worst_gaps) {
            s->worst_gaps = c->gaps;
            s->worst_skipped = c->skipped;
            s->worst_idx = c->idx;
        }
    }
    s->pending = b->unanswered;
    if (b->ring)
        for (uint32_t i = 0; i < BOT_RING; i++) s->pending += b->ring[i].used != 0;
}

void bot_report_json(const bot *b, const bot_summary *s)
{
    FILE *o = stdout;
    fprintf(o, "{\"completed\":%s,", b->exit_code == 0 ? "true" : "false");
    fprintf(o, "\"error\":");
    if (b->fatal[0]) json_str(o, b->fatal); else fprintf(o, "null");
    fprintf(o, ",\"interrupted\":%s,\"host\":", b->interrupted ? "true" : "false");
    json_str(o, b->o.host);
    fprintf(o, ",\"world\":{\"id\":%u,\"kind\":", b->world);
    json_str(o, b->kind);
    fprintf(o, ",\"w\":%d,\"h\":%d,\"hz\":%d},\"every\":%ld,\"enc\":\"%s\",\"seconds\":%.3f,",
            b->fw, b->fh, b->hz, b->o.every, b->o.enc ? b->o.enc : "tile.zst", s->secs);
    fprintf(o, "\"ramp_seconds\":%.3f,\"connections\":{",
            b->t_window_start ? (double)(b->t_window_start - b->t_ramp_start) / 1e9 : 0.0);
    for (int r = ROLE_VIEWER; r < ROLE_COUNT; r++)
        fprintf(o, "%s\"%s\":{\"wanted\":%" PRIu64 ",\"ok\":%" PRIu64 ",\"failed\":%" PRIu64
                ",\"closed_by_server\":%" PRIu64 ",\"moved\":%" PRIu64 "}", r > ROLE_VIEWER ? "," : "",
                bot_role_plural[r], b->wanted[r], b->ok[r], b->failed[r], b->lost[r], b->moved[r]);
    fprintf(o, ",\"control_closed_by_server\":%s,\"control_moved\":%s,\"failures\":",
            b->lost[ROLE_CONTROL] ? "true" : "false", b->control_moved ? "true" : "false");
    json_tally(o, &b->fail_reasons);
    fprintf(o, ",\"disconnections\":");
    json_tally(o, &b->lost_reasons);
    fprintf(o, "},\"frames\":{\"total\":%" PRIu64 ",\"per_second\":%.1f,\"per_viewer_per_second\":%.2f,"
            "\"expected_per_viewer_per_second\":%.2f,\"bytes\":%" PRIu64 ",\"bytes_per_second\":%.0f,"
            "\"keyframes\":%" PRIu64 ",\"keyframes_on_subscribe\":%" PRIu64 ",\"gaps\":%" PRIu64 ",\"frames_skipped\":%" PRIu64
            ",\"viewers_with_gaps\":%" PRIu64 ",\"worst_viewer_gaps\":%" PRIu64
            ",\"largest_jump_ticks\":%" PRIu64 ",\"out_of_order\":%" PRIu64
            ",\"first_not_keyframe\":%" PRIu64 ",\"malformed\":%" PRIu64 ",\"lag_samples\":%" PRIu64
            ",\"lag_p50_ticks\":%" PRIu64 ",\"lag_p99_ticks\":%" PRIu64 ",\"lag_max_ticks\":%" PRIu64 "},",
            b->frames, s->fps, s->per_viewer, s->expect_per_viewer, b->bytes,
            s->secs > 0 ? (double)b->bytes / s->secs : 0.0, b->first_keys + b->keys, b->first_keys,
            b->gaps, b->skipped,
            s->viewers_with_gaps, s->worst_gaps, b->max_jump, b->out_of_order, b->first_not_key,
            b->malformed, b->lag_n, bot_lag_pct(b, 50), bot_lag_pct(b, 99), b->lag_max);
    fprintf(o, "\"verify\":{\"viewers\":%ld,\"frames\":%" PRIu64 ",\"mismatches\":%" PRIu64
            ",\"errors\":%" PRIu64 "},", b->o.verify, b->verified, b->mismatches, b->verify_errors);
    fprintf(o, "\"inputs\":{\"rate\":%ld,\"sent\":%" PRIu64 ",\"late_dropped\":%" PRIu64
            ",\"no_player\":%" PRIu64 ",\"acks\":%" PRIu64 ",\"unanswered\":%" PRIu64 ",\"refused\":%" PRIu64
            ",\"errors\":", b->o.rate, b->in_sent, b->in_late, b->in_noplayer, b->acks, s->pending,
            bot_tally_total(&b->input_errs));
    json_tally(o, &b->input_errs);
    fprintf(o, ",\"ack_latency_us\":{\"min\":%" PRIu64 ",\"p50\":%" PRIu64 ",\"p99\":%" PRIu64
            ",\"max\":%" PRIu64 ",\"mean\":%.0f}},", b->lat_min, bot_lat_pct(b, 50), bot_lat_pct(b, 99),
            b->lat_max, b->acks ? (double)b->lat_sum / (double)b->acks : 0.0);
    fprintf(o, "\"slow\":{\"connections\":%" PRIu64 ",\"dropped_by_server\":%" PRIu64
            ",\"still_connected\":%" PRIu64 "},", b->ok[ROLE_SLOW], b->slow_dropped, b->slow_alive);
    fprintf(o, "\"server_errors\":");
    json_tally(o, &b->errs);
    fprintf(o, ",\"bot_cpu_percent\":%.1f,\"stats_rtt_us\":{\"n\":%" PRIu64 ",\"mean\":%.0f,"
            "\"max\":%" PRIu64 "},\"server\":", s->bot_cpu_pct, b->rtt_n,
            b->rtt_n ? (double)b->rtt_sum / (double)b->rtt_n / 1e3 : 0.0, b->rtt_max / 1000);
    if (!s->have_srv) {
        fprintf(o, "null}\n");
        return;
    }
    const bot_stats *a = &b->snap[1], *z = &b->snap[2];
    fprintf(o, "{\"clients_before\":%" PRIu64 ",\"clients_start\":%" PRIu64 ",\"clients_end\":%" PRIu64
            ",\"cpu_us\":%" PRIu64 ",\"cpu_user_us\":%" PRIu64 ",\"cpu_sys_us\":%" PRIu64
            ",\"cpu_percent\":%.1f,\"frames_sent\":%" PRIu64
            ",\"bytes_sent\":%" PRIu64 ",\"frames_skipped\":%" PRIu64
            ",\"cpu_us_per_viewer_frame\":%.3f,\"world\":",
            b->snap[0].have ? b->snap[0].clients : 0, a->clients, z->clients, s->d_cpu, s->d_user,
            s->d_sys, s->srv_cpu_pct, s->d_frames, s->d_bytes, s->d_skipped, s->cpu_per_frame);
    if (!s->have_world) fprintf(o, "null");
    else
        fprintf(o, "{\"ticks\":%" PRIu64 ",\"overruns\":%" PRIu64 ",\"subs\":%" PRIu64
                ",\"late_p50_us\":%" PRIu64 ",\"late_p99_us\":%" PRIu64 ",\"late_max_us\":%" PRIu64
                ",\"lateness_is_cumulative\":true,\"window_late_p50_us\":",
                s->d_ticks, s->d_overruns, z->subs, z->late_p50_us, z->late_p99_us, z->late_max_us);
    if (s->have_world && s->have_window_late)
        fprintf(o, "%" PRIu64 ",\"window_late_p99_us\":%" PRIu64 ",\"window_late_max_us\":%" PRIu64,
                s->w_late_p50_us, s->w_late_p99_us, s->w_late_max_us);
    else if (s->have_world)
        fprintf(o, "null,\"window_late_p99_us\":null,\"window_late_max_us\":null");
    if (s->have_world && s->have_window_work)
        fprintf(o, ",\"window_work_p50_us\":%" PRIu64 ",\"window_work_p99_us\":%" PRIu64
                ",\"window_work_max_us\":%" PRIu64 "}", s->w_work_p50_us, s->w_work_p99_us, s->w_work_max_us);
    else if (s->have_world)
        fprintf(o, ",\"window_work_p50_us\":null,\"window_work_p99_us\":null,\"window_work_max_us\":null}");
    fprintf(o, "}}\n");
}

void bot_report_text(const bot *b, const bot_summary *s)
{
    FILE *o = stdout;
    fprintf(o, "viv bot: world %u (%s, %dx%d at %d Hz) on %s, every %ld, %s encoding; measured %.2f s%s\n",
            b->world, b->kind, b->fw, b->fh, b->hz, b->o.host, b->o.every, b->o.enc ? b->o.enc : "tile.zst", s->secs,
            b->interrupted ? " (interrupted)" : "");
    fprintf(o, "connections   ");
    for (int r = ROLE_VIEWER; r < ROLE_COUNT; r++)
        fprintf(o, "%s%s %" PRIu64 "/%" PRIu64 " ok, %" PRIu64 " failed", r > ROLE_VIEWER ? "; " : "",
                bot_role_plural[r], b->ok[r], b->wanted[r], b->failed[r]);
    fprintf(o, "; ramp-up %.2f s\n",
            b->t_window_start ? (double)(b->t_window_start - b->t_ramp_start) / 1e9 : 0.0);
    if (b->fail_reasons.n) {
        fprintf(o, "  failures    ");
        text_tally(o, &b->fail_reasons);
        fputc('\n', o);
    }
    fprintf(o, "disconnects   %" PRIu64 " viewer(s), %" PRIu64 " player(s)%s closed by the server "
            "during the run",
            b->lost[ROLE_VIEWER], b->lost[ROLE_PLAYER], b->lost[ROLE_CONTROL] ? " and the control connection" : "");
    if (b->lost_reasons.n) {
        fprintf(o, ": ");
        text_tally(o, &b->lost_reasons);
    }
    fputc('\n', o);
    if (b->moved[ROLE_VIEWER] || b->moved[ROLE_PLAYER])
        fprintf(o, "  moved       %" PRIu64 " viewer(s), %" PRIu64 " player(s) to the next address of the "
                "list when their server went away\n", b->moved[ROLE_VIEWER], b->moved[ROLE_PLAYER]);
    if (b->control_moved)
        fprintf(o, "  moved       the control connection, in the run: no server figures (its stats "
                "replies came from two servers)\n");
    fprintf(o, "frames        %" PRIu64 " received, %.0f/s (%.2f/s per viewer, expected %.2f), "
            "%.1f MB (%.1f MB/s)\n", b->frames, s->fps, s->per_viewer, s->expect_per_viewer,
            (double)b->bytes / 1e6, s->secs > 0 ? (double)b->bytes / 1e6 / s->secs : 0.0);
    fprintf(o, "              %" PRIu64 " keyframes (%" PRIu64 " on subscribing, %" PRIu64 " in the run); %"
            PRIu64 " gaps (%" PRIu64 " frames skipped) in %" PRIu64 " viewer(s)", b->first_keys + b->keys,
            b->first_keys, b->keys, b->gaps, b->skipped, s->viewers_with_gaps);
    if (s->worst_idx >= 0)
        fprintf(o, "; worst: viewer %d, %" PRIu64 " gaps, %" PRIu64 " skipped; largest jump %" PRIu64
                " ticks", s->worst_idx, s->worst_gaps, s->worst_skipped, b->max_jump);
    fputc('\n', o);
    if (b->lag_n)
        fprintf(o, "              lag behind the world (its tick in the stats reply − a viewer's last frame tick, "
                "%" PRIu64 " samples): p50 %" PRIu64 ", p99 %" PRIu64 ", max %" PRIu64 " ticks (max %.2f s)\n",
                b->lag_n, bot_lag_pct(b, 50), bot_lag_pct(b, 99), b->lag_max, (double)b->lag_max / b->hz);
    if (b->out_of_order || b->first_not_key || b->malformed || b->other_world || b->world_closed)
        fprintf(o, "  anomalies   %" PRIu64 " out-of-order ticks, %" PRIu64 " first frames not keyframes, %"
                PRIu64 " malformed messages, %" PRIu64 " frames of other worlds, %" PRIu64
                " world-closed notices\n", b->out_of_order, b->first_not_key, b->malformed,
                b->other_world, b->world_closed);
    if (b->o.verify)
        fprintf(o, "verify        %ld viewer(s) rebuilt %" PRIu64 " frames: %" PRIu64 " hash mismatches, %"
                PRIu64 " decode errors%s%s\n", b->o.verify, b->verified, b->mismatches,
                b->verify_errors, b->first_verify_err[0] ? "; first: " : "", b->first_verify_err);
    if (b->o.players) {
        fprintf(o, "inputs        %" PRIu64 " sent (%ld/s wanted), %" PRIu64 " acked, %" PRIu64
                " unanswered, %" PRIu64 " refused", b->in_sent, b->o.rate, b->acks, s->pending,
                bot_tally_total(&b->input_errs));
        if (b->input_errs.n) {
            fprintf(o, " (");
            text_tally(o, &b->input_errs);
            fprintf(o, ")");
        }
        if (b->in_late || b->in_noplayer)
            fprintf(o, "; not sent: %" PRIu64 " late, %" PRIu64 " with no player", b->in_late, b->in_noplayer);
        fputc('\n', o);
        if (b->acks)
            fprintf(o, "              ack latency min %.2f, p50 %.2f, p99 %.2f, max %.2f, mean %.2f ms\n",
                    (double)b->lat_min / 1e3, (double)bot_lat_pct(b, 50) / 1e3, (double)bot_lat_pct(b, 99) / 1e3,
                    (double)b->lat_max / 1e3, (double)b->lat_sum / (double)b->acks / 1e3);
    }
    if (b->o.slow)
        fprintf(o, "slow          %" PRIu64 " connection(s) never read: %" PRIu64 " dropped by the server, %"
                PRIu64 " still connected%s\n", b->ok[ROLE_SLOW], b->slow_dropped, b->slow_alive,
                b->drain_skipped ? " (the server's client count says so)" : "");
    if (b->errs.n || b->errs.other) {
        fprintf(o, "errors        ");
        text_tally(o, &b->errs);
        fputc('\n', o);
    }
    fprintf(o, "bot           %.1f%% of a core", s->bot_cpu_pct);
    if (b->rtt_n)
        fprintf(o, "; stats round trip (server responsiveness) mean %.1f ms, max %.1f ms over %" PRIu64,
                (double)b->rtt_sum / (double)b->rtt_n / 1e6, (double)b->rtt_max / 1e6, b->rtt_n);
    fputc('\n', o);
    if (!s->have_srv) {
        fprintf(o, "server        no stats (the control connection did not get both replies)\n");
        return;
    }
    const bot_stats *z = &b->snap[2];
    if (!s->d_frames) {
        fprintf(o, "server        no frames sent in the window (%.3f s CPU); %" PRIu64 " clients at the end\n",
                (double)s->d_cpu / 1e6, z->clients);
        return;
    }
    double df = (double)s->d_frames;
    fprintf(o, "server        %.3f µs CPU per viewer-frame (user %.3f + sys %.3f; %.3f s CPU for %" PRIu64
            " frames sent = %.1f%% of a core)\n"
            "              %" PRIu64 " frames skipped; %.1f MB sent (%.0f bytes a frame); %" PRIu64
            " clients at the end\n",
            s->cpu_per_frame, (double)s->d_user / df, (double)s->d_sys / df, (double)s->d_cpu / 1e6,
            s->d_frames, s->srv_cpu_pct, s->d_skipped, (double)s->d_bytes / 1e6,
            (double)s->d_bytes / df, z->clients);
    if (s->have_world)
        fprintf(o, "              world %u: %" PRIu64 " ticks (%.0f due at %d Hz), %" PRIu64 " overruns in the "
                "window; lateness p50 %.1f ms, p99 %.1f ms, max %.1f ms (cumulative since the server started)\n",
                b->world, s->d_ticks, s->secs * b->hz, b->hz, s->d_overruns, (double)z->late_p50_us / 1e3,
                (double)z->late_p99_us / 1e3, (double)z->late_max_us / 1e3);
    if (s->have_world && s->have_window_late)
        fprintf(o, "              in the window alone: lateness p50 %.1f ms, p99 %.1f ms, max %.1f ms "
                "(0.1 ms buckets)\n", (double)s->w_late_p50_us / 1e3, (double)s->w_late_p99_us / 1e3,
                (double)s->w_late_max_us / 1e3);
    if (s->have_world && s->have_window_work)
        fprintf(o, "              a tick's work (its step and fan-out) in the window: p50 %.1f ms, p99 %.1f ms, "
                "max %.1f ms\n", (double)s->w_work_p50_us / 1e3, (double)s->w_work_p99_us / 1e3,
                (double)s->w_work_max_us / 1e3);
}
