/* api.c — the sim core's face in WebAssembly: the functions a page (or Node) calls on
 * bin/vivarium.wasm, a WASI reactor module built from sim/ and this file alone (make wasm).
 *
 * A handle (vw_world *, an i32 address in the module's memory) holds one world, its frame and a
 * save buffer, all sized when the world is made or loaded; step, input, render, the hashes and
 * save allocate nothing, as in the native build. Strings go in as NUL-terminated UTF-8 in the
 * module's memory (vw_alloc, then vw_free), 64-bit values (seeds, ticks, hashes) as i64, which
 * JavaScript sees as BigInt. What a call returns about a frame or a save (addresses into memory)
 * stays valid until the next vw_create, vw_load or vw_destroy of that handle; a JavaScript view
 * over memory.buffer must be made again after any call that may allocate (vw_alloc, vw_new,
 * vw_create, vw_load), since a growing memory detaches the old buffer.
 *
 * The same contract as sim.h: 0 or a negative SIM_E… code, and vw_error() holds the sentence.
 * This file sees sim/ and libc only (make test-layers checks both). */
#include <stdlib.h>
#include <string.h>
#include "sim.h"

#if defined(__wasm__)
#define VW_EXPORT(name) __attribute__((export_name(name), used))
#else
#define VW_EXPORT(name)
#endif

typedef struct vw_world {
    sim_world *w;                     /* NULL until vw_create succeeds */
    sim_frame frame;                  /* px allocated for the world's size; frame.w == 0: none */
    uint8_t *save;                    /* sim_world_save_max bytes */
    size_t save_cap, save_len;
    char err[256];
} vw_world;

/* ---- memory, for the caller's strings and blobs ------------------------------------------- */
VW_EXPORT("vw_alloc") void *vw_alloc(size_t n);
VW_EXPORT("vw_free") void vw_free(void *p);
void *vw_alloc(size_t n) { return malloc(n ? n : 1); }
void vw_free(void *p) { free(p); }

/* ---- the kinds list, for a page that offers every kind ------------------------------------ */
VW_EXPORT("vw_kind_count") int vw_kind_count(void);
VW_EXPORT("vw_kind_name") const char *vw_kind_name(int i);
VW_EXPORT("vw_kind_hz") int vw_kind_hz(int i);
int vw_kind_count(void) { return sim_kind_count(); }
const char *vw_kind_name(int i) { return sim_kind_at(i) ? sim_kind_at(i)->name : NULL; }
int vw_kind_hz(int i) { return sim_kind_at(i) ? sim_kind_at(i)->hz : 0; }

/* What a kind takes, for a page that runs a world with no server: the same description a
 * welcome's world entry gives (its views, inputs with their argument names and ranges, and the
 * enums that name argument values), read through these. i is a kind's index in the list; an
 * index out of range gives 0, -1 or NULL. */
VW_EXPORT("vw_kind_views") int vw_kind_views(int i);
VW_EXPORT("vw_kind_view") const char *vw_kind_view(int i, int v);
VW_EXPORT("vw_kind_inputs") int vw_kind_inputs(int i);
VW_EXPORT("vw_kind_input") const char *vw_kind_input(int i, int in);
VW_EXPORT("vw_kind_args") int vw_kind_args(int i, int in);
VW_EXPORT("vw_kind_arg") const char *vw_kind_arg(int i, int in, int a);
VW_EXPORT("vw_kind_arg_min") int32_t vw_kind_arg_min(int i, int in, int a);
VW_EXPORT("vw_kind_arg_max") int32_t vw_kind_arg_max(int i, int in, int a);
VW_EXPORT("vw_kind_enums") int vw_kind_enums(int i);
VW_EXPORT("vw_kind_enum") const char *vw_kind_enum(int i, int e);
VW_EXPORT("vw_kind_enum_size") int vw_kind_enum_size(int i, int e);
VW_EXPORT("vw_kind_enum_value") const char *vw_kind_enum_value(int i, int e, int v);

static const sim_input_desc *input_at(int i, int in)
{
    const sim_kind *k = sim_kind_at(i);
    return k && in >= 0 && in < k->ninputs ? &k->inputs[in] : NULL;
}

static const sim_arg_desc *arg_at(int i, int in, int a)
{
    const sim_input_desc *d = input_at(i, in);
    return d && a >= 0 && a < d->nargs ? &d->args[a] : NULL;
}

