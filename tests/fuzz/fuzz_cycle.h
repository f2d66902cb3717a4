/* fuzz_cycle.h — what the two palette-cycling importer targets (fuzz_ilbm.c, fuzz_ccjson.c)
 * check about a decoded scene. sim.h promises: bad bytes give SIM_EFILE and a sentence, with the
 * output all zeros; a decoded scene passes sim_cycle_scene_check; our own ILBM, PBM and Canvas
 * Cycle JSON files round-trip exactly; and a cycle world built from the bytes (scene=file:…, as
 * `vivd --world` builds it) steps, renders and survives save → load. */
#ifndef VIVARIUM_FUZZ_CYCLE_H
#define VIVARIUM_FUZZ_CYCLE_H
#include "fuzz.h"
#include "cycle/scene.h"

typedef int (*fuzz_cycle_decoder)(const uint8_t *buf, size_t len, sim_cycle_scene *out,
                                  char *notes, size_t noteslen, char *err, size_t errlen);

static inline void fuzz_scene_same(const sim_cycle_scene *a, const sim_cycle_scene *b, const char *how)
{
    FUZZ_CHECK(a->w == b->w && a->h == b->h && a->ncolors == b->ncolors, "%s: %ux%u/%u -> %ux%u/%u", how,
               (unsigned)a->w, (unsigned)a->h, (unsigned)a->ncolors, (unsigned)b->w,
               (unsigned)b->h, (unsigned)b->ncolors);
    FUZZ_CHECK(memcmp(a->rgb, b->rgb, (size_t)a->ncolors * 3) == 0, "%s: palette differs", how);
    FUZZ_CHECK(memcmp(a->px, b->px, (size_t)a->w * a->h) == 0, "%s: pixels differ", how);
    FUZZ_CHECK(a->nranges == b->nranges, "%s: %u ranges -> %u", how, (unsigned)a->nranges, (unsigned)b->nranges);
    FUZZ_CHECK(a->timing == b->timing, "%s: timing %u -> %u", how, (unsigned)a->timing, (unsigned)b->timing);
    for (int i = 0; i < a->nranges; i++) {
        const sim_cycle_range *x = &a->ranges[i], *y = &b->ranges[i];
        FUZZ_CHECK(x->low == y->low && x->high == y->high && x->rate == y->rate && x->dir == y->dir &&
                   x->mode == y->mode && x->active == y->active,
                   "%s: range %d (%u..%u rate %u dir %u mode %u active %u) -> (%u..%u rate %u dir %u mode %u active %u)",
                   how, i, x->low, x->high, x->rate, x->dir, x->mode, x->active, y->low, y->high,
                   y->rate, y->dir, y->mode, y->active);
    }
}

/* Decode bytes with one decoder into *out, checking the failure contract. 0 or SIM_EFILE. */
static inline int fuzz_scene_decode(fuzz_cycle_decoder dec, const uint8_t *p, size_t n,
                                    sim_cycle_scene *out, const char *what)
{
    uint8_t *copy = fuzz_dup(p, n);
    size_t noteslen = 1 + n % 97, errlen = 1 + n % 131;        /* exact-size, varied */
    char *notes = malloc(noteslen), *err = malloc(errlen);
    FUZZ_CHECK(notes && err, "oom");
    memset(notes, 'n', noteslen);
    memset(err, 'e', errlen);
    memset(out, 0x5a, sizeof *out);
    int rc = dec(copy, n, out, notes, noteslen, err, errlen);
    FUZZ_CHECK(rc == 0 || rc == SIM_EFILE, "%s gave %d", what, rc);
    /* The sentence on failure, the notes on success. */
    FUZZ_CHECK(rc == 0 ? fuzz_terminated(notes, noteslen) : fuzz_terminated(err, errlen),
               "%s: unterminated %s", what, rc == 0 ? "notes" : "error");
    if (rc != 0) {
        static const sim_cycle_scene zero;
        FUZZ_CHECK(memcmp(out, &zero, sizeof zero) == 0, "%s failed but left the scene non-zero", what);
        FUZZ_CHECK(errlen == 1 || err[0] != '\0', "%s failed without a sentence", what);
    } else {
        char why[200];
        FUZZ_CHECK(sim_cycle_scene_check(out, why, sizeof why) == 0, "%s made an invalid scene: %s", what, why);
    }
    free(notes);
    free(err);
    free(copy);
    return rc;
}

