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
/* viv replay drop and compact (clients/viv_retain.c), argv[0] the subcommand's name */
int cli_replay_drop(int argc, char **argv);
int cli_replay_compact(int argc, char **argv);

/* The progress bar of the long subcommands (clients/cli_progress.c): on stderr, only on a
 * terminal (and not with quiet), at most ~10 redraws a second; end clears its line. cb is the
 * progress callback of replay/'s options, its ud a cli_progress. */
typedef struct cli_progress {
    const char *what;
    const char *unit;                  /* what done/total count: "ticks" (init's), "rows" */
    int tty;
    double t0, last;
    int drawn;
} cli_progress;
void cli_progress_init(cli_progress *p, const char *what, int quiet);
void cli_progress_cb(void *ud, uint64_t done, uint64_t total);
void cli_progress_end(cli_progress *p);
double cli_now_s(void);                /* CLOCK_MONOTONIC, in seconds */

/* An inputs file, parsed whole before tick 0: inputs sorted by tick (file order within a tick,
 * seq = line number). Returns 0, or -1 after printing `file:line: reason` to stderr. */
typedef struct cli_inputs {
    sim_input *v;
    size_t n, cap;
} cli_inputs;
int cli_inputs_load(const char *path, const sim_world *w, cli_inputs *out);
void cli_inputs_free(cli_inputs *in);

int cli_cycle_main(int argc, char **argv);  /* clients/viv_cycle.c */

/* `viv replay export FILE --html OUT.html` (clients/viv_html.c): session `session` of f as one HTML
 * file that replays and verifies itself in a browser from disk. web_dir: the page's folder (NULL:
 * clients/web of the source tree viv was built in); wasm_path: the sim module (NULL: vivarium.wasm
 * beside viv). 0 written (res filled; a damaged session is written up to its damage, which the
 * file reports, and res->damaged says so), or -1 with a sentence in err and nothing written. */
typedef struct cli_html_result {
    uint64_t first, last, ticks;       /* the session's tick range; ticks the file replays */
    size_t file_bytes, wasm_bytes, stream_bytes, module_bytes;   /* the last three compressed */
    int damaged;
    char damage[640];
} cli_html_result;
struct rpl_file;
int cli_replay_html(struct rpl_file *f, int64_t session, const char *out_path, const char *web_dir,
                    const char *wasm_path, cli_html_result *res, char *err, size_t errlen);

/* One world event as `viv sim --events` prints it (without the newline):
 * `event <tick> <name> key=value ...`, numbers in decimal, strings as the kind wrote them.
 * Returns the length it wanted (snprintf's rule). */
int cli_event_line(const sim_event *e, char *out, size_t cap);

#endif
