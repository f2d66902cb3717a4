/* import.c — a scene from bytes of either format the cycle world reads: IFF ILBM/PBM (ilbm.c) or
 * a Canvas Cycle scene in JSON or JavaScript (ccjson.c), told apart by the first bytes. Depends on
 * the two importers and the scene type only. */
#include "scene_int.h"

/* Past spaces and JavaScript comments from i; len if a block comment does not close. */
static size_t skip_space(const uint8_t *buf, size_t len, size_t i)
{
    while (i < len) {
        if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\f' ||
            buf[i] == '\v') {
            i++;
        } else if (buf[i] == '/' && i + 1 < len && buf[i + 1] == '/') {
            while (i < len && buf[i] != '\n') i++;
        } else if (buf[i] == '/' && i + 1 < len && buf[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(buf[i] == '*' && buf[i + 1] == '/'); i++) {}
            i = i + 1 < len ? i + 2 : len;
        } else {
            break;
        }
    }
    return i;
}

int sim_cycle_from_bytes(const uint8_t *buf, size_t len, sim_cycle_scene *out, char *notes,
                         size_t noteslen, char *err, size_t errlen)
{
    if (buf && len >= 4 && memcmp(buf, "FORM", 4) == 0)
        return sim_cycle_from_ilbm(buf, len, out, notes, noteslen, err, errlen);
    /* A Canvas Cycle scene: an object, or names (a.b, var x) then the '(' of a call or the '=' of
     * an assignment around one — after a UTF-8 BOM, spaces and comments. */
    size_t i = buf && len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    i = buf ? skip_space(buf, len, i) : 0;
    size_t k = i;
    while (buf && k < len && (buf[k] == '_' || buf[k] == '$' || buf[k] == '.' || buf[k] == ' ' ||
                              buf[k] == '\t' || (buf[k] >= 'A' && buf[k] <= 'Z') ||
                              (buf[k] >= 'a' && buf[k] <= 'z') || (k > i && buf[k] >= '0' && buf[k] <= '9')))
        k++;
    if (buf && k < len && (buf[k] == '{' ? k == i : (buf[k] == '(' || buf[k] == '=') && k > i))
        return sim_cycle_from_ccjson(buf, len, out, notes, noteslen, err, errlen);
    memset(out, 0, sizeof *out);
    sim__fmt(err, errlen, "neither an IFF ILBM/PBM file (it does not start with FORM) nor a Canvas "
             "Cycle scene (an object {…}, bare, in a call name({…}) or in an assignment)");
    return SIM_EFILE;
}
