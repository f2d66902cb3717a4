/* paths.h — where vivd and viv find the files their options default to (the page's folder, the
 * sim module): beside the running binary, in an installed tree, or in the source tree the binary
 * was built in. Each is read from /proc/self/exe, so that it works from any working directory,
 * and for an install, with any PREFIX or DESTDIR (make install: PREFIX/bin beside
 * PREFIX/share/vivarium).
 *
 * Layering: opt/ is libc alone (tests/layers.sh). */
#ifndef VIVARIUM_OPT_PATHS_H
#define VIVARIUM_OPT_PATHS_H
#include <stddef.h>

/* The folder of the running binary into out (no trailing '/'). 0, or -1 when it cannot be read
 * (no /proc) or does not fit. */
int opt_exe_dir(char *out, size_t outlen);

/* NAME of an installed tree: ../share/vivarium/NAME from the binary's folder, resolved
 * (realpath). 1 with out filled in when it exists, else 0. A source tree has no share/vivarium
 * beside its bin/, so a binary run from one never finds anything here. */
int opt_installed_path(const char *name, char *out, size_t outlen);

/* REL (a relative path) in the nearest of the binary's folder and its ancestors (up to 6 levels)
 * where it exists: 1 with out = "<that folder>/REL", else 0. */
int opt_find_up(const char *rel, char *out, size_t outlen);

/* A file the program ships (make builds it beside the binary; make install puts it in
 * PREFIX/share/vivarium): the installed one when there is one, else NAME beside the binary,
 * else NAME. Returns out. */
const char *opt_shipped_file(const char *name, char *out, size_t outlen);

#endif