static const sim_enum_desc *enum_at(int i, int e)
{
    const sim_kind *k = sim_kind_at(i);
    return k && e >= 0 && e < k->nenums ? &k->enums[e] : NULL;
}

int vw_kind_views(int i) { return sim_kind_at(i) ? sim_kind_at(i)->nviews : 0; }
const char *vw_kind_view(int i, int v)
{
    const sim_kind *k = sim_kind_at(i);
    return k && v >= 0 && v < k->nviews ? k->views[v] : NULL;
}
int vw_kind_inputs(int i) { return sim_kind_at(i) ? sim_kind_at(i)->ninputs : 0; }
const char *vw_kind_input(int i, int in) { return input_at(i, in) ? input_at(i, in)->name : NULL; }
int vw_kind_args(int i, int in) { return input_at(i, in) ? input_at(i, in)->nargs : -1; }
const char *vw_kind_arg(int i, int in, int a) { return arg_at(i, in, a) ? arg_at(i, in, a)->name : NULL; }
int32_t vw_kind_arg_min(int i, int in, int a) { return arg_at(i, in, a) ? arg_at(i, in, a)->min : 0; }
int32_t vw_kind_arg_max(int i, int in, int a) { return arg_at(i, in, a) ? arg_at(i, in, a)->max : -1; }
int vw_kind_enums(int i) { return sim_kind_at(i) ? sim_kind_at(i)->nenums : 0; }
const char *vw_kind_enum(int i, int e) { return enum_at(i, e) ? enum_at(i, e)->name : NULL; }
int vw_kind_enum_size(int i, int e) { return enum_at(i, e) ? enum_at(i, e)->count : 0; }
const char *vw_kind_enum_value(int i, int e, int v)
{
    const sim_enum_desc *d = enum_at(i, e);
    return d && v >= 0 && v < d->count ? d->values[v] : NULL;
}

VW_EXPORT("vw_strerror") const char *vw_strerror(int err);
const char *vw_strerror(int err) { return sim_strerror(err); }

/* ---- handles ---------------------------------------------------------------------------------- */
VW_EXPORT("vw_new") vw_world *vw_new(void);
VW_EXPORT("vw_destroy") void vw_destroy(vw_world *h);
VW_EXPORT("vw_error") const char *vw_error(const vw_world *h);

/* An empty handle (no world yet), or NULL when memory is short. */
vw_world *vw_new(void)
{
    return calloc(1, sizeof(vw_world));
}

static void drop_world(vw_world *h)
{
    sim_world_destroy(h->w);
    h->w = NULL;
    sim_frame_free(&h->frame);
    free(h->save);
    h->save = NULL;
    h->save_cap = h->save_len = 0;
}

void vw_destroy(vw_world *h)
{
    if (!h) return;
    drop_world(h);
    free(h);
}

/* The sentence for the last failed call on h ("" after a success that set none). */
const char *vw_error(const vw_world *h) { return h ? h->err : "no handle"; }

static int fail(vw_world *h, int rc, const char *why)
{
    size_t n = strlen(why);
    if (n >= sizeof h->err) n = sizeof h->err - 1;
    memcpy(h->err, why, n);
    h->err[n] = '\0';
    return rc;
}

/* Size the frame and the save buffer for the world h holds now: after create and after a load
 * (which may bring other params, so another frame size or save bound). 0 or SIM_ENOMEM, and on
 * failure both stay as they were. */
static int fit_buffers(vw_world *h)
{
    int fw, fh;
    sim_world_frame_size(h->w, &fw, &fh);
    size_t cap = sim_world_save_max(h->w);
    uint8_t *save = h->save;
    if (cap > h->save_cap) {
        save = malloc(cap);
        if (!save) return SIM_ENOMEM;
    }
    if (h->frame.w != fw || h->frame.h != fh) {
        sim_frame nf;
        int rc = sim_frame_init(&nf, fw, fh);
        if (rc) {
            if (save != h->save) free(save);
            return rc;
        }
        sim_frame_free(&h->frame);
        h->frame = nf;
    }
    if (save != h->save) {
        free(h->save);
        h->save = save;
        h->save_cap = cap;
    }
    h->save_len = 0;
    return 0;
}

