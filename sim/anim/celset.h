/* celset.h — the cel-set sprite engine (seed 002, "Sprite animation system"; issue 14 §1).
 *
 * A sprite animation is a slot with a cel set (its passive animation), a position, a behaviour
 * (a function of the world's, run right before the slot renders) and some modifiers (offsets,
 * base tile, duration offset). The world gives the data as read-only tables — object table, cel
 * sets, cels, tiles, behaviours — and the engine keeps the state: the slots, the allocation
 * counter and the global offset. State is plain data (no pointers), saved by sim_anim_save.
 *
 * Byte formats (docs/celset.md):
 *   cel set  a byte string with its length. Entries: (cel id < $FC, duration, flip flags) three
 *            bytes; $FD duration: wait (draws nothing for its duration); $FF end (repeat the
 *            previous cel forever); $FE restart (loop at once); $FC delete (one byte, no duration).
 *            An entry cut short by the end of the string, or an index past the last entry, reads
 *            as end: the parser never reads past the end of a cel set.
 *   OAM set  a byte string with its length: a count, then count OBJs of (x, y, tile, attributes),
 *            x and y signed 8-bit offsets from the origin, the OBJ's top-left corner.
 * Flip flags and OBJ attributes use the Game Boy's OAM bits: $20 X flip, $40 Y flip. */
#ifndef VIVARIUM_SIM_CELSET_H
#define VIVARIUM_SIM_CELSET_H

#include "sim_internal.h"

#define SIM_NUM_SPRITE_ANIM_STRUCTS 10   /* NUM_SPRITE_ANIM_STRUCTS: "10 in the base game" */
#define SIM_ANIM_MAX_SLOTS 255           /* a slot number fits the saved u8 count */
#define SIM_ANIM_CELSETS 256             /* "256 cel sets, and 256 behaviors" */
#define SIM_ANIM_BEHAVIOURS 256
#define SIM_ANIM_CELS 252                /* cel ids $00..$FB; $FC..$FF are the commands */
#define SIM_ANIM_TILES 256               /* tile ids are u8 sums */

enum {
    SIM_CEL_END = 0xFF,      /* oamend: repeats the previous cel ad infinitum */
    SIM_CEL_RESTART = 0xFE,  /* oamrestart: immediately restarts the animation */
    SIM_CEL_WAIT = 0xFD,     /* oamwait: displays nothing for its duration */
    SIM_CEL_DELETE = 0xFC    /* oamdelete: immediately deletes the object, no duration byte */
};
enum { SIM_CEL_XFLIP = 0x20, SIM_CEL_YFLIP = 0x40, SIM_CEL_FLIPS = 0x60 };

/* One animation slot: the seed's struct SpriteAnim, field for field. x, y and the offsets are
 * 16-bit signed here, not u8: the Game Boy screen is 160 wide, a Vivarium frame is 320. */
typedef struct sim_anim_slot {
    uint8_t index;           /* 0 = slot is empty; otherwise free for the behaviour */
    uint8_t celset_id;
    uint8_t behaviour_id;
    uint8_t base_tile_id;
    int16_t x, y;
    int16_t x_ofs, y_ofs;
    uint8_t duration;        /* cached: frames left after this one, set when a new cel starts */
    uint8_t duration_ofs;    /* added to every base duration, u8 wrap-around, unclamped */
    uint8_t cel;             /* entry index in the cel set; pre-incremented (starts at $FF) */
    uint8_t vars[5];         /* behaviour bytes; the first is commonly a jump-table index */
    /* What this tick rendered (drawn by sim_anim_draw): kept so that a slot its behaviour deleted
     * still renders this frame, and so that drawing is a pure function of the saved state. */
    uint8_t shown;           /* 1 = draw shown_cel this frame */
    uint8_t shown_cel, shown_flags, shown_base;
    int32_t shown_x, shown_y;
} sim_anim_slot;

