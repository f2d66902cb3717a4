/* log.c — one line per event on stderr, with a UTC timestamp and a level; and the names of the
 * server's error codes. */
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

const char *srv_strerror(int err)
{
    switch (err) {
    case SRV_OK: return "success";
    case SRV_ENOMEM: return "out of memory";
    case SRV_ELIMIT: return "the server already hosts the most worlds it may";
    case SRV_EKIND: return "unknown world kind";
    case SRV_EPARAM: return "bad params text";
    case SRV_EFILE: return "a file the world is built from is missing, unreadable or invalid";
    case SRV_EWORLD: return "the world could not be created";
    case SRV_ETOOMANY: return "more inputs for one tick than the log can take; the tick is not logged";
    case SRV_ELOG: return "the replay log cannot be opened or written";
    case SRV_ENOTREC: return "the world is live, not a recording";
    case SRV_EPLAY: return "the recording cannot do that now";
    case SRV_EINVAL: return "bad argument";
    case SRV_EFULL: return "the world's input queue for its next tick is full";
    case SRV_EDUP: return "an input with the same (client, seq) is already queued";
    case SRV_EINPUT: return "the world refuses the input";
    default: return "unknown server error";
    }
}