/* h takes the world and buffers of fresh in place of its own. */
static void install(vw_world *h, vw_world *fresh)
{
    drop_world(h);
    h->w = fresh->w;
    h->frame = fresh->frame;
    h->save = fresh->save;
    h->save_cap = fresh->save_cap;
    h->save_len = 0;
    h->err[0] = '\0';
}

/* Make a world of (kind, seed, params) apart from h; with blob, as an empty shell (no scene built,
 * no file read) that the blob is loaded into. Size its frame and save buffer, then give it to h in
 * place of h's world. 0, or a SIM_E… code with the sentence in h->err, and h left as it was. */
static int replace_world(vw_world *h, const char *kind, uint64_t seed, const char *params,
                         const uint8_t *blob, size_t len)
{
    char err[256] = "";
    sim_config cfg = sim_config_default();
    cfg.kind = kind;
    cfg.seed = seed;
    cfg.params = params;
    cfg.err = err;
    cfg.errlen = sizeof err;
    cfg.bare = blob != NULL;
    int rc;
    vw_world fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.w = sim_world_create(&cfg, &rc);
    if (!fresh.w) return fail(h, rc, err[0] ? err : sim_strerror(rc));
    if (blob && (rc = sim_world_load(fresh.w, blob, len)) != 0) {
        fail(h, rc, sim_world_error(fresh.w));
        drop_world(&fresh);
        return rc;
    }
    rc = fit_buffers(&fresh);
    if (rc) {
        drop_world(&fresh);
        return fail(h, rc, "out of memory for the frame or the save buffer");
    }
    install(h, &fresh);
    return 0;
}

/* ---- a world ---------------------------------------------------------------------------------- */
VW_EXPORT("vw_create") int vw_create(vw_world *h, const char *kind, uint64_t seed, const char *params);
VW_EXPORT("vw_tick") uint64_t vw_tick(const vw_world *h);
VW_EXPORT("vw_seed") uint64_t vw_seed(const vw_world *h);
VW_EXPORT("vw_params") const char *vw_params(const vw_world *h);
VW_EXPORT("vw_kind") const char *vw_kind(const vw_world *h);
VW_EXPORT("vw_view_find") int vw_view_find(const vw_world *h, const char *name);

/* Make the world (kind, seed, params text: "" or NULL for the defaults) in h, replacing the one it
 * held. 0, or a SIM_E… code with the sentence in vw_error(h), and h keeps its old world. The core
 * reads no file here: a cycle world with scene=file:PATH is refused with SIM_EFILE. */
int vw_create(vw_world *h, const char *kind, uint64_t seed, const char *params)
{
    return h ? replace_world(h, kind, seed, params ? params : "", NULL, 0) : SIM_EINVAL;
}

/* Ticks stepped so far, which is the tick the next inputs are for (0 with no world). */
uint64_t vw_tick(const vw_world *h) { return h && h->w ? sim_world_tick(h->w) : 0; }
uint64_t vw_seed(const vw_world *h) { return h && h->w ? sim_world_seed(h->w) : 0; }
/* The canonical params text (every param, in table order), as a replay file stores it. */
const char *vw_params(const vw_world *h) { return h && h->w ? sim_world_params(h->w) : ""; }
const char *vw_kind(const vw_world *h) { return h && h->w ? sim_world_kind(h->w)->name : ""; }
/* The index of the view called name (0 is the normal picture), or -1. */
int vw_view_find(const vw_world *h, const char *name)
{
    return h && h->w ? sim_kind_view_find(sim_world_kind(h->w), name) : -1;
}

/* ---- inputs and stepping ---------------------------------------------------------------------- */
VW_EXPORT("vw_input") int vw_input(vw_world *h, uint64_t tick, uint32_t client, uint32_t seq,
                                   int kind, int nargs, int32_t a0, int32_t a1, int32_t a2,
                                   int32_t a3, int32_t a4, int32_t a5, int32_t a6, int32_t a7);
VW_EXPORT("vw_input_line") int vw_input_line(vw_world *h, uint32_t client, uint32_t seq,
                                             const char *line);
VW_EXPORT("vw_step") void vw_step(vw_world *h);

/* Queue one input record for the next tick, as sim_world_input does: the tick must be vw_tick(h)
 * (SIM_ETICK otherwise), (client, seq) orders it among that tick's inputs, kind indexes the
 * kind's input table and a0… are its nargs arguments (the rest are ignored). A refused input
 * changes nothing. This is how a recording's inputs are replayed. */
