/* fuzz_celset.h — the cel-set engine's tables as fuzz_celset.c and its seeds (make_corpus.c) build
 * them from an input: three tiles, the input's two cel sets (the first twice) and a missing one,
 * three cels (two on the input's OAM set, one with none), three objects. */
#ifndef VIVARIUM_FUZZ_CELSET_H
#define VIVARIUM_FUZZ_CELSET_H
#include "anim/celset.h"

typedef struct fuzz_celset_tables {
    sim_sprite tiles[3];
    sim_cel_set sets[4];
    sim_cel cels[3];
    sim_anim_object objs[3];
    sim_anim_behaviour behs[2];
} fuzz_celset_tables;

/* The slot count is 1 + slots_byte % 12 (the input's first byte). beh (may be NULL) is behaviour
 * 1, which objects 0 and 1 run. The tables live in *t, which must outlive the engine. */
static inline sim_anim_config fuzz_celset_config(fuzz_celset_tables *t, uint8_t slots_byte,
                                                 const uint8_t *cs0, size_t n0,
                                                 const uint8_t *cs1, size_t n1,
                                                 const uint8_t *oam, size_t no,
                                                 sim_anim_behaviour beh)
{
    static const uint8_t px[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0 };
    *t = (fuzz_celset_tables){
        .tiles = { { 4, 4, px, 0 }, { 2, 8, px, -1 }, { 1, 1, px, 3 } },
        .sets = { { cs0, (uint16_t)n0 }, { cs1, (uint16_t)n1 }, { cs0, (uint16_t)n0 }, { NULL, 0 } },
        .cels = { { 0, oam, (uint16_t)no }, { 1, oam, (uint16_t)no }, { 2, NULL, 0 } },
        .objs = { { 0, 1, 0 }, { 1, 1, 1 }, { 2, 0, 2 } },
        .behs = { NULL, beh },
    };
    sim_anim_config cfg = sim_anim_config_default();
    cfg.nslots = 1 + slots_byte % 12;
    cfg.objects = t->objs;
    cfg.nobjects = 3;
    cfg.celsets = t->sets;
    cfg.ncelsets = 4;
    cfg.cels = t->cels;
    cfg.ncels = 3;
    cfg.tiles = t->tiles;
    cfg.ntiles = 3;
    cfg.behaviours = t->behs;
    cfg.nbehaviours = 2;
    return cfg;
}
#endif