/* Encode with an encoder (its two-call size protocol), decode again: the same scene. */
static inline void fuzz_scene_roundtrip(const sim_cycle_scene *s, int which)
{
    size_t need = which == 2 ? sim_cycle_to_ccjson(s, "fuzz\"\\\x01.json", NULL, 0)
                             : sim_cycle_to_ilbm(s, which, NULL, 0);
    FUZZ_CHECK(need > 0, "encoder %d refuses a valid scene", which);
    uint8_t *buf = malloc(need);
    FUZZ_CHECK(buf != NULL, "oom");
    size_t got = which == 2 ? sim_cycle_to_ccjson(s, "fuzz\"\\\x01.json", buf, need)
                            : sim_cycle_to_ilbm(s, which, buf, need);
    FUZZ_CHECK(got == need, "encoder %d wrote %zu bytes, said %zu", which, got, need);
    /* A short buffer: the same length, and only cap bytes written (ASan checks the bound). */
    if (need > 1) {
        uint8_t *shortbuf = malloc(need / 2);
        FUZZ_CHECK(shortbuf != NULL, "oom");
        size_t again = which == 2 ? sim_cycle_to_ccjson(s, "fuzz\"\\\x01.json", shortbuf, need / 2)
                                  : sim_cycle_to_ilbm(s, which, shortbuf, need / 2);
        FUZZ_CHECK(again == need, "encoder %d: %zu bytes with a short buffer, %zu with room", which, again, need);
        FUZZ_CHECK(memcmp(shortbuf, buf, need / 2) == 0, "encoder %d: a short buffer got other bytes", which);
        free(shortbuf);
    }
    sim_cycle_scene back;
    const char *what = which == 0 ? "ILBM round trip" : which == 1 ? "PBM round trip" : "JSON round trip";
    int rc = fuzz_scene_decode(which == 2 ? sim_cycle_from_ccjson : sim_cycle_from_ilbm, buf, need, &back, what);
    FUZZ_CHECK(rc == 0, "%s: our own file does not decode", what);
    fuzz_scene_same(s, &back, what);
    sim_cycle_scene back2;
    rc = fuzz_scene_decode(sim_cycle_from_bytes, buf, need, &back2, "from_bytes");
    FUZZ_CHECK(rc == 0, "%s: sim_cycle_from_bytes does not recognise our own file", what);
    fuzz_scene_same(s, &back2, "from_bytes");
    sim_cycle_scene_free(&back);
    sim_cycle_scene_free(&back2);
    free(buf);
}

/* The palette over time: at tick 0 it is the base palette (but where a Canvas Cycle sine swing
 * plays: it starts a quarter of its sway in). */
static inline void fuzz_scene_palette(const sim_cycle_scene *s, uint64_t t)
{
    uint8_t rgb[SIM_PALETTE_MAX * 3];
    int sine = 0;
    for (int i = 0; i < s->nranges; i++)
        sine |= s->ranges[i].active && s->ranges[i].rate && s->ranges[i].dir >= SIM_CYCLE_SINE_HALF;
    sim_cycle_palette_at(s, 0, rgb);
    FUZZ_CHECK(sine || memcmp(rgb, s->rgb, (size_t)s->ncolors * 3) == 0,
               "the palette at tick 0 is not the base palette");
    sim_cycle_palette_at(s, t, rgb);
    sim_cycle_palette_at(s, UINT64_MAX - t, rgb);
}

/* ---- a cycle world built from the bytes, as vivd --world cycle:scene=file:PATH builds it -------- */
typedef struct fuzz_bytes { const uint8_t *p; size_t n; } fuzz_bytes;