int vw_input(vw_world *h, uint64_t tick, uint32_t client, uint32_t seq, int kind, int nargs,
             int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t a4, int32_t a5, int32_t a6,
             int32_t a7)
{
    if (!h || !h->w) return h ? fail(h, SIM_EINVAL, "no world: call vw_create first") : SIM_EINVAL;
    if (kind < 0 || kind > UINT16_MAX || nargs < 0 || nargs > SIM_INPUT_MAX_ARGS)
        return fail(h, SIM_EINPUT, "input kind or argument count out of range");
    sim_input in;
    memset(&in, 0, sizeof in);
    in.tick = tick;
    in.client = client;
    in.seq = seq;
    in.kind = (uint16_t)kind;
    in.nargs = (uint16_t)nargs;
    const int32_t args[SIM_INPUT_MAX_ARGS] = { a0, a1, a2, a3, a4, a5, a6, a7 };
    for (int i = 0; i < nargs; i++) in.args[i] = args[i];
    int rc = sim_world_input(h->w, &in);
    return rc ? fail(h, rc, sim_world_error(h->w)) : 0;
}

/* Queue the input of one inputs-file line, `<tick> <input> <args…>` with names for enum arguments
 * (`120 paint 160 20 5 sand`), as `viv sim --inputs` reads it: 0 queued, 1 a blank or comment line
 * (nothing queued), or a SIM_E… code (a bad line, or a tick other than vw_tick(h)). */
int vw_input_line(vw_world *h, uint32_t client, uint32_t seq, const char *line)
{
    if (!h || !h->w || !line) return h ? fail(h, SIM_EINVAL, "no world or no line") : SIM_EINVAL;
    sim_input in;
    char err[256];
    int rc = sim_input_parse_line(sim_world_kind(h->w), line, &in, err, sizeof err);
    if (rc == 1) return 1;
    if (rc) return fail(h, rc, err);
    in.client = client;
    in.seq = seq;
    rc = sim_world_input(h->w, &in);
    return rc ? fail(h, rc, sim_world_error(h->w)) : 0;
}

/* Apply the queued inputs and advance one tick. Allocates nothing. */
void vw_step(vw_world *h)
{
    if (h && h->w) sim_world_step(h->w);
}

/* ---- the frame, in memory shared with the caller --------------------------------------------- */
VW_EXPORT("vw_render") int vw_render(vw_world *h, int view);
VW_EXPORT("vw_frame_width") int vw_frame_width(const vw_world *h);
VW_EXPORT("vw_frame_height") int vw_frame_height(const vw_world *h);
VW_EXPORT("vw_frame_pixels") const uint8_t *vw_frame_pixels(const vw_world *h);
VW_EXPORT("vw_frame_palette") const uint8_t *vw_frame_palette(const vw_world *h);
VW_EXPORT("vw_frame_palette_count") int vw_frame_palette_count(const vw_world *h);
VW_EXPORT("vw_frame_palette_version") uint32_t vw_frame_palette_version(const vw_world *h);
VW_EXPORT("vw_frame_hash") uint64_t vw_frame_hash(const vw_world *h);

/* Render the world's present state (view: 0 the normal picture, vw_view_find for another; an
 * unknown one draws the normal picture, as sim_world_render does) into h's frame: w·h palette
 * indexes at vw_frame_pixels, 3·count RGB bytes at vw_frame_palette. Allocates nothing. */
int vw_render(vw_world *h, int view)
{
    if (!h || !h->w) return h ? fail(h, SIM_EINVAL, "no world: call vw_create first") : SIM_EINVAL;
    int fw, fh;
    sim_world_frame_size(h->w, &fw, &fh);
    if (!h->frame.px || fw != h->frame.w || fh != h->frame.h)
        return fail(h, SIM_ENOMEM, "no frame of this world's size (out of memory at the last load)");
    sim_world_render(h->w, view, &h->frame);
    return 0;
}

int vw_frame_width(const vw_world *h) { return h ? h->frame.w : 0; }
int vw_frame_height(const vw_world *h) { return h ? h->frame.h : 0; }
const uint8_t *vw_frame_pixels(const vw_world *h) { return h ? h->frame.px : NULL; }
const uint8_t *vw_frame_palette(const vw_world *h) { return h ? h->frame.pal.rgb : NULL; }
int vw_frame_palette_count(const vw_world *h) { return h ? h->frame.pal.count : 0; }
uint32_t vw_frame_palette_version(const vw_world *h) { return h ? h->frame.pal.version : 0; }
/* XXH3-64 of the last rendered frame's (w, h, palette, pixels): docs/PROTOCOL.md's `fh`. */
uint64_t vw_frame_hash(const vw_world *h) { return h && h->frame.px ? sim_frame_hash(&h->frame) : 0; }

