/* view_welcome.c — what the server's welcome says about each world, for `viv view`: id, kind,
 * size and rate (net.h's cli_world_read), views, input kinds with their ranges (cli_inputs_read)
 * and the value names of their enums; then the world mode that fits it (view_modes.c). */
#include <stdlib.h>
#include <string.h>
#include "view.h"

static int parse_names(const wire_val *v, vw_world *w)
{
    if (v->type != WIRE_MAP) return -1;
    const uint8_t *it = v->p, *end = v->raw + v->rawlen;
    for (uint32_t i = 0; i < v->n; i++) {
        wire_val k, map, vk, vv;
        if (wire_next(&it, end, &k) || wire_next(&it, end, &map) || map.type != WIRE_MAP)
            return -1;
        if (w->nenums == VW_MAX_ENUMS) continue;
        vw_enum *e = &w->enums[w->nenums];
        if (cli_val_str(&k, e->name, sizeof e->name)) return -1;
        const uint8_t *mi = map.p, *me = map.raw + map.rawlen;
        for (uint32_t j = 0; j < map.n; j++) {
            int64_t id;
            if (wire_next(&mi, me, &vk) || wire_next(&mi, me, &vv) || vv.type != WIRE_UINT ||
                cli_val_i64(&vv, &id) || id > INT32_MAX)
                return -1;
            if (e->n == VW_MAX_VALUES) continue;
            if (cli_val_str(&vk, e->value[e->n], sizeof e->value[e->n])) return -1;
            e->id[e->n++] = (int)id;
        }
        w->nenums++;
    }
    return 0;
}

const char *vw_enum_name(const vw_enum *e, int id)
{
    for (int i = 0; i < e->n; i++)
        if (e->id[i] == id) return e->value[i];
    return NULL;
}

/* A "play" map (the welcome's world entry, or a "playing" reply) into w. 0, or -1. */
int vw_play_read(const wire_val *v, vw_world *w)
{
    wire_msg pm;
    uint64_t start, end, speed;
    int paused;
    if (v->type != WIRE_MAP || wire_msg_decode(v->raw, v->rawlen, &pm) ||
        wire_get_u64(&pm, "start", &start) || wire_get_u64(&pm, "end", &end) || end < start)
        return -1;
    w->is_play = 1;
    w->play_start = start;
    w->play_end = end;
    if (wire_get_bool(&pm, "paused", &paused) == 0) w->play_paused = paused;
    if (wire_get_u64(&pm, "speed", &speed) == 0 && speed <= 100000) w->play_speed = (int)speed;
    if (!w->play_speed) w->play_speed = 100;
    return 0;
}

/* One entry of the welcome's "worlds". 0, or -1 when it is not what the protocol describes. */
static int parse_world(const wire_val *v, vw_world *w)
{
    memset(w, 0, sizeof *w);
    cli_world_entry e;
    if (cli_world_read(v, &e) || !e.kind[0] || e.w > 4096 || e.h > 4096) return -1;
    w->id = e.id;
    memcpy(w->kind, e.kind, sizeof w->kind);
    w->w = (int)e.w;
    w->h = (int)e.h;
    w->hz = e.has_hz && e.hz >= 1 && e.hz <= 1000 ? (int)e.hz : 60;
    const wire_val *views = wire_msg_get(&e.m, "views"), *f;
    if (views) {
        if (views->type != WIRE_ARRAY) return -1;
        const uint8_t *it = views->p, *end = views->raw + views->rawlen;
        wire_val s;
        for (uint32_t i = 0; i < views->n; i++) {
            if (wire_next(&it, end, &s)) return -1;
            if (w->nviews < VW_MAX_VIEWS && cli_val_str(&s, w->views[w->nviews], VW_NAME) == 0)
                w->nviews++;
        }
    }
    if (cli_inputs_read(&e.m, w->inputs, VW_MAX_INPUTS, &w->ninputs)) return -1;
    if ((f = wire_msg_get(&e.m, "names")) && parse_names(f, w)) return -1;
    view_mode_pick(w);
    if ((f = wire_msg_get(&e.m, "play")) && vw_play_read(f, w)) return -1;
    uint64_t tick;
    if (w->is_play) w->play_tick = wire_get_u64(&e.m, "tick", &tick) == 0 ? tick : w->play_start;
    return 0;
}

