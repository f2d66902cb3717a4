/* verify_int.h — what replay/verify.c and replay/verify_report.c share (not a public header):
 * the failure a span reports, the phase hashes of the divergent step, and the helpers both use. */
#ifndef VIV_VERIFY_INT_H
#define VIV_VERIFY_INT_H
#include <stddef.h>
#include <stdint.h>
#include "read.h"

#define DIFF_REACH 36000               /* ticks we replay past a divergence for a diff (10 min at 60 Hz) */
#define FAIL_MSG 4096

enum { F_NONE, F_HASH, F_SYNC, F_ERROR };

typedef struct failure {
    size_t span;                       /* index in the plan; SIZE_MAX: none */
    int kind;
    int code;                          /* F_ERROR: the RPL_E… code of msg */
    uint64_t tick;
    uint64_t want_sh, want_fh, got_sh, got_fh;
    int want_bits;                     /* the recorded hashes' bits (rpl_tick_row.bits; 64 whole) */
    char msg[FAIL_MSG];                /* F_ERROR: the sentence; F_SYNC: the diff */
} failure;
#define PHASES_MAX 64

typedef struct phase_log {
    rpl_phase v[PHASES_MAX];
    size_t n;
} phase_log;

/* The step that produced tick t, phase by phase: replayed here (from the replayed state at t - 1,
 * which matched the recording) and as the file recorded it, if it holds phase hashes. */
typedef struct phase_cmp {
    int ok;                            /* mine holds the replayed phases */
    char why[512];                     /* !ok: why not */
    phase_log mine;
    rpl_phase *rec;                    /* recorded, nrec of them (0: the file has none) */
    size_t nrec;
    long first;                        /* the first index that differs (hash or name), or -1 */
    uint8_t *before;                   /* the saved state at t - 1, blen bytes */
    size_t blen;
} phase_cmp;

/* verify.c */
void vrf_say(char *out, size_t cap, size_t *len, const char *fmt, ...);
sim_world *vrf_replay_to(rpl_file *f, const rpl_session *s, uint64_t start, uint64_t target,
                         char *err, size_t errlen);
uint8_t *vrf_save_alloc(const sim_world *w, size_t *len);
const rpl_gap *vrf_gap_between(const rpl_gap *g, size_t n, uint64_t a, uint64_t b);

/* verify_report.c: the phases of the divergent step, and the desync bundle (--report DIR) */
void vrf_phases_compare(rpl_file *f, const rpl_session *s, uint64_t start, uint64_t t,
                        phase_cmp *pc);
void vrf_phase_cmp_free(phase_cmp *pc);
void vrf_say_phases(const phase_cmp *pc, uint64_t t, char *out, size_t cap, size_t *len);
void vrf_bundle_write(rpl_file *f, const rpl_session *s, const sim_kind *k, uint64_t start,
                      const rpl_verify_opts *o, const failure *fl, const phase_cmp *pc,
                      rpl_verify_result *res);

#endif
