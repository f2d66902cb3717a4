/* log.c — one line per event on stderr, with a UTC timestamp and a level. (The server's error
 * codes are named by sim_strerror, with every other folder's: sim/errors.h.) */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "host.h"

void srv_log(const srv *s, int level, const char *fmt, ...)
{
    int min = s ? s->cfg.log_level : SRV_LOG_INFO;
    if (level < min) return;
    static const char *const names[] = { "debug", "info ", "warn ", "error" };
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char line[1024];
    int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, ts.tv_nsec / 1000000, names[level < 0 ? 0 : level > 3 ? 3 : level]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line) vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line, so lines from a crash or from other processes never interleave. */
    fprintf(stderr, "%s\n", line);
}
