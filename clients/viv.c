/* viv.c — the Vivarium command-line tool: one binary, one subcommand per job. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

static const struct {
    const char *name;
    int (*main)(int, char **);
    const char *help;
} commands[] = {
    { "sim", cli_sim_main, "run a world headless and print its hash chain" },
    { "fuzz", cli_fuzz_main, "determinism fuzzing: random sessions run three ways, compared" },
#ifndef VIV_MINIMAL
    { "view", cli_view_main, "watch a world in the terminal (ANSI truecolor half-blocks)" },
    { "bot", cli_bot_main, "load generator: many viewers, players and slow clients" },
    { "replay", cli_replay_main, "replay files: list, info, verify (bit-exact), export GIF/WebP/PNG" },
    { "cycle", cli_cycle_main, "palette-cycling scenes: convert ILBM <-> Canvas Cycle JSON, PNG" },
#endif
};

static void usage(FILE *out)
{
    fprintf(out, "usage: viv <command> [options]    (viv <command> --help for details)\n\n"
                 "Vivarium %s: deterministic pixel-art worlds.\n\ncommands:\n", SIM_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(out, "\nworld kinds:");
    for (int i = 0; i < sim_kind_count(); i++) fprintf(out, " %s", sim_kind_at(i)->name);
    fprintf(out, "\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("viv %s\n", SIM_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].main(argc - 1, argv + 1);
    fprintf(stderr, "viv: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
