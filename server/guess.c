/* guess.c — token guessing slowed down (docs/PROTOCOL.md, hello): a `hello` whose token matches
 * no role is answered `bad_token` late, and later the more such hellos its source address has
 * sent. The Nth wrong token in a row from one address waits min(2^N ms, SRV_GUESS_MAX_MS) after
 * the answer before it, so the answers to one address come one at a time, and N wrong tokens take
 * at least the sum of their back-offs to be answered. A right token is checked and answered at
 * once, whatever its address has sent; the admin token clears its address's count (the player
 * token does not: a player could be guessing the admin token). The count is forgotten after
 * SRV_GUESS_FORGET_MS without a wrong token.
 *
 * While SRV_GUESS_PER_ADDR answers to one address are waiting (or SRV_GUESS_QUEUE in all), a hello
 * with a token from it is refused at once with `rate_limited`, its token not read: without that,
 * an attacker would open a connection per guess and take a welcome that came at once as the
 * answer, never waiting for the late ones.
 *
 * Memory is bounded: a table of SRV_GUESS_ADDRS addresses (a hash by a seeded XXH3, with a list
 * from the most to the least recently failed; a new address takes the place of the least recent
 * one with no answer waiting) and a heap of at most SRV_GUESS_QUEUE answers, each naming its
 * client by id, so that a client that left is simply skipped. IPv6 addresses count by their /64
 * (one host has a whole /64 to itself); IPv4 ones whole.
 *
 * The table (srv_guess_*) is plain data and takes the time as an argument, for its unit test
 * (tests/check_handlers.c); the part that answers clients (srv_guess_hello_*) runs on the loop. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "network.h"

#define NBUCKETS (2 * SRV_GUESS_ADDRS)
#define NONE (-1)

typedef struct guess_addr {
    uint8_t key[16];
    int used;
    uint32_t failures;         /* wrong tokens in a row */
    uint64_t last_fail;        /* ms */
    uint64_t ready_at;         /* ms: when the last answer queued for it is due */
    int pending;               /* its answers waiting in the heap */
    int hnext;                 /* the bucket's chain */
    int lprev, lnext;          /* the recency list */
} guess_addr;

typedef struct guess_wait {
    uint64_t due;              /* ms */
    uint64_t order;            /* queued order: equal due times come out first in, first out */
    uint32_t client;
    int addr;
} guess_wait;

struct srv_guess {
    uint64_t seed;
    guess_addr addrs[SRV_GUESS_ADDRS];
    int buckets[NBUCKETS];
    int head, tail;            /* the recency list: most recent first */
    int nused;
    int free_head;             /* unused entries, chained by hnext */
    guess_wait heap[SRV_GUESS_QUEUE];
    int nheap;
    uint64_t order;
};

srv_guess *srv_guess_new(uint64_t seed)
{
    srv_guess *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->seed = seed;
    for (int i = 0; i < NBUCKETS; i++) g->buckets[i] = NONE;
    g->head = g->tail = NONE;
    for (int i = 0; i < SRV_GUESS_ADDRS; i++) g->addrs[i].hnext = i + 1 < SRV_GUESS_ADDRS ? i + 1 : NONE;
    g->free_head = 0;
    return g;
}

void srv_guess_free(srv_guess *g)
{
    free(g);
}

int srv_guess_key(const char *peer, uint8_t key[16])
{
    memset(key, 0, 16);
    const char *colon = peer ? strrchr(peer, ':') : NULL;
    char ip[64];
    size_t n = colon ? (size_t)(colon - peer) : 0;
    if (n == 0 || n >= sizeof ip) return -1;
    memcpy(ip, peer, n);
    ip[n] = '\0';
    struct in_addr a4;
    if (inet_pton(AF_INET, ip, &a4) == 1) {
        key[10] = key[11] = 0xff;          /* the v4-mapped form: never a /64 of a v6 address */
        memcpy(key + 12, &a4, 4);
        return 0;
    }
    uint8_t a6[16];
    if (inet_pton(AF_INET6, ip, a6) == 1) {
        static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
        if (memcmp(a6, mapped, 12) == 0) memcpy(key, a6, 16);   /* a v4 client on a v6 socket */
        else memcpy(key, a6, 8);                                  /* its /64 */
        return 0;
    }
    return -1;
}

static int bucket_of(const srv_guess *g, const uint8_t key[16])
{
    return (int)(XXH3_64bits_withSeed(key, 16, g->seed) % NBUCKETS);
}

