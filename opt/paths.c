/* paths.c — where an option's default file is: installed, beside the binary, or in the source
 * tree (paths.h). */
#include "paths.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

int opt_exe_dir(char *out, size_t outlen)
{
    if (outlen < 2) return -1;
    ssize_t n = readlink("/proc/self/exe", out, outlen - 1);
    if (n <= 0 || (size_t)n >= outlen - 1) return -1;
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash) return -1;
    *slash = '\0';
    return 0;
}

/* 1 with out = "dir/rel" when that exists and fits. */
static int exists_in(const char *dir, const char *rel, char *out, size_t outlen)
{
    struct stat st;
    int n = snprintf(out, outlen, "%s/%s", dir, rel);
    return n > 0 && (size_t)n < outlen && stat(out, &st) == 0;
}

int opt_installed_path(const char *name, char *out, size_t outlen)
{
    char dir[PATH_MAX], probe[PATH_MAX], real[PATH_MAX];
    if (opt_exe_dir(dir, sizeof dir) != 0 || strlen(dir) + sizeof "/../share/vivarium" > sizeof dir)
        return 0;
    strcat(dir, "/../share/vivarium");
    if (!exists_in(dir, name, probe, sizeof probe) || !realpath(probe, real) || strlen(real) >= outlen)
        return 0;
    memcpy(out, real, strlen(real) + 1);
    return 1;
}

int opt_find_up(const char *rel, char *out, size_t outlen)
{
    char dir[PATH_MAX];
    if (opt_exe_dir(dir, sizeof dir) != 0) return 0;
    for (int up = 0; up < 6 && dir[0]; up++) {
        if (exists_in(dir, rel, out, outlen)) return 1;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) break;
        *slash = '\0';
    }
    return 0;
}

const char *opt_shipped_file(const char *name, char *out, size_t outlen)
{
    char dir[PATH_MAX];
    if (opt_installed_path(name, out, outlen)) return out;
    int n = opt_exe_dir(dir, sizeof dir) == 0 ? snprintf(out, outlen, "%s/%s", dir, name) : -1;
    if (n < 0 || (size_t)n >= outlen) snprintf(out, outlen, "%s", name);
    return out;
}
