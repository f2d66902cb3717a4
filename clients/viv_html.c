/* viv_html.c — `viv replay export FILE --html OUT.html`: one session as a single HTML file that
 * replays and verifies itself in the browser, opened from disk, with no server and nothing loaded
 * from the network.
 *
 * The file holds three payloads, each deflate-compressed (raw deflate, which the page inflates
 * with the browser's own DecompressionStream) and base64-encoded in an inert <script> element:
 *   - the sim module (bin/vivarium.wasm);
 *   - the page's modules the player needs (clients/web: player.js and what it imports), which the
 *     page turns into blob: URLs and imports, so the file runs the same code as the page;
 *   - the session as vivd's `replay` stream would carry it (docs/PROTOCOL.md "replay":
 *     replay_info, then per span replay_span, replay_state and replay_ticks, then replay_end or
 *     replay_damage), each message with its 4-byte length, so the page's RecordingVerifier
 *     (clients/web/replay.js) checks it as it checks a stream from vivd: the same verdicts.
 * The stream is built here with server/replay_stream.c's checks (a checkpoint that is not its
 * recorded state, input rows a world could not consume, a tick's hashes missing outside a gap
 * end it with replay_damage at the same place). A world built from a file (cycle scene=file:…)
 * needs nothing more: its checkpoints hold the world, scene included. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "cli.h"
#include "paths.h"
#include "msg.h"
#include "read.h"

#define HTML_TICKS_PER_CHUNK 1024u   /* as vivd's RS_TICKS_PER_CHUNK */
#define HTML_INPUTS_PER_CHUNK 2048u  /* a chunk ends at the first tick past this many inputs */
#define HTML_STATE_PIECE (128u * 1024u)
#define HTML_MARK "<!--VIV-PAYLOAD-->"

/* The page's modules the player imports, dependencies first (player.html's loader resolves each
 * module's relative imports to the blob: URLs of those before it). */
static const char *const html_modules[] = {
    "vendor/msgpack.js", "vendor/fzstd.js", "hash.js", "protocol.js", "sim.js", "replay.js",
    "palette.js", "player.js",
};

typedef struct html_stream {
    rpl_file *f;
    rpl_session sess;
    rpl_plan plan;
    uint64_t *cps;
    size_t ncps, skipped_sent;
    sim_world *check;
    wire_buf out;
    int damaged;
    char err[640];
} html_stream;

/* ---- files ----------------------------------------------------------------------------------- */
static int read_all(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    for (;;) {
        if (!p) break;
        n += fread(p + n, 1, cap - n, fp);
        if (n < cap) break;
        uint8_t *q = realloc(p, cap * 2);
        if (!q) {
            free(p);
            p = NULL;
            break;
        }
        p = q;
        cap *= 2;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (!p || bad) {
        free(p);
        snprintf(err, errlen, "cannot read %s: %s", path, p ? "a read error" : "out of memory");
        return -1;
    }
    *out = p;
    *len = n;
    return 0;
}

/* The page's folder: an installed viv's (make install: PREFIX/share/vivarium/web), else
 * clients/web of the source tree viv was built in (the nearest ancestor of the binary's folder
 * that has one), as vivd finds it; "clients/web" if none. */
static void default_web_dir(char *out, size_t outlen)
{
    if (opt_installed_path("web", out, outlen)) return;
    if (opt_find_up("clients/web/player.html", out, outlen)) {
        out[strlen(out) - strlen("/player.html")] = '\0';
        return;
    }
    snprintf(out, outlen, "clients/web");
}

/* ---- deflate + base64 into the file ----------------------------------------------------------- */
/* Write `<script type="application/octet-stream" id=ID data-name=NAME data-size=N>` + the raw
 * deflate of p in base64 + `</script>`. Returns the bytes of the compressed payload, or -1. */
static long put_payload(FILE *out, const char *id, const char *name, const uint8_t *p, size_t n,
                        char *err, size_t errlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
        snprintf(err, errlen, "zlib: cannot start deflate");
        return -1;
    }
    uLong bound = deflateBound(&z, (uLong)n);
    uint8_t *d = malloc(bound);
    if (!d) {
        deflateEnd(&z);
        snprintf(err, errlen, "out of memory compressing %s", name);
        return -1;
    }
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = d;
    z.avail_out = (uInt)bound;
    int rc = deflate(&z, Z_FINISH);
    size_t dn = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(d);
        snprintf(err, errlen, "zlib: deflate of %s failed (%d)", name, rc);
        return -1;
    }
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    fprintf(out, "<script type=\"application/octet-stream\" id=\"%s\" data-name=\"%s\" data-size=\"%zu\">",
            id, name, n);
    char line[77];
    size_t k = 0;
    for (size_t i = 0; i < dn; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < dn ? (uint32_t)d[i + 1] << 8 : 0) |
                     (i + 2 < dn ? d[i + 2] : 0);
        line[k++] = b64[v >> 18 & 63];
        line[k++] = b64[v >> 12 & 63];
        line[k++] = i + 1 < dn ? b64[v >> 6 & 63] : '=';
        line[k++] = i + 2 < dn ? b64[v & 63] : '=';
        if (k == 76 || i + 3 >= dn) {
            line[k] = '\0';
            fprintf(out, "\n%s", line);
            k = 0;
        }
    }
    fprintf(out, "\n</script>\n");
    free(d);
    return (long)dn;
}

