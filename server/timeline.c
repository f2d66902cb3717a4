/* timeline.c — the `timeline` message (docs/PROTOCOL.md): a viewer's own timeline on the
 * recording of a world it watches, a live world's or a --play recording's. The host builds the
 * timeline off the loop and ticks it (play.c); here the subscription is moved from the world's
 * stream to the timeline's and back ("live"), and the answers are sent. The world and every other
 * subscriber go on untouched. */
#include <inttypes.h>
#include <string.h>
#include "network.h"

static srv_sub *sub_of(srv_client *c, uint32_t world)
{
    for (int i = 0; i < SRV_MAX_SUBS; i++)
        if (c->subs[i].world && c->subs[i].world->id == world) return &c->subs[i];
    return NULL;
}

void srv_send_timeline(srv_client *c, srv_world *w, int rc, const char *err)
{
    if (rc == SRV_EBUSY) {
        srv_client_notice(c, "world_busy", err, NULL);
        return;
    }
    if (rc == SRV_ENOMEM) {
        srv_client_notice(c, "replay_failed", err, NULL);
        return;
    }
    if (rc != 0) {
        srv_client_error(c, rc == SRV_ENOTREC ? "not_a_recording" : "bad_field", err, NULL);
        return;
    }
    wire_buf b;
    wire_buf_init(&b);
    if (srv_play_is_timeline(w)) {
        wire_play p;
        srv_play_info(w, &p);
        wire_msg_timeline(&b, w->id, srv_world_tick(w), 0, &p);
    } else {
        wire_msg_timeline(&b, w->id, srv_world_tick(w), 1, NULL);
    }
    srv_client_send_buf(c, &b);
    wire_buf_free(&b);
}

/* Back to the world's own stream, from a keyframe; the timeline (or one being built) goes. */
static int to_live(srv_client *c, srv_sub *sub)
{
    srv_world *w = sub->world;
    sub->tl_gen = ++c->tl_gens;              /* one being built is not wanted any more */
    sub->tl_opening = 0;
    if (!sub->tl) return 0;
    int st = srv_stream_find(w, &sub->tl_key);
    if (st < 0) {
        srv_send_too_many_streams(c);
        return -1;
    }
    srv_stream_detach(sub->tl, sub);
    srv_timeline_close(c->s, sub->tl);
    sub->tl = NULL;
    sub->stream = st;
    sub->need_key = 1;
    srv_stream_attach(w, sub);
    if (srv_world_shows_paused(w)) srv_fanout_tick(c->s, w);
    return 0;
}

int srv_timeline_opened(void *ud, uint32_t client, uint32_t of, uint32_t gen, srv_world *tl, int err,
                        const char *msg)
{
    srv_client *c = srv_client_by_id(ud, client);
    srv_sub *sub = c ? sub_of(c, of) : NULL;
    if (!sub || !sub->tl_opening || sub->tl_gen != gen || sub->tl) return -1;   /* not wanted now */
    sub->tl_opening = 0;
    if (!tl) {
        if (err == SRV_EPLAY) srv_client_notice(c, "replay_failed", msg, NULL);
        else srv_send_timeline(c, sub->world, err, msg);
        return 0;
    }
    int st = srv_stream_find(tl, &sub->tl_key);
    if (st < 0) {
        srv_client_notice(c, "replay_failed", "out of memory showing the timeline", NULL);
        return -1;
    }
    srv_stream_detach(sub->world, sub);
    sub->tl = tl;
    sub->stream = st;
    sub->need_key = 1;
    srv_stream_attach(tl, sub);
    if (srv_world_shows_paused(tl)) srv_fanout_tick(c->s, tl);   /* its picture, then the answer */
    srv_send_timeline(c, tl, 0, NULL);
    return 0;
}

