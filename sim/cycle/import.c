/* import.c — a scene from bytes of either format the cycle world reads: IFF ILBM/PBM (ilbm.c) or
 * Canvas Cycle JSON (ccjson.c), told apart by the first bytes. Depends on the two importers and the
 * scene type only. */
#include "scene_int.h"

int sim_cycle_from_bytes(const uint8_t *buf, size_t len, sim_cycle_scene *out, char *notes,
                         size_t noteslen, char *err, size_t errlen)
{
    if (buf && len >= 4 && memcmp(buf, "FORM", 4) == 0)
        return sim_cycle_from_ilbm(buf, len, out, notes, noteslen, err, errlen);
    size_t i = 0;
    while (buf && i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r' ||
                              buf[i] == 0xEF || buf[i] == 0xBB || buf[i] == 0xBF))
        i++;                                                     /* spaces, a UTF-8 BOM */
    /* JSON: an object, or a JSONP call `name(` around one. */
    size_t k = i;
    while (buf && k < len && (buf[k] == '_' || buf[k] == '$' || buf[k] == '.' ||
                              (buf[k] >= 'A' && buf[k] <= 'Z') || (buf[k] >= 'a' && buf[k] <= 'z') ||
                              (k > i && buf[k] >= '0' && buf[k] <= '9')))
        k++;
    if (buf && k < len && (buf[k] == '{' ? k == i : buf[k] == '(' && k > i))
        return sim_cycle_from_ccjson(buf + i, len - i, out, notes, noteslen, err, errlen);
    memset(out, 0, sizeof *out);
    sim__fmt(err, errlen, "neither an IFF ILBM/PBM file (it does not start with FORM) nor a Canvas "
             "Cycle JSON scene ({…})");
    return SIM_EFILE;
}
