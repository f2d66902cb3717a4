/* fuzz_celset.c — libFuzzer target: the cel-set sprite engine (sim/anim/celset.c, seed 002) with
 * cel sets, OAM sets and saved engine states that nobody wrote by hand.
 *
 * The input is cut into: a slot count, two cel sets and an OAM set (each length-prefixed, and
 * handed to the engine in exact-size heap blocks, so a parser that reads past the end of a set is
 * caught by ASan), then a saved engine state. What celset.h promises is checked:
 *   - a load that fails leaves the engine exactly as it was (the same saved bytes);
 *   - a state that loads saves to bytes that load and save to the same bytes again;
 *   - two engines holding the same state tick (behaviours included) and draw identically, and
 *     neither reads outside its tables — whatever the cel sets say ($FC last, $FF or $FE with
 *     nothing before them, cut-short entries, cel ids past the table).
 * The behaviour used here is the kind of thing a world does: it moves its slot, changes the
 * duration offset and the cel id's entry, reinits and deletes, all driven by the slot's bytes. */
#include "fuzz.h"
#include "anim/celset.h"
#include "fuzz_celset.h"

#define TICKS 12

static void behaviour(void *ctx, sim_anim *an, sim_anim_slot *s)
{
    (void)ctx;
    uint8_t op = s->vars[0];
    s->vars[0] = (uint8_t)(op * 5 + 1);
    switch (op & 7) {
    case 0: s->x_ofs = (int16_t)(s->x_ofs + (int8_t)s->vars[1]); break;
    case 1: s->duration_ofs = (uint8_t)(s->duration_ofs + s->vars[2]); break;
    case 2: s->cel = (uint8_t)(s->cel + 1); break;
    case 3: sim_anim_reinit(an, s, (uint8_t)(s->vars[3] & 3)); break;
    case 4: if (s->vars[4] & 1) sim_anim_delete(an, s); break;
    case 5: sim_anim_alloc(an, s->vars[1] % 3, s->x, s->y); break;
    default: break;
    }
}

typedef struct cut {
    const uint8_t *p;
    size_t n;
} cut;

/* The next length-prefixed piece of the input (the length byte, then up to that many bytes). */
static cut take(const uint8_t **d, size_t *left)
{
    cut c = { NULL, 0 };
    if (!*left) return c;
    size_t n = **d;
    (*d)++;
    (*left)--;
    if (n > *left) n = *left;
    c.p = *d;
    c.n = n;
    *d += n;
    *left -= n;
    return c;
}

static size_t save(const sim_anim *an, uint8_t *buf, size_t cap)
{
    sim_writer wr;
    sim__w_init(&wr, buf, cap);
    sim_anim_save(an, &wr);
    FUZZ_CHECK(!wr.overflow, "save overflowed its bound of %zu bytes", cap);
    return wr.len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const uint8_t *d = data;
    size_t left = size;
    uint8_t slots_byte = d[0];
    d++;
    left--;
    cut cs[2] = { take(&d, &left), take(&d, &left) };
    cut oam = take(&d, &left);

    uint8_t *csb[2] = { fuzz_dup(cs[0].p, cs[0].n), fuzz_dup(cs[1].p, cs[1].n) };
    uint8_t *oamb = fuzz_dup(oam.p, oam.n);
    fuzz_celset_tables tb;
    sim_anim_config cfg = fuzz_celset_config(&tb, slots_byte, csb[0], cs[0].n, csb[1], cs[1].n, oamb,
                                             oam.n, behaviour);

    sim_anim a, b;
    FUZZ_CHECK(sim_anim_init(&a, &cfg) == 0, "init failed");
    FUZZ_CHECK(sim_anim_init(&b, &cfg) == 0, "init failed");
    for (int i = 0; i < 3; i++) sim_anim_alloc(&a, i, 10 + 7 * i, 20 - 3 * i);

    size_t cap = sim_anim_save_max(&a);
    uint8_t *before = malloc(cap), *after = malloc(cap), *again = malloc(cap);
    FUZZ_CHECK(before && after && again, "out of memory");
    size_t nb = save(&a, before, cap);
    uint8_t *blob = fuzz_dup(d, left);
    sim_reader rd;
    sim__r_init(&rd, blob, left);
    int e = sim_anim_load(&a, &rd);
    size_t na = save(&a, after, cap);
    if (e) {
        FUZZ_CHECK(na == nb && memcmp(before, after, nb) == 0, "a failed load (%d) changed the engine", e);
    } else {
        sim__r_init(&rd, after, na);
        FUZZ_CHECK(sim_anim_load(&b, &rd) == 0, "a saved state did not load back");
        size_t n2 = save(&b, again, cap);
        FUZZ_CHECK(n2 == na && memcmp(after, again, na) == 0, "save → load → save changed the bytes");
    }
    if (e) {
        sim__r_init(&rd, after, na);
        FUZZ_CHECK(sim_anim_load(&b, &rd) == 0, "the engine's own state did not load");
    }

    sim_frame fa, fb;
    FUZZ_CHECK(sim_frame_init(&fa, 48, 40) == 0 && sim_frame_init(&fb, 48, 40) == 0, "frame");
    for (int t = 0; t < TICKS; t++) {
        a.global_x = b.global_x = (int16_t)(t - 4);
        sim_anim_tick(&a, NULL);
        sim_anim_tick(&b, NULL);
        memset(fa.px, 0, 48 * 40);
        memset(fb.px, 0, 48 * 40);
        sim_anim_draw(&a, &fa);
        sim_anim_draw(&b, &fb);
        FUZZ_CHECK(memcmp(fa.px, fb.px, 48 * 40) == 0, "two engines with one state drew differently at tick %d", t);
        size_t x = save(&a, after, cap), y = save(&b, again, cap);
        FUZZ_CHECK(x == y && memcmp(after, again, x) == 0, "two engines with one state diverged at tick %d", t);
        FUZZ_CHECK(a.count >= 1, "the allocation counter reached 0");
    }
    sim_frame_free(&fa);
    sim_frame_free(&fb);
    sim_anim_free(&a);
    sim_anim_free(&b);
    free(before);
    free(after);
    free(again);
    free(blob);
    free(csb[0]);
    free(csb[1]);
    free(oamb);
    return 0;
}