void srv_on_timeline(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    (void)seqp;
    uint64_t id;
    int rc = wire_get_u64(m, "world", &id);
    if (rc) {
        srv_client_error(c, rc == -1 ? "missing_field" : "bad_field",
                         rc == -1 ? "missing field 'world' (a world id)" : "field 'world' must be a world id", NULL);
        return;
    }
    srv_world *w = id <= UINT32_MAX ? srv_world_find(c->s, (uint32_t)id) : NULL;
    if (!w) {
        char msg[96];
        snprintf(msg, sizeof msg, "no world %" PRIu64 " on this server", id);
        srv_client_error(c, "unknown_world", msg, NULL);
        return;
    }
    srv_sub *sub = sub_of(c, w->id);
    if (!sub) {
        srv_client_error(c, "not_subscribed", "a timeline is for a world this connection watches: "
                         "send sub first", NULL);
        return;
    }
    const char *op;
    size_t oplen;
    const char *ops = "op must be seek, pause, resume, step, back, speed or live";
    rc = wire_get_str(m, "op", &op, &oplen);
    if (rc) {
        srv_client_error(c, rc == -1 ? "missing_field" : "bad_field", ops, NULL);
        return;
    }
#define IS(x) wire_str_eq((const uint8_t *)op, oplen, x)
    uint64_t tick = 0, speed = 100;
    if (IS("seek")) {
        rc = wire_get_u64(m, "tick", &tick);
        if (rc) {
            srv_client_error(c, rc == -1 ? "missing_field" : "bad_field", "seek needs 'tick', the tick to show", NULL);
            return;
        }
    } else if (IS("speed")) {
        rc = wire_get_u64(m, "speed", &speed);
        if (rc || speed < 10 || speed > 1000) {
            srv_client_error(c, rc == -1 ? "missing_field" : "bad_field", "field 'speed' must be a percentage, 10..1000", NULL);
            return;
        }
    } else if (!IS("pause") && !IS("resume") && !IS("step") && !IS("back") && !IS("live")) {
        srv_client_error(c, "bad_field", ops, NULL);
        return;
    }
    char err[256] = "";
    if (IS("live")) {
        if (to_live(c, sub) == 0) srv_send_timeline(c, w, 0, NULL);
        return;
    }
    if (sub->tl) {                            /* its own timeline: the play ops */
        rc = srv_play_control(c->s, sub->tl, op, oplen, tick, (int)speed, c->id, err, sizeof err);
        if (rc != 1) srv_send_timeline(c, sub->tl, rc, err);   /* 1: answered when it lands */
        return;
    }
    if (sub->tl_opening) {
        srv_client_notice(c, "world_busy", "the timeline is being opened: send this again after its "
                          "answer", NULL);
        return;
    }
    /* A new timeline: where it starts. A recording's at its own tick, a live world's at the end of
     * what its recording has committed (the live edge); then the op. */
    int from_end = !w->play, resume = IS("resume");
    uint64_t at = w->play ? srv_world_tick(w) : 0;
    if (IS("seek")) {
        from_end = 0;
        at = tick;
    } else if (IS("back")) {
        if (from_end) at = 1;
        else if (at > 0) at--;
    } else if (IS("step")) {
        if (from_end) {
            srv_client_error(c, "bad_field", "step: the timeline would start at the live edge, which "
                             "has no next tick yet (seek or back first)", NULL);
            return;
        }
        at++;
    }
    const srv_stream *st = &w->fan->streams[sub->stream];
    sub->tl_key = st->k;
    /* A generation of this connection's own, never reused: a subscription that replaced another
     * (its fields cleared) cannot take the build the old one asked for. */
    uint32_t gen = c->tl_gens + 1;
    rc = srv_timeline_open(c->s, w, at, from_end, resume, IS("speed") ? (int)speed : 100, c->id, gen,
                           err, sizeof err);
    if (rc) {
        srv_send_timeline(c, w, rc, err);
        return;
    }
    c->tl_gens = gen;
    sub->tl_gen = gen;
    sub->tl_opening = 1;
#undef IS
}
