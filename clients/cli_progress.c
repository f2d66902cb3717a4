/* cli_progress.c — the progress bar of the long viv subcommands (replay verify, export, collect,
 * fork, compact): on stderr, only on a terminal, at most ~10 redraws a second (cli.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

double cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, const char *what, int quiet)
{
    memset(p, 0, sizeof *p);
    p->what = what;
    p->unit = "ticks";
    p->tty = !quiet && isatty(STDERR_FILENO);
    p->t0 = cli_now_s();
}

void cli_progress_cb(void *ud, uint64_t done, uint64_t total)
{
    cli_progress *p = ud;
    if (!p->tty) return;
    double t = cli_now_s();
    if (p->drawn && t - p->last < 0.1 && done < total) return;
    p->last = t;
    p->drawn = 1;
    double frac = total ? (double)done / (double)total : 1.0;
    if (frac > 1) frac = 1;
    double el = t - p->t0, rate = el > 0 ? (double)done / el : 0;
    char bar[31];
    int fill = (int)(frac * 30);
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    char eta[32] = "--:--";
    if (rate > 0 && done < total) {
        long s = (long)((double)(total - done) / rate + 0.5);
        snprintf(eta, sizeof eta, "%ld:%02ld", s / 60, s % 60);
    } else if (done >= total) {
        snprintf(eta, sizeof eta, "0:00");
    }
    fprintf(stderr, "\r%s [%s] %3d%%  %llu/%llu %s  %.0f %s/s  ETA %s\033[K", p->what, bar,
            (int)(frac * 100), (unsigned long long)done, (unsigned long long)total, p->unit, rate,
            p->unit, eta);
    fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
    if (p->tty && p->drawn) fprintf(stderr, "\r\033[K");
    p->drawn = 0;
}