typedef struct sim_anim_object {     /* SpriteAnimObjects: what an allocation copies */
    uint8_t celset_id, behaviour_id, base_tile_id;
} sim_anim_object;
typedef struct sim_cel_set {         /* SpriteAnimFrameData[id] */
    const uint8_t *bytes;
    uint16_t len;
} sim_cel_set;
typedef struct sim_cel {             /* SpriteAnimOAMData[id]: a base tile and an OAM set */
    uint8_t base_tile;
    const uint8_t *oam;
    uint16_t oam_len;
} sim_cel;

typedef struct sim_anim sim_anim;
/* A behaviour: called with the slot right before it renders. It may change any field (shown the
 * same frame), delete the slot (sim_anim_delete; it still renders this frame), reinit it, or
 * allocate others. It must not keep pointers into the state. */
typedef void (*sim_anim_behaviour)(void *ctx, sim_anim *an, sim_anim_slot *s);

typedef struct sim_anim_config {
    int nslots;                              /* default SIM_NUM_SPRITE_ANIM_STRUCTS, 1..255 */
    const sim_anim_object *objects; int nobjects;       /* ≤ 256 */
    const sim_cel_set *celsets; int ncelsets;           /* ≤ 256; a missing one draws nothing */
    const sim_cel *cels; int ncels;                     /* ≤ 252; a missing one draws nothing */
    const sim_sprite *tiles; int ntiles;                /* ≤ 256; a missing tile draws nothing */
    const sim_anim_behaviour *behaviours; int nbehaviours;  /* ≤ 256; NULL or missing: none */
} sim_anim_config;

struct sim_anim {
    sim_anim_config cfg;                     /* the world's tables (not saved) */
    sim_anim_slot *slot;                     /* cfg.nslots, allocated at init */
    /* saved state */
    uint8_t count;                           /* wSpriteAnimCount: 1..255, wraps to 1, never 0 */
    int16_t global_x, global_y;              /* wGlobalAnimXOffset / wGlobalAnimYOffset */
};

sim_anim_config sim_anim_config_default(void);
/* Allocate the slots (all empty). 0, SIM_EINVAL (a count out of range) or SIM_ENOMEM. */
int sim_anim_init(sim_anim *an, const sim_anim_config *cfg);
void sim_anim_free(sim_anim *an);

/* InitSpriteAnimStruct: take the first empty slot, give it the next index, copy cel set,
 * behaviour and base tile from objects[object], set x and y, zero the later fields (cel = $FF,
 * to be pre-incremented). Returns the slot number (≥ 0) for touch-ups, SIM_EFULL when every
 * slot is in use (nothing changes), or SIM_EINVAL for an object the table lacks. */
int sim_anim_alloc(sim_anim *an, int object, int x, int y);
void sim_anim_delete(sim_anim *an, sim_anim_slot *s);          /* DeinitializeSprite: index 0 */
/* ReinitSpriteAnimFrame: restart cel set `celset` from its first entry; behaviour kept. */
void sim_anim_reinit(sim_anim *an, sim_anim_slot *s, uint8_t celset);

/* PlaySpriteAnimations: every active slot, in slot order, runs its behaviour and then advances
 * its cel set and records what it renders. Allocates nothing. */
void sim_anim_tick(sim_anim *an, void *ctx);
/* Draw what the last tick rendered, slot 0 first (a later slot paints over an earlier one). */
void sim_anim_draw(const sim_anim *an, sim_frame *f);

size_t sim_anim_save_max(const sim_anim *an);
void sim_anim_save(const sim_anim *an, sim_writer *wr);
/* Read a state saved by sim_anim_save with the same slot count. 0 or a SIM_E… code (SIM_ETRUNC,
 * SIM_ECORRUPT); on failure `an` is left untouched (the bytes are checked before any is kept). */
int sim_anim_load(sim_anim *an, sim_reader *rd);

#endif
