/* script.h — the golden-chain helpers the world suites share: an inputs file read into a script
 * (the format `viv sim --inputs` reads), fed to a world tick by tick, and a run checked against a
 * committed chain of `tick state-hash frame-hash` lines (written by tests/golden.sh). */
#ifndef VIV_TEST_SCRIPT_H
#define VIV_TEST_SCRIPT_H
#include <stddef.h>
#include "sim.h"

typedef struct script {
    sim_input *v;
    size_t n;
} script;

/* Read PATH (relative to tests/) as inputs for KIND; a line the parser refuses fails the test
 * with `path:line: reason`. Each input's seq is its line number. */
script script_load(const char *kind, const char *path);
void script_free(script *s);

/* Queue every input of s for w's next tick, from *next on; each must be accepted. */
void script_feed(sim_world *w, const script *s, size_t *next);

/* Step w for `ticks` ticks, fed by s, and every `every` ticks compare its state hash and view-0
 * frame hash with the next line of CHAIN. Fails the test on the first difference, on a short
 * chain, or if an input of s was never applied; returns the lines compared. */
int script_golden(sim_world *w, const script *s, const char *chain, int ticks, int every);

#endif
