/* kinds.h — the one list of world kinds, in registry order (sim_kind_at(i) is the i-th line).
 *
 * An X-macro: a file that needs the list defines SIM_KIND(name), includes this file and gets one
 * expansion per kind. sim_internal.h declares `extern const sim_kind sim__kind_<name>;` from it and
 * world.c builds the registry table from it; everything else (viv sim --list-kinds, viv fuzz,
 * tests/golden.sh, tests/cross.sh, the Check suite "kinds") walks the registry, so a kind added
 * here is picked up by every determinism check. Each kind defines `const sim_kind
 * sim__kind_<name>` in sim/<name>/ and has golden files tests/golden/<name>.{args,inputs,chain}
 * (docs/ADDING-A-WORLD.md).
 *
 * Append new kinds at the end: the order is the order of `viv sim --list-kinds` and of the
 * fuzzer's kind choice (a fuzz seed picks a kind by its index), while saved states and replay
 * files name a kind by its id (sim_kind.id), never by its place here.
 *
 * No include guard: it is meant to be included more than once. */
#ifndef SIM_KIND
#error "define SIM_KIND(name) before including kinds.h"
#endif
SIM_KIND(sand)
SIM_KIND(terrarium)
SIM_KIND(cycle)
SIM_KIND(merge)
SIM_KIND(garden)