/* ---- the stream, as vivd's replay_stream.c builds it ------------------------------------------ */
static void damage(html_stream *h, uint64_t after, const char *msg)
{
    if (msg != h->err) snprintf(h->err, sizeof h->err, "%s", msg);
    wire_msg_replay_damage(&h->out, h->sess.id, after, h->err);
    h->damaged = 1;
}

static int is_cp(const html_stream *h, uint64_t t)
{
    for (size_t i = 0; i < h->ncps; i++)
        if (h->cps[i] == t) return 1;
    return 0;
}

static uint64_t cp_after(const html_stream *h, uint64_t t)
{
    for (size_t i = 0; i < h->ncps; i++)
        if (h->cps[i] > t) return h->cps[i];
    return UINT64_MAX;
}

/* The checkpoint at tick t loaded into the check world, and its row: 0; 1 damaged (h->err); -1
 * another failure (h->err). stored: the blob as stored, when not NULL. */
static int checkpoint_at(html_stream *h, uint64_t t, rpl_checkpoint *cp, uint8_t **stored,
                         size_t *slen, rpl_tick_row *row, int *have_row)
{
    int rc = rpl_checkpoint_exact(h->f, &h->sess, t, cp, stored, slen, &h->check, row, have_row,
                                  h->err, sizeof h->err);
    return rc == 0 || rc == 1 ? rc : -1;
}

/* The input rows of steps [from, to) must be ones the world at `from` could consume. */
static int inputs_check(html_stream *h, uint64_t from, uint64_t to)
{
    return rpl_inputs_check(h->f, h->sess.id, from, to, h->check, h->err, sizeof h->err);
}

static wire_gap *skipped_until(html_stream *h, uint64_t upto, size_t *n)
{
    wire_gap *v = malloc((h->plan.nskipped + 1) * sizeof *v);
    *n = 0;
    while (v && h->skipped_sent < h->plan.nskipped && h->plan.skipped[h->skipped_sent].to <= upto) {
        const rpl_gap *g = &h->plan.skipped[h->skipped_sent++];
        v[(*n)++] = (wire_gap){ g->from, g->to, g->reason };
    }
    return v;
}

/* Steps [pos, end) of a span as replay_ticks messages: 0 done, 1 damaged, -1 failed (h->err). */
static int put_ticks(html_stream *h, uint64_t pos, uint64_t end)
{
    while (pos < end) {
        uint64_t piece_end = cp_after(h, pos);
        if (piece_end > end) piece_end = end;
        int rc;
        if (is_cp(h, pos)) {
            rpl_checkpoint cp;
            rpl_tick_row row;
            int have_row = 0;
            rc = checkpoint_at(h, pos, &cp, NULL, NULL, &row, &have_row);
            if (rc == 0) rpl_checkpoint_free(&cp);
            if (rc == 0) rc = inputs_check(h, pos, piece_end);
            if (rc != 0) {
                if (rc > 0) damage(h, pos, h->err);
                return rc;
            }
        }
        uint64_t last = pos + HTML_TICKS_PER_CHUNK;
        if (last > piece_end) last = piece_end;
        rpl_chunk ch;
        if (rpl_chunk_load(h->f, &h->sess, pos, last, HTML_INPUTS_PER_CHUNK, &ch, h->err, sizeof h->err) != 0)
            return -1;
        if (ch.n > 0) wire_msg_replay_ticks(&h->out, h->sess.id, pos, ch.n, ch.sh, ch.fh, ch.bits, ch.in, ch.nin);
        int missing = ch.missing;
        pos = ch.to;
        if (missing) {
            snprintf(h->err, sizeof h->err, "%s", ch.damage);
            damage(h, pos, h->err);
        }
        rpl_chunk_free(&ch);
        if (missing) return 1;
    }
    return 0;
}