static int find(const srv_guess *g, const uint8_t key[16])
{
    for (int i = g->buckets[bucket_of(g, key)]; i != NONE; i = g->addrs[i].hnext)
        if (memcmp(g->addrs[i].key, key, 16) == 0) return i;
    return NONE;
}

static void list_unlink(srv_guess *g, int i)
{
    guess_addr *a = &g->addrs[i];
    if (a->lprev != NONE) g->addrs[a->lprev].lnext = a->lnext;
    else g->head = a->lnext;
    if (a->lnext != NONE) g->addrs[a->lnext].lprev = a->lprev;
    else g->tail = a->lprev;
    a->lprev = a->lnext = NONE;
}

static void list_push(srv_guess *g, int i)
{
    guess_addr *a = &g->addrs[i];
    a->lprev = NONE;
    a->lnext = g->head;
    if (g->head != NONE) g->addrs[g->head].lprev = i;
    g->head = i;
    if (g->tail == NONE) g->tail = i;
}

static void forget(srv_guess *g, int i)
{
    guess_addr *a = &g->addrs[i];
    for (int *p = &g->buckets[bucket_of(g, a->key)]; *p != NONE; p = &g->addrs[*p].hnext)
        if (*p == i) {
            *p = a->hnext;
            break;
        }
    list_unlink(g, i);
    memset(a, 0, sizeof *a);
    a->hnext = g->free_head;
    g->free_head = i;
    g->nused--;
}

/* The entry of key, made if need be (in place of the least recent one with no answer waiting):
 * its index, or NONE when every entry has answers waiting (more entries than SRV_GUESS_QUEUE
 * prevents that; kept for safety). */
static int take(srv_guess *g, const uint8_t key[16])
{
    int i = find(g, key);
    if (i != NONE) return i;
    if (g->nused == SRV_GUESS_ADDRS) {
        int v = g->tail;
        while (v != NONE && g->addrs[v].pending) v = g->addrs[v].lprev;
        if (v == NONE) return NONE;
        forget(g, v);
    }
    i = g->free_head;
    guess_addr *a = &g->addrs[i];
    g->free_head = a->hnext;
    memset(a, 0, sizeof *a);
    a->used = 1;
    memcpy(a->key, key, 16);
    int b = bucket_of(g, key);
    a->hnext = g->buckets[b];
    g->buckets[b] = i;
    a->lprev = a->lnext = NONE;
    list_push(g, i);
    g->nused++;
    return i;
}

int srv_guess_admit(const srv_guess *g, const uint8_t key[16])
{
    if (g->nheap >= SRV_GUESS_QUEUE) return -1;
    int i = find(g, key);
    return i != NONE && g->addrs[i].pending >= SRV_GUESS_PER_ADDR ? -1 : 0;
}

uint64_t srv_guess_backoff(uint32_t n)
{
    return n >= 31 || (1ull << n) > SRV_GUESS_MAX_MS ? SRV_GUESS_MAX_MS : 1ull << n;
}

static int earlier(const guess_wait *a, const guess_wait *b)
{
    return a->due < b->due || (a->due == b->due && a->order < b->order);
}

static void heap_swap(srv_guess *g, int i, int j)
{
    guess_wait t = g->heap[i];
    g->heap[i] = g->heap[j];
    g->heap[j] = t;
}

int srv_guess_fail(srv_guess *g, const uint8_t key[16], uint32_t client, uint64_t now, uint64_t *due)
{
    if (g->nheap >= SRV_GUESS_QUEUE) return -1;
    int i = take(g, key);
    if (i == NONE) return -1;
    guess_addr *a = &g->addrs[i];
    if (a->pending >= SRV_GUESS_PER_ADDR) return -1;
    if (a->failures && now - a->last_fail > SRV_GUESS_FORGET_MS) a->failures = 0;
    if (a->failures < UINT32_MAX) a->failures++;
    a->last_fail = now;
    uint64_t start = a->ready_at > now ? a->ready_at : now;   /* one answer after another */
    a->ready_at = start + srv_guess_backoff(a->failures);
    a->pending++;
    list_unlink(g, i);
    list_push(g, i);
    int k = g->nheap++;
    g->heap[k] = (guess_wait){ a->ready_at, g->order++, client, i };
    while (k > 0 && earlier(&g->heap[k], &g->heap[(k - 1) / 2])) {
        heap_swap(g, k, (k - 1) / 2);
        k = (k - 1) / 2;
    }
    if (due) *due = a->ready_at;
    return 0;
}

