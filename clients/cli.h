/* cli.h — shared by the `viv` subcommands. */
#ifndef VIVARIUM_CLI_H
#define VIVARIUM_CLI_H
#include <stddef.h>
#include <stdint.h>
#include "sim.h"

int cli_sim_main(int argc, char **argv);
int cli_fuzz_main(int argc, char **argv);   /* clients/viv_fuzz.c */
int cli_view_main(int argc, char **argv);   /* clients/view.c */
int cli_bot_main(int argc, char **argv);    /* clients/bot.c */
int cli_replay_main(int argc, char **argv); /* clients/viv_replay.c */

/* Strict number parsing for flags: 0 on success, -1 otherwise, with a message on stderr that
 * starts as the command's other errors do: cmd "sim" gives `viv sim: --ticks needs …`. */
int cli_parse_u64(const char *cmd, const char *flag, const char *s, uint64_t *out);
int cli_parse_int(const char *cmd, const char *flag, const char *s, long min, long max, long *out);

/* An inputs file, parsed whole before tick 0: inputs sorted by tick (file order within a tick,
 * seq = line number). Returns 0, or -1 after printing `file:line: reason` to stderr. */
typedef struct cli_inputs {
    sim_input *v;
    size_t n, cap;
} cli_inputs;
int cli_inputs_load(const char *path, const sim_world *w, cli_inputs *out);
void cli_inputs_free(cli_inputs *in);

int cli_cycle_main(int argc, char **argv);  /* clients/viv_cycle.c */

#endif