/* The whole stream into h->out: 0 (damage included, as a replay_damage message), or -1 (h->err). */
static int build_stream(html_stream *h, const char *file_name)
{
    char err[512];
    int rc = rpl_plan_make(h->f, &h->sess, 0, UINT64_MAX, 0, &h->plan, err, sizeof err);
    if (rc == 0) rc = rpl_checkpoint_ticks(h->f, h->sess.id, 0, UINT64_MAX, &h->cps, &h->ncps, err, sizeof err);
    wire_rec_session ws = {
        .id = h->sess.id, .kind = h->sess.kind, .seed = h->sess.seed, .params = h->sess.params,
        .sim_version = h->sess.sim_version, .hz = h->sess.hz, .start = h->sess.start_tick,
        .end = h->sess.end_tick, .world = -1,
        .status = h->sess.running ? "running" : h->sess.suspended ? "suspended" : "closed",
    };
    if (rc == RPL_ECORRUPT) {
        wire_msg_replay_info(&h->out, file_name, &ws, 0, 0);
        damage(h, h->sess.start_tick, err);
        return 0;
    }
    if (rc != 0) {
        snprintf(h->err, sizeof h->err, "%s", err);
        return -1;
    }
    wire_msg_replay_info(&h->out, file_name, &ws, h->plan.ticks, (uint32_t)h->plan.nspans);
    for (size_t i = 0; i < h->plan.nspans; i++) {
        const rpl_span *sp = &h->plan.spans[i];
        rpl_checkpoint cp;
        rpl_tick_row row;
        uint8_t *stored = NULL;
        size_t slen = 0;
        int have_row = 0;
        rc = checkpoint_at(h, sp->start, &cp, &stored, &slen, &row, &have_row);
        if (rc != 0) {
            if (rc > 0) damage(h, sp->start, h->err);
            return rc > 0 ? 0 : -1;
        }
        size_t ng;
        wire_gap *gaps = skipped_until(h, sp->start, &ng);
        if (!gaps) {
            rpl_checkpoint_free(&cp);
            free(stored);
            snprintf(h->err, sizeof h->err, "out of memory");
            return -1;
        }
        uint64_t rowv[2] = { row.state_hash, row.frame_hash };
        wire_msg_replay_span(&h->out, h->sess.id, (uint32_t)i, sp->start, sp->end, gaps, ng,
                             (uint32_t)slen, cp.hash, have_row ? rowv : NULL, have_row ? row.bits : 64);
        free(gaps);
        rpl_checkpoint_free(&cp);
        for (size_t off = 0; off < slen; off += HTML_STATE_PIECE) {
            size_t n = slen - off < HTML_STATE_PIECE ? slen - off : HTML_STATE_PIECE;
            wire_msg_replay_state(&h->out, h->sess.id, (uint32_t)off, stored + off, n);
        }
        free(stored);
        /* every checkpoint on the way (this one again) and the inputs of each piece after it */
        rc = put_ticks(h, sp->start, sp->end);
        if (rc > 0) return 0;
        if (rc < 0) return -1;
    }
    size_t ng;
    wire_gap *gaps = skipped_until(h, UINT64_MAX, &ng);
    if (!gaps) {
        snprintf(h->err, sizeof h->err, "out of memory");
        return -1;
    }
    uint64_t end_sh;
    int have_end = rpl_end_checkpoint_hash(h->f, &h->sess, &end_sh);
    wire_msg_replay_end(&h->out, h->sess.id, gaps, ng, have_end ? &end_sh : NULL);
    free(gaps);
    return 0;
}