void srv_guess_success(srv_guess *g, const uint8_t key[16])
{
    int i = find(g, key);
    if (i == NONE) return;
    g->addrs[i].failures = 0;
    /* Answers already queued keep their times (the sequence of answers is never reordered);
     * the next wrong token starts from 2 ms after them. */
    if (!g->addrs[i].pending) forget(g, i);
}

int srv_guess_due(srv_guess *g, uint64_t now, uint32_t *client)
{
    if (g->nheap == 0 || g->heap[0].due > now) return 0;
    *client = g->heap[0].client;
    guess_addr *a = &g->addrs[g->heap[0].addr];
    a->pending--;
    g->heap[0] = g->heap[--g->nheap];
    for (int k = 0;;) {
        int l = 2 * k + 1, r = l + 1, m = k;
        if (l < g->nheap && earlier(&g->heap[l], &g->heap[m])) m = l;
        if (r < g->nheap && earlier(&g->heap[r], &g->heap[m])) m = r;
        if (m == k) break;
        heap_swap(g, k, m);
        k = m;
    }
    return 1;
}

uint64_t srv_guess_next(const srv_guess *g)
{
    return g->nheap ? g->heap[0].due : UINT64_MAX;
}

int srv_guess_failures(const srv_guess *g, const uint8_t key[16])
{
    int i = find(g, key);
    return i == NONE ? 0 : (int)g->addrs[i].failures;
}

int srv_guess_addresses(const srv_guess *g)
{
    return g->nused;
}

/* ---- on the loop ------------------------------------------------------------------------------ */

static const char bad_token_msg[] = "the token matches no role; omit it to watch";

static void arm(srv *s);

static void on_due(uv_timer_t *t)
{
    srv *s = t->data;
    uint32_t id;
    while (srv_guess_due(s->net->guess, uv_now(s->loop), &id)) {
        srv_client *c = srv_client_by_id(s, id);
        if (c) srv_client_error(c, "bad_token", bad_token_msg, NULL);   /* counts, as it did */
    }
    arm(s);
}

static void arm(srv *s)
{
    srv_net *n = s->net;
    uint64_t next = srv_guess_next(n->guess), now = uv_now(s->loop);
    if (next == UINT64_MAX || s->stopping) {
        uv_timer_stop(&n->guess_timer);
        return;
    }
    uv_timer_start(&n->guess_timer, on_due, next > now ? next - now : 0, 0);
}

/* The table, made at the first token from a client of this server's own (a proxied client's
 * hello came through another member, which slowed it down). NULL: none to use. */
static srv_guess *table(srv_client *c)
{
    srv_net *n = c->s->net;
    if (c->tr->proxied) return NULL;
    if (!n->guess) {
        uint64_t seed = 0;
        if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) seed = (uint64_t)(uintptr_t)n ^ uv_hrtime();
        n->guess = srv_guess_new(seed);
        if (!n->guess) return NULL;
        uv_timer_init(c->s->loop, &n->guess_timer);
        n->guess_timer.data = c->s;
    }
    return n->guess;
}

int srv_guess_hello_admit(srv_client *c)
{
    srv_guess *g = table(c);
    uint8_t key[16];
    srv_guess_key(c->peer, key);          /* an address it cannot read counts as one, all zero */
    if (!g || srv_guess_admit(g, key) == 0) return 0;
    srv_client_notice(c, "rate_limited", "too many wrong tokens from your address are still "
                      "waiting for their answers; this hello was not read: send it again later", NULL);
    return -1;
}

void srv_guess_hello_failed(srv_client *c)
{
    srv_guess *g = table(c);
    uint8_t key[16];
    srv_guess_key(c->peer, key);
    uint64_t due;
    if (!g || srv_guess_fail(g, key, c->id, uv_now(c->s->loop), &due) != 0) {
        srv_client_error(c, "bad_token", bad_token_msg, NULL);   /* no table: as before */
        return;
    }
    if (srv_guess_failures(g, key) == 8)   /* once a run: 2+4+…+256 ms of answers so far */
        srv_log(c->s, SRV_LOG_WARN, "%s has sent 8 wrong tokens in a row: its answers are slowed "
                "down (up to %u ms each)", c->peer, SRV_GUESS_MAX_MS);
    arm(c->s);
}

void srv_guess_hello_admin(srv_client *c)
{
    srv_guess *g = c->tr->proxied ? NULL : c->s->net->guess;
    if (!g) return;
    uint8_t key[16];
    srv_guess_key(c->peer, key);
    srv_guess_success(g, key);
}

void srv_guess_stop(srv *s)
{
    if (s->net->guess) uv_timer_stop(&s->net->guess_timer);
}
