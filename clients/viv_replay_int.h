/* viv_replay_int.h — what `viv replay`'s subcommands share (viv_replay.c, viv_replay_tools.c):
 * their parsed options and the steps every one takes. Not a public header. */
#ifndef VIV_REPLAY_INT_H
#define VIV_REPLAY_INT_H
#include <stdint.h>
#include "opt.h"
#include "read.h"

/* Parsed options of any subcommand. */
typedef struct opts {
    const char *file;
    int64_t session;                   /* 0: not given */
    int all, sync_test, quiet;
    uint64_t from, to, every;
    long threads, scale, mmpx;
    const char *gif, *webp, *png_dir, *view;
    const char *html, *web, *wasm;     /* export --html, and where its parts come from */
    const char *report_dir;            /* verify --report DIR */
    const char *junit;                 /* verify --junit FILE */
    int json;                          /* verify --json: the verdicts on stdout */
    const char *out;                   /* fork -o OUT */
    int replayed;                      /* hashes --replayed */
    int no_backup;                     /* upgrade --no-backup */
    uint64_t tick;                     /* fork --tick T */
    int has_tick;
} opts;

/* The rows that several subcommands share. */
#define ROW_SESSION(o) \
    OPT_CALL("--session", "N", rp_set_session, &(o)->session, "the session (default: the only one in the file)")
#define ROW_QUIET(o) \
    OPT_FLAG("--quiet", &(o)->quiet, "no progress bar (there is none when stderr is not a terminal)")

/* FILE, the one operand of the subcommands. */
int rp_set_file(const opt_prog *p, const char *a);
int rp_set_session(const opt_prog *p, const opt *o, const char *v);
/* A subcommand's command line into o. 0 parsed, OPT_DONE --help shown, OPT_BAD bad usage. */
int rp_parse(const opt_prog *p, int argc, char **argv, opts *o);
/* FILE opened to read, or NULL after a message naming cmd. */
rpl_file *rp_open_file(const char *cmd, const char *path);
/* o->session, or the file's only one: 0, or non-zero after a message. */
int rp_pick_session(const char *cmd, rpl_file *f, opts *o);

/* viv_replay_tools.c */
int cli_replay_hashes(int argc, char **argv);
int cli_replay_upgrade(int argc, char **argv);
#endif