/* ---- the command ------------------------------------------------------------------------------- */
int cli_replay_html(struct rpl_file *f, int64_t session, const char *out_path, const char *web_dir,
                    const char *wasm_path, cli_html_result *res, char *err, size_t errlen)
{
    html_stream h;
    memset(&h, 0, sizeof h);
    memset(res, 0, sizeof *res);
    h.f = f;
    wire_buf_init(&h.out);
    char web[PATH_MAX], wasm[PATH_MAX], tmp[PATH_MAX + 16], path[PATH_MAX + 64];
    uint8_t *tpl = NULL, *mod = NULL;
    size_t tlen = 0, mlen = 0;
    FILE *out = NULL;
    int status = -1;
    if (web_dir) snprintf(web, sizeof web, "%s", web_dir);
    else default_web_dir(web, sizeof web);
    if (wasm_path) snprintf(wasm, sizeof wasm, "%s", wasm_path);
    else opt_shipped_file("vivarium.wasm", wasm, sizeof wasm);

    if (rpl_session_get(f, session, &h.sess, err, errlen) != 0) goto done;
    if (!rpl_session_kind(f, &h.sess, NULL, 0, err, errlen)) goto done;
    const char *base = strrchr(rpl_path(f), '/');
    if (build_stream(&h, base ? base + 1 : rpl_path(f)) != 0) {
        snprintf(err, errlen, "%s", h.err);
        goto done;
    }
    if (h.out.oom) {
        snprintf(err, errlen, "out of memory building the session's stream");
        goto done;
    }
    res->damaged = h.damaged;
    snprintf(res->damage, sizeof res->damage, "%s", h.damaged ? h.err : "");

    snprintf(path, sizeof path, "%s/player.html", web);
    if (read_all(path, &tpl, &tlen, err, errlen) != 0) {
        size_t l = strlen(err);
        snprintf(err + l, errlen - l, " (the page's folder: give it with --web DIR)");
        goto done;
    }
    /* the template must hold the mark once (the payload goes there) and be text */
    char *text = (char *)tpl;
    uint8_t *tpl2 = realloc(tpl, tlen + 1);
    if (!tpl2) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    tpl = tpl2;
    text = (char *)tpl;
    text[tlen] = '\0';
    char *mark = strstr(text, HTML_MARK);
    if (!mark || strlen(text) != tlen) {
        snprintf(err, errlen, "%s is not the player's template (no %s in it)", path, HTML_MARK);
        goto done;
    }
    if (read_all(wasm, &mod, &mlen, err, errlen) != 0) {
        size_t l = strlen(err);
        snprintf(err + l, errlen - l, " (the sim module: `make wasm` builds it; or give it with --wasm FILE)");
        goto done;
    }

    snprintf(tmp, sizeof tmp, "%s.tmp", out_path);
    out = fopen(tmp, "wb");
    if (!out) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    fwrite(text, 1, (size_t)(mark - text), out);
    long n;
    if ((n = put_payload(out, "viv-wasm", "vivarium.wasm", mod, mlen, err, errlen)) < 0) goto done;
    res->wasm_bytes = (size_t)n;
    if ((n = put_payload(out, "viv-stream", "replay", h.out.p, h.out.len, err, errlen)) < 0) goto done;
    res->stream_bytes = (size_t)n;
    for (size_t i = 0; i < sizeof html_modules / sizeof *html_modules; i++) {
        uint8_t *js;
        size_t jlen;
        snprintf(path, sizeof path, "%s/%s", web, html_modules[i]);
        if (read_all(path, &js, &jlen, err, errlen) != 0) goto done;
        n = put_payload(out, "viv-module", html_modules[i], js, jlen, err, errlen);
        free(js);
        if (n < 0) goto done;
        res->module_bytes += (size_t)n;
    }
    const char *rest = mark + strlen(HTML_MARK);
    fwrite(rest, 1, strlen(rest), out);
    if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    if (fclose(out) != 0) {
        out = NULL;
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    out = NULL;
    if (rename(tmp, out_path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, out_path, strerror(errno));
        goto done;
    }
    struct stat st;
    if (stat(out_path, &st) == 0) res->file_bytes = (size_t)st.st_size;
    res->first = h.sess.start_tick;
    res->last = h.sess.end_tick;
    res->ticks = h.plan.ticks;
    status = 0;
done:
    if (out) {
        fclose(out);
        remove(tmp);
    }
    free(tpl);
    free(mod);
    free(h.cps);
    rpl_plan_free(&h.plan);
    sim_world_destroy(h.check);
    wire_buf_free(&h.out);
    return status;
}
