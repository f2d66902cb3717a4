/* srv_rig.c — a server with one sand world and no socket (srv_rig.h). */
#include <check.h>
#include <string.h>
#include "srv_rig.h"

srv_world *srv_rig_up(uv_loop_t *loop, srv *s, srv_net *net)
{
    memset(loop, 0, sizeof *loop);
    memset(s, 0, sizeof *s);
    memset(net, 0, sizeof *net);
    ck_assert_int_eq(uv_loop_init(loop), 0);
    s->loop = loop;
    s->cfg.log_level = SRV_LOG_ERROR;
    s->next_world_id = 1;
    ck_assert_int_eq(srv_net_init(s, net), 0);
    char err[256] = "";
    int id = srv_world_add(s, "sand", 1, "", err, sizeof err);
    ck_assert_msg(id > 0, "%s", err);
    return srv_world_find(s, (uint32_t)id);
}

void srv_rig_down(uv_loop_t *loop, srv *s)
{
    srv_net_free(s);
    for (int i = 0; i < s->nworlds; i++) srv_world_free(s->worlds[i]);
    uv_loop_close(loop);
}