static inline int fuzz_read_bytes(void *ud, const char *path, uint8_t **data, size_t *len, char *err,
                                  size_t errlen)
{
    const fuzz_bytes *b = ud;
    (void)path;
    (void)err;
    (void)errlen;
    *data = fuzz_dup(b->p, b->n);
    *len = b->n;
    return 0;
}

static inline void fuzz_scene_world(const uint8_t *p, size_t n, int decoded)
{
    fuzz_bytes b = { p, n };
    sim_file_reader rd = { fuzz_read_bytes, &b };
    char err[256];
    sim_config cfg = sim_config_default();
    cfg.kind = "cycle";
    cfg.seed = 5;
    cfg.params = "scene=file:fuzz";
    cfg.files = &rd;
    cfg.err = err;
    cfg.errlen = sizeof err;
    int rc;
    sim_world *w = sim_world_create(&cfg, &rc);
    FUZZ_CHECK((w != NULL) == decoded, "the world %s though the decoder %s: %s", w ? "was built" : "failed",
               decoded ? "accepted the bytes" : "refused them", w ? "" : err);
    if (!w) {
        FUZZ_CHECK(rc == SIM_EFILE && err[0], "a refused scene file gave %d '%s'", rc, err);
        return;
    }
    sim_frame f;
    FUZZ_CHECK(sim_world_frame_init(w, &f) == 0, "frame");
    for (int t = 0; t < 3; t++) {
        sim_world_step(w);
        sim_world_render(w, 0, &f);
    }
    size_t cap = sim_world_save_max(w);
    uint8_t *st = malloc(cap);
    FUZZ_CHECK(st != NULL, "oom");
    size_t len = sim_world_save(w, st, cap);
    FUZZ_CHECK(len > 0, "a cycle world from a file does not save");
    cfg.bare = 1;
    cfg.files = NULL;
    sim_world *w2 = sim_world_create(&cfg, &rc);
    FUZZ_CHECK(w2 != NULL, "a bare cycle world: %s", err);
    FUZZ_CHECK(sim_world_load(w2, st, len) == 0, "a file scene's state does not load: %s", sim_world_error(w2));
    FUZZ_CHECK(sim_world_hash(w2) == sim_world_hash(w), "save -> load changed the hash");
    sim_world_step(w);
    sim_world_step(w2);
    FUZZ_CHECK(sim_world_hash(w2) == sim_world_hash(w), "diverged after a step");
    sim_frame f2;
    FUZZ_CHECK(sim_world_frame_init(w2, &f2) == 0, "frame");
    sim_world_render(w, 0, &f);
    sim_world_render(w2, 0, &f2);
    FUZZ_CHECK(sim_frame_hash(&f) == sim_frame_hash(&f2), "frames differ after save -> load");
    sim_frame_free(&f);
    sim_frame_free(&f2);
    free(st);
    sim_world_destroy(w);
    sim_world_destroy(w2);
}

/* The whole check for one input and the decoder that should take it. */
static inline void fuzz_scene_input(fuzz_cycle_decoder dec, const char *what, const uint8_t *p, size_t n)
{
    sim_cycle_scene s;
    int rc = fuzz_scene_decode(dec, p, n, &s, what);
    /* sim_cycle_from_bytes picks a decoder from the first bytes: where it picks this one, it must
     * agree with it. */
    sim_cycle_scene viab;
    int rc2 = fuzz_scene_decode(sim_cycle_from_bytes, p, n, &viab, "sim_cycle_from_bytes");
    if (rc2 == 0 && rc == 0) fuzz_scene_same(&s, &viab, "from_bytes vs the decoder");
    if (rc2 == 0) sim_cycle_scene_free(&viab);
    fuzz_scene_world(p, n, rc2 == 0);
    if (rc != 0) return;
    fuzz_scene_palette(&s, n ? (uint64_t)p[n - 1] * 977u : 1);
    for (int which = 0; which < 3; which++) fuzz_scene_roundtrip(&s, which);
    sim_cycle_scene_free(&s);
}

#endif
