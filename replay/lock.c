/* lock.c — whether a running vivd records into a replay file. vivd holds an exclusive flock on
 * FILE.lock while it runs (server/record.c, which takes it); a writer beside it that would change
 * what it owns (a second recorder, a session it records, the whole file) asks here first. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "replay.h"

int rpl_recorded_by(const char *path, char *pid, size_t pidlen)
{
    char lock[4200];
    if (pidlen) pid[0] = '\0';
    snprintf(lock, sizeof lock, "%s.lock", path);
    int fd = open(lock, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    /* A shared lock is refused only while a vivd holds its exclusive one: flock dies with its
     * process, so a lock file left by a killed vivd is free. */
    int busy = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    char buf[32] = "";
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    close(fd);                         /* drops the shared lock, if it was taken */
    if (busy && pidlen) snprintf(pid, pidlen, "%s", buf);
    return busy;
}
