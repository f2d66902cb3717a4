/* network.c — the network layer's answers to the host's events (host.h's srv_host_events): the host
 * says what happened, and only here does that become a message to a client. */
#include <string.h>
#include "network.h"

static void on_input_acked(void *ud, uint32_t client, uint32_t seq, uint64_t tick)
{
    srv_client *c = srv_client_by_id(ud, client);
    if (c) srv_send_ack(c, seq, tick);        /* a client that left is owed nothing */
}

static void on_input_refused(void *ud, uint32_t client, uint32_t seq, int why)
{
    srv_client *c = srv_client_by_id(ud, client);
    if (!c) return;
    int64_t s = seq;
    if (why == SRV_REFUSED_NOT_LOGGED)
        srv_client_notice(c, "not_logged",
                          "the replay log could not be written for this input's tick; it was "
                          "applied but is not in the log (the session has a gap there)", &s);
    else
        srv_client_notice(c, "unknown_world",
                          "the world was closed before the input's tick was committed", &s);
}

static void on_tick_done(void *ud, srv_world *w)
{
    srv_fanout_tick(ud, w);
}

static void on_world_reset(void *ud, srv_world *w)
{
    (void)ud;
    srv_fanout_rekey(w);
}

/* Its subscribers are told and dropped; then its streams go. */
static void on_world_closed(void *ud, srv_world *w)
{
    srv *s = ud;
    for (srv_client *c = s->net->clients; c; c = c->next) {
        for (int i = 0; i < SRV_MAX_SUBS; i++) {
            if (c->subs[i].world != w) continue;
            srv_sub_drop(c, &c->subs[i]);
            wire_buf b;
            wire_buf_init(&b);
            wire_msg_closed(&b, w->id);
            srv_client_send_buf(c, &b);
            wire_buf_free(&b);
        }
    }
    if (s->net->hooks.world_closed) s->net->hooks.world_closed(s, w);   /* the cluster's relays */
    srv_fanout_free(w);
}

static void on_timeline_gone(void *ud, srv_world *tl)
{
    (void)ud;
    srv_fanout_free(tl);
}

static void on_world_created(void *ud, uint32_t client, srv_world *w, int err, const char *msg)
{
    srv_client *c = srv_client_by_id(ud, client);
    srv *s = ud;
    if (w && s->net->hooks.worlds_changed) s->net->hooks.worlds_changed(s);   /* the cluster's registry */
    if (c) srv_send_created(c, w, err, msg);     /* one that left is owed nothing */
}

static void on_world_forked(void *ud, uint32_t client, srv_world *w, uint32_t from, uint64_t tick,
                            const char *code, const char *msg)
{
    srv_client *c = srv_client_by_id(ud, client);
    srv *s = ud;
    if (w && s->net->hooks.worlds_changed) s->net->hooks.worlds_changed(s);   /* the cluster's registry */
    if (c) srv_send_forked(c, w, from, tick, code, msg);
}

static void on_recording_opened(void *ud, uint32_t client, srv_world *w, const char *code, const char *msg)
{
    srv_client *c = srv_client_by_id(ud, client);
    srv *s = ud;
    if (w && s->net->hooks.worlds_changed) s->net->hooks.worlds_changed(s);   /* the cluster's registry */
    if (c) srv_send_opened(c, w, code, msg);
}

static void on_play_done(void *ud, uint32_t client, srv_world *w, int err, const char *msg)
{
    srv_client *c = srv_client_by_id(ud, client);
    if (c && srv_play_is_timeline(w)) srv_send_timeline(c, w, err, msg);
    else if (c) srv_send_playing(c, w, err, msg);
}

static int on_subscribers(void *ud, const srv_world *w)
{
    (void)ud;
    return srv_fanout_subs(w);
}

int srv_net_init(srv *s, srv_net *n)
{
    memset(n, 0, sizeof *n);
    n->next_client_id = 1;
    if (wire_encoder_init(&n->enc) != 0) return SRV_ENOMEM;
    s->net = n;
    s->ev.ud = s;
    s->ev.input_acked = on_input_acked;
    s->ev.input_refused = on_input_refused;
    s->ev.tick_done = on_tick_done;
    s->ev.world_reset = on_world_reset;
    s->ev.world_closed = on_world_closed;
    s->ev.subscribers = on_subscribers;
    s->ev.world_created = on_world_created;
    s->ev.play_done = on_play_done;
    s->ev.world_forked = on_world_forked;
    s->ev.timeline_opened = srv_timeline_opened;
    s->ev.timeline_gone = on_timeline_gone;
    s->ev.recording_opened = on_recording_opened;
    return 0;
}

void srv_net_free(srv *s)
{
    if (!s->net) return;
    if (s->net->hooks.free) s->net->hooks.free(s);
    memset(&s->net->hooks, 0, sizeof s->net->hooks);
    for (int i = 0; i < s->nworlds; i++) srv_fanout_free(s->worlds[i]);
    wire_encoder_free(&s->net->enc);
    srv_builders_free(s->net);
    srv_guess_free(s->net->guess);      /* its timer closed with the loop's other handles */
    s->net->guess = NULL;
}

void srv_net_hooks_set(srv *s, const srv_net_hooks *h)
{
    s->net->hooks = *h;
}

void *srv_net_hooks_ud(const srv *s)
{
    return s->net ? s->net->hooks.ud : NULL;
}