/* ---- state: hash, save, load ------------------------------------------------------------------ */
VW_EXPORT("vw_hash") uint64_t vw_hash(const vw_world *h);
VW_EXPORT("vw_save") size_t vw_save(vw_world *h);
VW_EXPORT("vw_save_data") const uint8_t *vw_save_data(const vw_world *h);
VW_EXPORT("vw_load") int vw_load(vw_world *h, const uint8_t *buf, size_t len);
VW_EXPORT("vw_state_hash") uint64_t vw_state_hash(const uint8_t *buf, size_t len);
VW_EXPORT("vw_save_as") int vw_save_as(vw_world *h, const uint8_t *buf, size_t len);

/* The state hash (`sh`; docs/STATE.md), 0 with no world. Allocates nothing. */
uint64_t vw_hash(const vw_world *h) { return h && h->w ? sim_world_hash(h->w) : 0; }

/* The state hash of a saved blob (sim_state_hash), as vw_hash gives it for the world it holds. */
uint64_t vw_state_hash(const uint8_t *buf, size_t len) { return sim_state_hash(buf, len); }

/* Save and hash h's world as the state version of the blob (buf, len) from now on (a new world
 * compared with a state an older build saved): 0, or SIM_EVERSION for one its kind does not read. */
int vw_save_as(vw_world *h, const uint8_t *buf, size_t len)
{
    if (!h || !h->w) return SIM_EINVAL;
    return sim_world_set_state_version(h->w, sim_state_version(buf, len));
}

/* Save the whole state into h's save buffer (docs/REPLAY.md's state blob): its length, or 0 with
 * no world or when a non-finite value reached the state. The bytes are at vw_save_data(h).
 * Allocates nothing. */
size_t vw_save(vw_world *h)
{
    if (!h || !h->w) return 0;
    if (h->save_cap < sim_world_save_max(h->w)) {
        fail(h, SIM_ENOMEM, "no save buffer of this world's size (out of memory at the last load)");
        return 0;
    }
    h->save_len = sim_world_save(h->w, h->save, h->save_cap);
    if (!h->save_len) fail(h, SIM_ECORRUPT, "save failed: a non-finite value reached the state");
    return h->save_len;
}

const uint8_t *vw_save_data(const vw_world *h) { return h ? h->save : NULL; }

/* Replace the world in h with a saved blob (from vw_save, or a replay file's initial state or
 * checkpoint), of any kind: 0, or a SIM_E… code with the sentence in vw_error(h), and h is left
 * exactly as it was. The frame and the save buffer follow the loaded params. No file is read: a
 * cycle world built from scene=file:PATH loads from its blob alone. */
int vw_load(vw_world *h, const uint8_t *buf, size_t len)
{
    if (!h) return SIM_EINVAL;
    uint16_t kid;
    uint64_t seed;
    char params[SIM_PARAMS_MAX];
    int rc = sim_state_peek(buf, len, &kid, &seed, NULL, params, sizeof params);
    if (rc) return fail(h, rc, sim_strerror(rc));
    const sim_kind *k = sim_kind_by_id(kid);
    if (!k) return fail(h, SIM_EWRONGKIND, "the saved state is of an unknown world kind");
    if (h->w && sim_world_kind(h->w) == k && strcmp(sim_world_params(h->w), params) == 0) {
        /* Same kind and params (a checkpoint of the same session): the load replaces the state
         * in place and keeps what the kind derives for drawing alone (the merge world's art). */
        rc = sim_world_load(h->w, buf, len);
        if (rc) return fail(h, rc, sim_world_error(h->w));
        /* The frame size and save bound come from the params, so this allocates nothing; were
         * it to fail, vw_render and vw_save refuse rather than overrun. */
        rc = fit_buffers(h);
        if (rc) return fail(h, rc, "loaded, but out of memory for the frame or the save buffer");
        h->err[0] = '\0';
        return 0;
    }
    return replace_world(h, k->name, seed, params, buf, len);
}
