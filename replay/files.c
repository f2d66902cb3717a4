/* files.c — reading a whole file the user named (replay.h): the sim_file_reader of viv and of vivd's
 * own command line. Only stdio (files.h says why it stands apart). */
#include "files.h"          /* RPL_E… codes come with sim.h: nothing of replay/ is linked */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rpl_read_file(void *ud, const char *path, uint8_t **data, size_t *len, char *err,
                  size_t errlen)
{
    (void)ud;
    *data = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return RPL_EREAD;
    }
    size_t cap = 64 * 1024, n = 0;
    int code = RPL_EREAD;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= RPL_FILE_MAX) {
                snprintf(err, errlen, "%s is larger than %u MB", path, RPL_FILE_MAX >> 20);
                goto fail;
            }
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, fp);
        n += r;
        if (r == 0) {
            if (ferror(fp)) {
                snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
                goto fail;
            }
            fclose(fp);
            *data = buf;
            *len = n;
            return 0;
        }
    }
    snprintf(err, errlen, "out of memory reading %s", path);
    code = RPL_ENOMEM;
fail:
    free(buf);
    fclose(fp);
    return code;
}

const sim_file_reader rpl_files = { rpl_read_file, NULL };
