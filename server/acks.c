/* acks.c — the ack queue of one world (acks.h). */
#include <stdlib.h>
#include <string.h>
#include "acks.h"
#include "host.h"

void srv_acks_free(srv_acks *q)
{
    free(q->a);
    memset(q, 0, sizeof *q);
}

int srv_acks_reserve(srv_acks *q)
{
    if (q->head > 0 && q->n == q->cap) {          /* compact before growing */
        memmove(q->a, q->a + q->head, (q->n - q->head) * sizeof *q->a);
        q->n -= q->head;
        q->head = 0;
    }
    if (q->n < q->cap) return 0;
    size_t nc = q->cap ? q->cap * 2 : 64;
    srv_ack *na = realloc(q->a, nc * sizeof *na);
    if (!na) return SRV_ENOMEM;
    q->a = na;
    q->cap = nc;
    return 0;
}

void srv_acks_push(srv_acks *q, uint32_t client, const sim_input *in)
{
    srv_ack *a = &q->a[q->n++];
    a->client = client;
    a->seq = in->seq;
    a->stepped = 0;
    a->in = *in;
}

int srv_acks_step(srv_acks *q, sim_input *out, size_t max, size_t *n)
{
    size_t first = q->n;
    while (first > q->head && !q->a[first - 1].stepped) first--;
    for (size_t i = first; i < q->n; i++) q->a[i].stepped = 1;
    *n = 0;
    if (!out) {                                   /* mark and count only */
        *n = q->n - first;
        return 0;
    }
    if (q->n - first > max) return SRV_ETOOMANY;
    for (size_t i = first; i < q->n; i++) out[(*n)++] = q->a[i].in;
    return 0;
}

void srv_acks_settle(srv_acks *q, uint64_t upto, int ok, srv_ack_fn fn, void *ud)
{
    while (q->head < q->n && q->a[q->head].stepped && q->a[q->head].in.tick < upto) {
        const srv_ack *a = &q->a[q->head++];
        if (ok) q->acked++;
        else q->refused++;
        if (fn) fn(ud, a, ok);
    }
    if (q->head == q->n) q->head = q->n = 0;
}

void srv_acks_drain(srv_acks *q, srv_ack_fn fn, void *ud)
{
    while (q->head < q->n) {
        const srv_ack *a = &q->a[q->head++];
        q->refused++;
        if (fn) fn(ud, a, 0);
    }
    q->head = q->n = 0;
}

size_t srv_acks_pending(const srv_acks *q)
{
    return q->n - q->head;
}