int view_read_welcome(vw_view *v, const wire_msg *m)
{
    const char *role;
    size_t rl;
    if (wire_get_str(m, "role", &role, &rl) || rl == 0 || rl >= sizeof v->role) {
        snprintf(v->err, sizeof v->err, "the server's welcome has no role");
        return -1;
    }
    memcpy(v->role, role, rl);
    v->role[rl] = '\0';
    v->can_input = strcmp(v->role, "player") == 0 || strcmp(v->role, "admin") == 0;
    const wire_val *ws = wire_msg_get(m, "worlds");
    if (!ws || ws->type != WIRE_ARRAY) {
        snprintf(v->err, sizeof v->err, "the server's welcome has no list of worlds");
        return -1;
    }
    v->worlds = calloc(ws->n ? ws->n : 1, sizeof *v->worlds);
    if (!v->worlds) {
        snprintf(v->err, sizeof v->err, "out of memory for %u worlds", ws->n);
        return -1;
    }
    const uint8_t *it = ws->p, *end = ws->raw + ws->rawlen;
    for (uint32_t i = 0; i < ws->n; i++) {
        wire_val wv;
        if (wire_next(&it, end, &wv) || parse_world(&wv, &v->worlds[i])) {
            snprintf(v->err, sizeof v->err,
                     "the server's welcome describes world #%u in a form this viv does not "
                     "understand (is viv older than vivd?)", i + 1);
            return -1;
        }
    }
    v->nworlds = (int)ws->n;
    return 0;
}

int view_add_world(vw_view *v, const wire_val *entry)
{
    vw_world *nw = realloc(v->worlds, (size_t)(v->nworlds + 1) * sizeof *v->worlds);
    if (!nw) {
        snprintf(v->err, sizeof v->err, "out of memory for a new world");
        return -1;
    }
    v->worlds = nw;
    if (parse_world(entry, &v->worlds[v->nworlds])) {
        snprintf(v->err, sizeof v->err, "the server's forked answer describes the new world in a "
                                        "form this viv does not understand");
        return -1;
    }
    return v->nworlds++;
}

static void world_list(const vw_view *v, char *s, size_t cap)
{
    size_t k = 0;
    s[0] = '\0';
    for (int i = 0; i < v->nworlds && k + 1 < cap; i++) {
        int n = snprintf(s + k, cap - k, "%s%u %s", i ? ", " : "", v->worlds[i].id,
                         v->worlds[i].kind);
        if (n < 0) break;
        k += (size_t)n;
    }
}

int view_pick_world(vw_view *v)
{
    char list[400];
    world_list(v, list, sizeof list);
    if (v->nworlds == 0) {
        snprintf(v->err, sizeof v->err, "%s hosts no worlds yet (an admin can create one)",
                 v->addr);
        return -1;
    }
    v->cur = 0;
    if (!v->o.world) return 0;
    const char *s = v->o.world;
    int numeric = *s != '\0';
    for (const char *p = s; *p; p++) numeric &= *p >= '0' && *p <= '9';
    unsigned long long id = numeric && strlen(s) < 12 ? strtoull(s, NULL, 10) : ~0ULL;
    for (int i = 0; i < v->nworlds; i++) {
        if (numeric ? id == v->worlds[i].id : strcmp(s, v->worlds[i].kind) == 0) {
            v->cur = i;
            return 0;
        }
    }
    snprintf(v->err, sizeof v->err, "no world '%s' (worlds: %s)", s, list);
    return -1;
}

int vw_world_has_view(const vw_world *w, const char *name)
{
    for (int i = 0; i < w->nviews; i++)
        if (strcmp(w->views[i], name) == 0) return 1;
    return 0;
}
