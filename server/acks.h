/* acks.h — the ack queue of one world (server/acks.c owns it; nothing else edits it).
 *
 * An input queued into a world waits here for its acknowledgement, which goes out once its tick
 * is committed to the replay log (right after the tick when not recording). Entries name their
 * client by id, never by pointer: a client that leaves first simply finds no one to tell (its
 * inputs still count and are still logged). FIFO order: acks[head..n) wait, the stepped ones
 * first, by tick. */
#ifndef VIVARIUM_SRV_ACKS_H
#define VIVARIUM_SRV_ACKS_H
#include <stddef.h>
#include <stdint.h>
#include "sim.h"

typedef struct srv_ack {
    uint32_t client;       /* the sender's id (srv_client.id) */
    uint32_t seq;
    int stepped;           /* its tick has been stepped */
    sim_input in;          /* exactly what the world consumed (for the log) */
} srv_ack;

typedef struct srv_acks {
    srv_ack *a;
    size_t head, n, cap;
    uint64_t acked, refused;   /* entries settled ok, and not (settled failed or drained) */
} srv_acks;

void srv_acks_free(srv_acks *q);
/* Room for one more entry, so that an input is applied only if it can also be acknowledged and
 * logged. 0, or SRV_ENOMEM (nothing changed). */
int srv_acks_reserve(srv_acks *q);
/* Queue the ack of an input the world accepted. Needs a successful srv_acks_reserve first. */
void srv_acks_push(srv_acks *q, uint32_t client, const sim_input *in);
/* The tick of the queued inputs was stepped: mark them, and copy their inputs (in queue order,
 * which is the world's application order too) into out[0..max), their count in *n. Returns 0,
 * or SRV_ETOOMANY when there are more than max: they are marked all the same but none is copied
 * (the caller refuses the tick rather than log part of it). out may be NULL: mark them and
 * count them in *n, copy nothing. */
int srv_acks_step(srv_acks *q, sim_input *out, size_t max, size_t *n);
/* Settle the stepped entries of ticks before upto, in order: fn(ud, entry, ok) for each. */
typedef void (*srv_ack_fn)(void *ud, const srv_ack *a, int ok);
void srv_acks_settle(srv_acks *q, uint64_t upto, int ok, srv_ack_fn fn, void *ud);
/* Every entry still waiting, stepped or not, is dropped: fn(ud, entry, 0) for each (the world is
 * closing). */
void srv_acks_drain(srv_acks *q, srv_ack_fn fn, void *ud);
size_t srv_acks_pending(const srv_acks *q);

#endif
