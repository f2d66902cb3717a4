/* elements.c — the element table of the falling-sand world: each element's class, density,
 * spread, flammability and whether acid eats it; the names that inputs and desync reports use;
 * and what a freshly made cell of each element looks like. The rules that act on these live in
 * step.c. */
#include "sand_int.h"

const sand_el sim__sand_el[SAND_NELEMENTS] = {
    [SAND_EMPTY] = { "empty", C_EMPTY, 0, 0, 0, 0 },
    [SAND_WALL] = { "wall", C_STATIC, 255, 0, 0, 0 },
    [SAND_STONE] = { "stone", C_STATIC, 90, 0, 0, 1 },
    [SAND_SAND] = { "sand", C_POWDER, 70, 0, 0, 1 },
    [SAND_WATER] = { "water", C_LIQUID, 20, 5, 0, 1 },
    [SAND_OIL] = { "oil", C_LIQUID, 15, 4, 1, 1 },
    [SAND_ACID] = { "acid", C_LIQUID, 25, 3, 0, 0 },
    [SAND_LAVA] = { "lava", C_LIQUID, 40, 1, 0, 1 },
    /* Loose wood floats on water and oil; loose ice floats on water but sinks in oil. */
    [SAND_WOOD] = { "wood", C_STATIC, 12, 0, 1, 1 },
    [SAND_ICE] = { "ice", C_STATIC, 18, 0, 0, 1 },
    [SAND_FIRE] = { "fire", C_FIRE, 1, 0, 0, 0 },
    [SAND_SMOKE] = { "smoke", C_GAS, 3, 0, 0, 0 },
    [SAND_STEAM] = { "steam", C_GAS, 4, 0, 0, 0 },
    [SAND_GAS] = { "gas", C_GAS, 2, 0, 1, 0 },
};

const char *const sim__sand_element_names[SAND_NELEMENTS] = {
    "empty", "wall", "stone", "sand", "water", "oil", "acid", "lava",
    "wood", "ice", "fire", "smoke", "steam", "gas",
};

/* Fire, smoke and steam start with a lifetime drawn from r; gas with its full life. */
uint32_t sim__sand_fresh(int el, uint32_t r)
{
    switch (el) {
    case SAND_FIRE: return mkcell(el, FIRE_LIFE_MIN + (int)(r % FIRE_LIFE_SPAN), 0, 0, 0);
    case SAND_SMOKE: return mkcell(el, SMOKE_LIFE_MIN + (int)(r % SMOKE_LIFE_SPAN), 0, 0, 0);
    case SAND_STEAM: return mkcell(el, STEAM_LIFE_MIN + (int)(r % STEAM_LIFE_SPAN), 0, 0, 0);
    case SAND_GAS: return mkcell(el, GAS_LIFE, 0, 0, 0);
    default: return mkcell(el, 0, 0, 0, 0);
    }
}
