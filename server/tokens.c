/* tokens.c — vivd's admin and player tokens, kept across restarts in a file beside the replay
 * file (FILE.tokens, mode 0600), so that a viewer's token still works after a restart.
 *
 * The file is text, one role a line, `admin TOKEN` and `player TOKEN`; blank lines and lines
 * starting with '#' are ignored. For each role: a token given by a flag or the environment is
 * used as it is (and the file's entry for that role is left alone); else the file's token; else
 * (no file, no entry, or --new-tokens) a new random one, which is written to the file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host.h"

#define TOKEN_MAX 79                     /* srv_config's buffers hold 80 bytes */

static int random_token(char *out, size_t cap)
{
    uint8_t b[16];
    if (cap < 2 * sizeof b + 1 || getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) return -1;
    for (size_t i = 0; i < sizeof b; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

/* A token is 1..79 printable ASCII characters, no space (it is a word on a line of the file). */
static int token_ok(const char *t)
{
    size_t n = strlen(t);
    if (n == 0 || n > TOKEN_MAX) return 0;
    for (size_t i = 0; i < n; i++)
        if (t[i] <= ' ' || t[i] > '~') return 0;
    return 1;
}

/* Read the file's tokens into file[SRV_TOKEN_ADMIN / _PLAYER] ("" where it has none). 0, 1 if
 * there is no file, or -1 with err. A file readable by others is made 0600, with a warning. */
static int read_file(const srv *s, const char *path, char file[2][80], char *err, size_t errlen)
{
    file[0][0] = file[1][0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT) return 1;
        snprintf(err, errlen, "cannot read the token file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "the token file %s is not a regular file", path);
        close(fd);
        return -1;
    }
    if (st.st_mode & 077) {
        if (fchmod(fd, 0600) == 0)
            srv_log(s, SRV_LOG_WARN, "the token file %s was readable by others (mode %03o); it is "
                    "0600 now: consider --new-tokens", path, (unsigned)(st.st_mode & 0777));
    }
    FILE *fp = fdopen(fd, "r");
    if (!fp) {
        close(fd);
        snprintf(err, errlen, "cannot read the token file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[256];
    int lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#') continue;
        char role[16], tok[128];
        int role_i = -1;
        if (sscanf(line, "%15s %127s", role, tok) == 2) {
            if (strcmp(role, "admin") == 0) role_i = SRV_TOKEN_ADMIN;
            else if (strcmp(role, "player") == 0) role_i = SRV_TOKEN_PLAYER;
        }
        if (role_i < 0 || !token_ok(tok)) {
            snprintf(err, errlen, "the token file %s, line %d, is not `admin TOKEN` or `player TOKEN`: "
                     "fix it, or remove it (or start with --new-tokens) for new tokens", path, lineno);
            fclose(fp);
            return -1;
        }
        snprintf(file[role_i], 80, "%s", tok);
    }
    fclose(fp);
    return 0;
}

/* Write the file afresh (a temporary name, mode 0600 from its creation, then a rename). */
static int write_file(const char *path, char file[2][80], char *err, size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp) {
        snprintf(err, errlen, "cannot write the token file %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    fprintf(fp, "# vivd's tokens for %.*s (vivd --help: --new-tokens makes new ones)\n",
            (int)(strlen(path) - strlen(".tokens")), path);
    if (file[SRV_TOKEN_ADMIN][0]) fprintf(fp, "admin %s\n", file[SRV_TOKEN_ADMIN]);
    if (file[SRV_TOKEN_PLAYER][0]) fprintf(fp, "player %s\n", file[SRV_TOKEN_PLAYER]);
    int bad = fflush(fp) != 0 || fsync(fileno(fp)) != 0;
    bad |= fclose(fp) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write the token file %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int srv_tokens_setup(srv *s, const char *path, const char *given[2], int rotate, int origin[2],
                     char *err, size_t errlen)
{
    char file[2][80];
    char *out[2] = { s->cfg.admin_token, s->cfg.player_token };
    int have = 1, dirty = 0;
    if (path) {
        have = read_file(s, path, file, err, errlen);
        if (have < 0) return SRV_EINVAL;
    } else {
        file[0][0] = file[1][0] = '\0';
    }
    for (int r = 0; r < 2; r++) {
        if (given[r] && given[r][0]) {
            if (!token_ok(given[r])) {
                snprintf(err, errlen, "the %s token must be 1 to %d printable characters without "
                         "spaces", r == SRV_TOKEN_ADMIN ? "admin" : "player", TOKEN_MAX);
                return SRV_EINVAL;
            }
            snprintf(out[r], 80, "%s", given[r]);
            origin[r] = SRV_TOKEN_GIVEN;
        } else if (file[r][0] && !rotate) {
            memcpy(out[r], file[r], 80);      /* both 80 bytes, NUL-terminated by read_file */
            origin[r] = SRV_TOKEN_FILE;
        } else {
            if (random_token(out[r], 80) != 0) {
                snprintf(err, errlen, "cannot generate a random token: %s", strerror(errno));
                return SRV_EINVAL;
            }
            origin[r] = SRV_TOKEN_NEW;
            snprintf(file[r], 80, "%s", out[r]);
            dirty = 1;
        }
    }
    if (strcmp(out[0], out[1]) == 0) {
        snprintf(err, errlen, "the admin and player tokens must differ");
        return SRV_EINVAL;
    }
    if (path && dirty && write_file(path, file, err, errlen) != 0) return SRV_EINVAL;
    return 0;
}
