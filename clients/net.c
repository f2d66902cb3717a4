/* net.c — the protocol client library (see net.h): the protocol rules that need no transport,
 * shared by `viv view`, `viv bot` and the tests, then the blocking client. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "net.h"

/* ==== the protocol, without a transport ====================================================== */
/* ---- framing ---------------------------------------------------------------------------------- */
int cli_msg_split(const uint8_t *p, size_t n, uint32_t *len)
{
    *len = 0;
    if (n < 4) return CLI_RECV_TIMEOUT;
    uint32_t k = wire_be32(p);
    if (k == 0 || k > WIRE_MAX_SERVER_MSG) {
        *len = k;
        return CLI_EPROTO;
    }
    *len = k;
    return n - 4 >= k ? CLI_RECV_MSG : CLI_RECV_TIMEOUT;
}

int cli_hostport_split(const char *hostport, char *host, size_t cap, const char **port)
{
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || (size_t)(colon - hostport) >= cap || !colon[1])
        return CLI_EPROTO;
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    size_t hl = strlen(host);
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {      /* [::1]:7400 */
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    *port = colon + 1;
    return CLI_OK;
}

int cli_lookup(const char *hostport, struct addrinfo **res, int *gai_err)
{
    char host[256];
    const char *port;
    *res = NULL;
    *gai_err = 0;
    if (cli_hostport_split(hostport, host, sizeof host, &port)) return CLI_EPROTO;
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    *gai_err = getaddrinfo(host, port, &hints, res);
    return *gai_err ? CLI_ERESOLVE : CLI_OK;
}

/* ---- messages a client sends ------------------------------------------------------------------ */
void cli_put_hello(wire_buf *b, const char *name, const char *token)
{
    wire_msg_begin(b);
    wire_put_map(b, token ? 4 : 3);
    wire_put_str(b, "t"); wire_put_str(b, "hello");
    wire_put_str(b, "v"); wire_put_uint(b, 1);
    wire_put_str(b, "name"); wire_put_str(b, name);
    if (token) {
        wire_put_str(b, "token");
        wire_put_str(b, token);
    }
    wire_msg_end(b);
}

void cli_put_sub(wire_buf *b, uint32_t world, uint32_t every, const char *enc, const char *view)
{
    cli_put_sub_div(b, world, every, 1, enc, view);
}

void cli_put_sub_div(wire_buf *b, uint32_t world, uint32_t every, uint32_t div, const char *enc,
                     const char *view)
{
    cli_put_sub_events(b, world, every, div, enc, view, 0);
}

void cli_put_sub_events(wire_buf *b, uint32_t world, uint32_t every, uint32_t div, const char *enc,
                        const char *view, int events)
{
    cli_put_sub_rect(b, world, every, div, enc, view, events, NULL);
}

void cli_put_sub_rect(wire_buf *b, uint32_t world, uint32_t every, uint32_t div, const char *enc,
                      const char *view, int events, const int32_t *rect)
{
    wire_msg_begin(b);
    wire_put_map(b, 3 + (div != 1) + (enc != NULL) + (view != NULL) + (events != 0) + (rect != NULL));
    wire_put_str(b, "t"); wire_put_str(b, "sub");
    wire_put_str(b, "world"); wire_put_uint(b, world);
    wire_put_str(b, "every"); wire_put_uint(b, every);
    if (div != 1) { wire_put_str(b, "div"); wire_put_uint(b, div); }
    if (enc) { wire_put_str(b, "enc"); wire_put_str(b, enc); }
    if (view) { wire_put_str(b, "view"); wire_put_str(b, view); }
    if (events) { wire_put_str(b, "events"); wire_put_bool(b, 1); }
    if (rect) {
        wire_put_str(b, "rect");
        wire_put_array(b, 4);
        for (int i = 0; i < 4; i++) wire_put_int(b, rect[i]);
    }
    wire_msg_end(b);
}

/* Append "%.*s" of a string value, or the integer, to out at *at (snprintf's rule on cap). */
static void put_val(char *out, size_t cap, int *at, const wire_val *v)
{
    size_t o = (size_t)*at < cap ? (size_t)*at : cap;
    int k = v->type == WIRE_STR ? snprintf(out + o, cap - o, "%.*s", (int)(v->n > 64 ? 64 : v->n), (const char *)v->p)
          : v->type == WIRE_UINT ? snprintf(out + o, cap - o, "%llu", (unsigned long long)v->u)
          : v->type == WIRE_INT ? snprintf(out + o, cap - o, "%lld", (long long)v->i)
          : snprintf(out + o, cap - o, "?");
    if (k > 0) *at += k;
}

int cli_event_text(const wire_msg *m, int i, char *out, size_t cap)
{
    uint64_t tick;
    const wire_val *evs = wire_msg_get(m, "events");
    if (wire_get_u64(m, "tick", &tick) || !evs || evs->type != WIRE_ARRAY) return CLI_EPROTO;
    if (i < 0 || (uint32_t)i >= evs->n) return (int)evs->n;
    const uint8_t *it = evs->p, *end = evs->raw + evs->rawlen;
    wire_val e;
    for (int k = 0; k <= i; k++)
        if (wire_next(&it, end, &e)) return CLI_EPROTO;
    wire_msg em;
    const char *name;
    size_t nl;
    const wire_val *fields;
    if (e.type != WIRE_MAP || wire_msg_decode(e.raw, e.rawlen, &em) ||
        wire_get_str(&em, "name", &name, &nl) || !(fields = wire_msg_get(&em, "fields")) ||
        fields->type != WIRE_MAP)
        return CLI_EPROTO;
    int at = snprintf(out, cap, "event %llu %.*s", (unsigned long long)tick, (int)(nl > 32 ? 32 : nl), name);
    if (at < 0) return CLI_EPROTO;
    const uint8_t *fi = fields->p, *fend = fields->raw + fields->rawlen;
    for (uint32_t f = 0; f < fields->n; f++) {
        wire_val key, val;
        if (wire_next(&fi, fend, &key) || wire_next(&fi, fend, &val) || key.type != WIRE_STR)
            return CLI_EPROTO;
        size_t o = (size_t)at < cap ? (size_t)at : cap;
        int k = snprintf(out + o, cap - o, " %.*s=", (int)(key.n > 32 ? 32 : key.n), (const char *)key.p);
        if (k > 0) at += k;
        put_val(out, cap, &at, &val);
    }
    return (int)evs->n;
}

void cli_put_unsub(wire_buf *b, uint32_t world)
{
    wire_msg_begin(b);
    wire_put_map(b, 2);
    wire_put_str(b, "t"); wire_put_str(b, "unsub");
    wire_put_str(b, "world"); wire_put_uint(b, world);
    wire_msg_end(b);
}

void cli_put_bare(wire_buf *b, const char *type)
{
    wire_msg_begin(b);
    wire_put_map(b, 1);
    wire_put_str(b, "t"); wire_put_str(b, type);
    wire_msg_end(b);
}

/* The field order of docs/PROTOCOL.md: t, world, seq, kind, args. */
void cli_put_input(wire_buf *b, uint32_t world, uint32_t seq, const char *kind,
                   const int64_t *args, int nargs)
{
    wire_msg_begin(b);
    wire_put_map(b, 5);
    wire_put_str(b, "t"); wire_put_str(b, "input");
    wire_put_str(b, "world"); wire_put_uint(b, world);
    wire_put_str(b, "seq"); wire_put_uint(b, seq);
    wire_put_str(b, "kind"); wire_put_str(b, kind);
    wire_put_str(b, "args");
    wire_put_array(b, (uint32_t)nargs);
    for (int a = 0; a < nargs; a++) wire_put_int(b, args[a]);
    wire_msg_end(b);
}

/* ---- what the server sends -------------------------------------------------------------------- */
int cli_msg_is(const wire_msg *m, const char *t)
{
    const char *s;
    size_t n;
    return wire_get_str(m, "t", &s, &n) == 0 && wire_str_eq((const uint8_t *)s, n, t);
}

void cli_error_read(const wire_msg *m, const char *missing_msg, cli_error *e)
{
    if (wire_get_str(m, "code", &e->code, &e->code_len)) {
        e->code = "?";
        e->code_len = 1;
    }
    if (wire_get_str(m, "msg", &e->msg, &e->msg_len)) {
        e->msg = missing_msg;
        e->msg_len = strlen(missing_msg);
    }
}

int cli_frame_header(const wire_msg *m, uint64_t *world, uint64_t *tick, int *key)
{
    if (wire_get_u64(m, "world", world) || wire_get_u64(m, "tick", tick) ||
        wire_get_bool(m, "key", key))
        return CLI_EPROTO;
    return CLI_OK;
}

int cli_val_str(const wire_val *v, char *dst, size_t cap)
{
    if (v->type != WIRE_STR || v->n == 0 || v->n >= cap) return -1;
    memcpy(dst, v->p, v->n);
    dst[v->n] = '\0';
    return 0;
}

int cli_val_i64(const wire_val *v, int64_t *out)
{
    if (v->type == WIRE_UINT && v->u <= (uint64_t)INT64_MAX) *out = (int64_t)v->u;
    else if (v->type == WIRE_INT) *out = v->i;
    else return -1;
    return 0;
}

int cli_world_read(const wire_val *v, cli_world_entry *e)
{
    memset(e, 0, sizeof *e);
    uint64_t id;
    const char *k;
    size_t kl;
    if (v->type != WIRE_MAP || wire_msg_decode(v->raw, v->rawlen, &e->m) ||
        wire_get_u64(&e->m, "id", &id) || id > UINT32_MAX ||
        wire_get_str(&e->m, "kind", &k, &kl) || kl >= sizeof e->kind ||
        wire_get_u64(&e->m, "w", &e->w) || wire_get_u64(&e->m, "h", &e->h))
        return CLI_EPROTO;
    e->id = (uint32_t)id;
    memcpy(e->kind, k, kl);
    e->kind[kl] = '\0';
    e->has_hz = wire_get_u64(&e->m, "hz", &e->hz) == 0;
    return CLI_OK;
}

int cli_worlds_begin(const wire_msg *m, cli_world_iter *wi)
{
    const wire_val *ws = wire_msg_get(m, "worlds");
    memset(wi, 0, sizeof *wi);
    if (!ws || ws->type != WIRE_ARRAY) return CLI_EPROTO;
    wi->it = ws->p;
    wi->end = ws->raw + ws->rawlen;
    wi->n = ws->n;
    return CLI_OK;
}

int cli_worlds_next(cli_world_iter *wi, wire_val *v)
{
    if (wi->i >= wi->n) return 0;
    if (wire_next(&wi->it, wi->end, v)) return CLI_EPROTO;
    wi->i++;
    return 1;
}

int cli_input_find(const cli_input_desc *in, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(in[i].name, name) == 0) return i;
    return -1;
}

static int32_t clamp32(int64_t v)
{
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* inputs: {name: [arg names]}. */
static int read_inputs(const wire_val *v, cli_input_desc *out, int max, int *n)
{
    if (v->type != WIRE_MAP) return CLI_EPROTO;
    const uint8_t *it = v->p, *end = v->raw + v->rawlen;
    for (uint32_t i = 0; i < v->n; i++) {
        wire_val k, args, a;
        if (wire_next(&it, end, &k) || wire_next(&it, end, &args) || args.type != WIRE_ARRAY ||
            args.n > SIM_INPUT_MAX_ARGS)
            return CLI_EPROTO;
        if (*n == max) continue;
        cli_input_desc *in = &out[*n];
        memset(in, 0, sizeof *in);
        if (cli_val_str(&k, in->name, sizeof in->name)) return CLI_EPROTO;
        const uint8_t *ai = args.p, *ae = args.raw + args.rawlen;
        for (uint32_t j = 0; j < args.n; j++) {
            if (wire_next(&ai, ae, &a) || cli_val_str(&a, in->arg[j], sizeof in->arg[j]))
                return CLI_EPROTO;
            in->lo[j] = INT32_MIN;
            in->hi[j] = INT32_MAX;
        }
        in->nargs = (int)args.n;
        (*n)++;
    }
    return CLI_OK;
}

/* ranges: {name: [[lo, hi], ...]}, matched to the inputs by name. */
static int read_ranges(const wire_val *v, cli_input_desc *out, int n)
{
    if (v->type != WIRE_MAP) return CLI_EPROTO;
    const uint8_t *it = v->p, *end = v->raw + v->rawlen;
    for (uint32_t i = 0; i < v->n; i++) {
        wire_val k, arr, pair, x;
        char name[CLI_NAME_MAX];
        if (wire_next(&it, end, &k) || wire_next(&it, end, &arr) || arr.type != WIRE_ARRAY ||
            cli_val_str(&k, name, sizeof name))
            return CLI_EPROTO;
        int ii = cli_input_find(out, n, name);
        const uint8_t *ai = arr.p, *ae = arr.raw + arr.rawlen;
        for (uint32_t j = 0; j < arr.n; j++) {
            if (wire_next(&ai, ae, &pair) || pair.type != WIRE_ARRAY || pair.n != 2)
                return CLI_EPROTO;
            const uint8_t *pi = pair.p, *pe = pair.raw + pair.rawlen;
            int64_t lo, hi;
            if (wire_next(&pi, pe, &x) || cli_val_i64(&x, &lo) || wire_next(&pi, pe, &x) ||
                cli_val_i64(&x, &hi))
                return CLI_EPROTO;
            if (ii >= 0 && (int)j < out[ii].nargs) {
                out[ii].lo[j] = clamp32(lo);
                out[ii].hi[j] = clamp32(hi);
                out[ii].exact[j] = lo <= hi && lo >= INT32_MIN && hi <= INT32_MAX;
            }
        }
    }
    return CLI_OK;
}

int cli_inputs_read(const wire_msg *entry, cli_input_desc *out, int max, int *n)
{
    const wire_val *f;
    *n = 0;
    if ((f = wire_msg_get(entry, "inputs")) && read_inputs(f, out, max, n)) return CLI_EPROTO;
    if ((f = wire_msg_get(entry, "ranges")) && read_ranges(f, out, *n)) return CLI_EPROTO;
    return CLI_OK;
}

/* ==== the blocking client ==================================================================== */
/* One address of a list: "HOST:PORT" i of "A,B,C" into out. 0, or -1 when there is no i-th. */
static int list_item(const char *list, int i, char *out, size_t cap)
{
    const char *p = list;
    for (int k = 0; k < i; k++) {
        p = strchr(p, ',');
        if (!p) return -1;
        p++;
    }
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == 0 || n >= cap) return -1;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

int cli_addr_count(const char *list)
{
    int n = 1;
    for (const char *p = list; *p; p++) n += *p == ',';
    return n;
}

int cli_addr_at(const char *list, int i, char *out, size_t cap)
{
    int n = cli_addr_count(list);
    return list_item(list, ((i % n) + n) % n, out, cap);
}

int cli_addr_list_check(const char *list, char *err, size_t errlen)
{
    if (cli_ws_is_url(list) || strstr(list, "://")) {   /* a URL: ws://, or a scheme refused clearly */
        char hp[300], path[256];
        if (strchr(list, ',')) {
            snprintf(err, errlen, "'%s': a ws:// address is one address, not a list", list);
            return CLI_EPROTO;
        }
        return cli_ws_url_split(list, hp, sizeof hp, path, sizeof path, err, errlen) ? CLI_EPROTO : CLI_OK;
    }
    int n = cli_addr_count(list);
    if (n > CLI_MAX_ADDRS) {
        snprintf(err, errlen, "'%s' lists %d addresses; at most %d", list, n, CLI_MAX_ADDRS);
        return CLI_EPROTO;
    }
    for (int i = 0; i < n; i++) {
        char one[300], host[256];
        const char *port;
        if (list_item(list, i, one, sizeof one) != 0 || cli_hostport_split(one, host, sizeof host, &port)) {
            if (n == 1) snprintf(err, errlen, "'%s' is not HOST:PORT (e.g. 127.0.0.1:7400)", list);
            else snprintf(err, errlen, "address %d of '%s' is not HOST:PORT (a list is HOST:PORT,HOST:PORT,...)",
                          i + 1, list);
            return CLI_EPROTO;
        }
    }
    return CLI_OK;
}

static int connect_one(cli_conn *c, const char *hostport, char *err, size_t errlen)
{
    struct addrinfo *res = NULL;
    int gai = 0, rc = cli_lookup(hostport, &res, &gai);
    if (rc) {
        if (rc == CLI_ERESOLVE) snprintf(err, errlen, "cannot resolve %s: %s", hostport, gai_strerror(gai));
        else snprintf(err, errlen, "'%s' is not HOST:PORT", hostport);
        return CLI_EPROTO;
    }
    int fd = -1, saved = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "cannot connect to %s: %s (is vivd running?)", hostport,
                 strerror(saved ? saved : ECONNREFUSED));
        return CLI_EPROTO;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    return CLI_OK;
}

/* Grow c->in to hold `more` bytes after inlen. 0, or -1 out of memory. */
static int in_reserve(cli_conn *c, size_t more)
{
    if (c->incap - c->inlen >= more) return 0;
    size_t nc = c->incap * 2 > c->inlen + more ? c->incap * 2 : c->inlen + more;
    uint8_t *p = realloc(c->in, nc);
    if (!p) return -1;
    c->in = p;
    c->incap = nc;
    return 0;
}

/* The WebSocket upgrade on c's fresh connection to hostport, path: the request, then the answer's
 * header, checked (websocket.h). Bytes after the header stay in c->in for the reader. */
static int ws_upgrade(cli_conn *c, const char *hostport, const char *path, char *err, size_t errlen)
{
    uint8_t nonce[16];
    char key[CLI_WS_KEY_LEN + 1], req[1024];
    for (int i = 0; i < 16; i += 4) {
        uint32_t r = sim_rng_next(&c->mask_rng);
        memcpy(&nonce[i], &r, 4);
    }
    cli_ws_key(nonce, key);
    size_t n = cli_ws_request(req, sizeof req, hostport, path, key, CLI_WS_SUBPROTOCOL);
    if (n == 0 || cli_send_raw(c, req, n) != CLI_OK) {
        snprintf(err, errlen, "sending the WebSocket upgrade to %s failed: %s", hostport,
                 n ? strerror(errno) : "the request is too long");
        return CLI_EPROTO;
    }
    size_t hl;
    while ((hl = cli_ws_answer_len(c->in, c->inlen)) == 0) {
        if (c->inlen && cli_ws_answer_not_http(c->in, c->inlen)) {
            snprintf(err, errlen, "the answer to the WebSocket upgrade is not HTTP: is %s vivd's TCP "
                     "port? WebSocket is on its --http port (default 7401); for the TCP port, "
                     "give --host %s", hostport, hostport);
            return CLI_EPROTO;
        }
        if (c->inlen >= 16384 || in_reserve(c, 4096) != 0) {
            snprintf(err, errlen, "the answer to the WebSocket upgrade from %s has no end", hostport);
            return CLI_EPROTO;
        }
        struct pollfd pfd = { c->fd, POLLIN, 0 };
        int pr = poll(&pfd, 1, 10000);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) {
            snprintf(err, errlen, "%s did not answer the WebSocket upgrade within 10 s", hostport);
            return CLI_EPROTO;
        }
        ssize_t k = recv(c->fd, c->in + c->inlen, c->incap - c->inlen, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            snprintf(err, errlen, "%s closed the connection during the WebSocket upgrade%s%s", hostport,
                     k ? ": " : "", k ? strerror(errno) : "");
            return CLI_EPROTO;
        }
        c->inlen += (size_t)k;
        c->bytes_in += (uint64_t)k;
    }
    char why[300];
    int rc = cli_ws_answer_check((const char *)c->in, hl, key, CLI_WS_SUBPROTOCOL, why, sizeof why);
    if (rc) {
        snprintf(err, errlen, "ws://%s%s: %s%s", hostport, path, why,
                 rc == CLI_WS_REFUSED ? " (vivd's WebSocket is at the path /ws)" : "");
        return CLI_EPROTO;
    }
    memmove(c->in, c->in + hl, c->inlen - hl);
    c->inlen -= hl;
    c->ws = 1;
    cli_ws_reader_init(&c->wr, WIRE_MAX_SERVER_MSG);
    return CLI_OK;
}

/* Connect to one ws:// address. */
static int connect_ws(cli_conn *c, const char *url, char *err, size_t errlen)
{
    char hostport[300], path[256];
    if (cli_ws_url_split(url, hostport, sizeof hostport, path, sizeof path, err, errlen)) return CLI_EPROTO;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    sim_rng_seed(&c->mask_rng, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
                 (uint64_t)getpid());
    if (connect_one(c, hostport, err, errlen) != CLI_OK) return CLI_EPROTO;
    snprintf(c->addr, sizeof c->addr, "%s", hostport);
    if (ws_upgrade(c, hostport, path, err, errlen) != CLI_OK) {
        cli_close(c);
        return CLI_EPROTO;
    }
    return CLI_OK;
}

int cli_connect_list(cli_conn *c, const char *list, int *at, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    if (cli_ws_is_url(list)) {
        *at = 0;
        return connect_ws(c, list, err, errlen);
    }
    int n = cli_addr_count(list);
    char one[300], first_err[400] = "";
    for (int k = 0; k < n; k++) {
        int i = ((*at + k) % n + n) % n;
        if (list_item(list, i, one, sizeof one) != 0) {
            snprintf(err, errlen, "'%s' is not HOST:PORT or a list of them, separated by commas", list);
            return CLI_EPROTO;
        }
        if (connect_one(c, one, err, errlen) == CLI_OK) {
            *at = i;
            snprintf(c->addr, sizeof c->addr, "%s", one);
            return CLI_OK;
        }
        if (!first_err[0]) snprintf(first_err, sizeof first_err, "%s", err);
    }
    if (n > 1) snprintf(err, errlen, "no address of %s answers (%s)", list, first_err);
    return CLI_EPROTO;
}

int cli_connect(cli_conn *c, const char *hostport, char *err, size_t errlen)
{
    int at = 0;
    return cli_connect_list(c, hostport, &at, err, errlen);
}

void cli_close(cli_conn *c)
{
    if (c->fd >= 0) close(c->fd);
    free(c->in);
    if (c->ws) cli_ws_reader_free(&c->wr);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

int cli_send_raw(cli_conn *c, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t k = send(c->fd, b, n, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EINTR) continue;
            return CLI_EPROTO;
        }
        b += k;
        n -= (size_t)k;
    }
    return CLI_OK;
}

/* One masked frame of n bytes at p. */
static int ws_send_frame(cli_conn *c, int opcode, const uint8_t *p, size_t n)
{
    wire_buf f;
    wire_buf_init(&f);
    uint32_t r = sim_rng_next(&c->mask_rng);
    uint8_t mask[4] = { (uint8_t)r, (uint8_t)(r >> 8), (uint8_t)(r >> 16), (uint8_t)(r >> 24) };
    cli_ws_put_frame(&f, 1, opcode, p, n, mask);
    int rc = f.oom ? CLI_EPROTO : cli_send_raw(c, f.p, f.len);
    wire_buf_free(&f);
    return rc;
}

int cli_send(cli_conn *c, const wire_buf *b)
{
    if (b->oom) return CLI_EPROTO;
    if (!c->ws) return cli_send_raw(c, b->p, b->len);
    /* One binary frame per message (b may hold several, each length-prefixed). */
    const uint8_t *p = b->p;
    size_t n = b->len;
    uint32_t len;
    while (n && cli_msg_split(p, n, &len) == CLI_RECV_MSG) {
        if (ws_send_frame(c, CLI_WS_BIN, p + 4, len) != CLI_OK) return CLI_EPROTO;
        p += 4 + (size_t)len;
        n -= 4 + (size_t)len;
    }
    return n ? CLI_EPROTO : CLI_OK;
}

void cli_http_port_say(const char *hostport, const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    while (k < n && k < 80 && p[k] != '\r' && p[k] != '\n' && p[k] >= 0x20 && p[k] < 0x7f) k++;
    if (k <= 4) k = 0;                 /* "HTTP" alone says nothing the sentence does not */
    snprintf(out, cap, "this is vivd's HTTP port (the page and WebSocket%s%.*s%s), not its TCP port: "
             "use the TCP port (vivd --listen, 7400 by default), or this port's WebSocket: --host "
             "ws://%s/ws", k ? "; it answered \"" : "", (int)k, (const char *)p, k ? "\"" : "", hostport);
}

/* The socket has bytes, or not within timeout_ms: read what it has into c->in. CLI_RECV_MSG (1)
 * read some, CLI_RECV_TIMEOUT, CLI_EPROTO (err says why). */
static int fill(cli_conn *c, int timeout_ms, char *err, size_t errlen)
{
    for (;;) {
        struct pollfd pfd = { c->fd, POLLIN, 0 };
        int pr = poll(&pfd, 1, timeout_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr < 0) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            return CLI_EPROTO;
        }
        if (pr == 0) return CLI_RECV_TIMEOUT;
        ssize_t k = recv(c->fd, c->in + c->inlen, c->incap - c->inlen, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            snprintf(err, errlen, "%s", k == 0 ? "the server closed the connection" : strerror(errno));
            return CLI_EPROTO;
        }
        c->inlen += (size_t)k;
        c->bytes_in += (uint64_t)k;
        return CLI_RECV_MSG;
    }
}

/* cli_recv over WebSocket: the next binary message; pings answered, pongs skipped; a close frame
 * or a text message ends the connection with a sentence. */
static int recv_ws(cli_conn *c, int timeout_ms, const uint8_t **body, size_t *len, char *err,
                   size_t errlen)
{
    /* The message handed out last may point into in[]: only now may the read bytes go. */
    memmove(c->in, c->in + c->wsoff, c->inlen - c->wsoff);
    c->inlen -= c->wsoff;
    c->wsoff = 0;
    for (;;) {
        const uint8_t *p = c->in + c->wsoff;
        size_t n = c->inlen - c->wsoff;
        cli_ws_event ev;
        int rc = n ? cli_ws_read(&c->wr, &p, &n, &ev, err, errlen) : 0;
        c->wsoff = c->inlen - n;
        if (rc < 0) return CLI_EPROTO;
        if (rc == 1) {
            if (ev.op == CLI_WS_BIN) {
                *body = ev.p;
                *len = ev.n;
                return CLI_RECV_MSG;
            }
            if (ev.op == CLI_WS_PING) {
                if (ws_send_frame(c, CLI_WS_PONG, ev.p, ev.n) != CLI_OK) {
                    snprintf(err, errlen, "sending a pong failed: %s", strerror(errno));
                    return CLI_EPROTO;
                }
                continue;
            }
            if (ev.op == CLI_WS_CLOSE) {
                const char *why;
                size_t wl;
                int code = cli_ws_close_status(&ev, &why, &wl);
                snprintf(err, errlen, "the server closed the WebSocket (%d%s%.*s)", code, wl ? ": " : "",
                         (int)wl, why);
                return CLI_EPROTO;
            }
            if (ev.op == CLI_WS_TEXT) {
                snprintf(err, errlen, "the server sent a text message; vivd's messages are binary");
                return CLI_EPROTO;
            }
            continue;                                   /* a pong */
        }
        /* Every byte is read (a cut frame is kept by the reader): room for more. */
        c->inlen = c->wsoff = 0;
        if (in_reserve(c, 65536) != 0) {
            snprintf(err, errlen, "out of memory");
            return CLI_EPROTO;
        }
        int f = fill(c, timeout_ms, err, errlen);
        if (f != CLI_RECV_MSG) return f;
    }
}

int cli_recv(cli_conn *c, int timeout_ms, const uint8_t **body, size_t *len, char *err,
             size_t errlen)
{
    if (c->ws) return recv_ws(c, timeout_ms, body, len, err, errlen);
    if (c->consumed) {                       /* drop the message handed out last time */
        memmove(c->in, c->in + c->consumed, c->inlen - c->consumed);
        c->inlen -= c->consumed;
        c->consumed = 0;
    }
    for (;;) {
        uint32_t n;
        int split = cli_msg_split(c->in, c->inlen, &n);
        if (split == CLI_EPROTO && n == CLI_LEN_HTTP) {
            cli_http_port_say(c->addr[0] ? c->addr : "the server", c->in, c->inlen, err, errlen);
            return CLI_EPROTO;
        }
        if (split == CLI_EPROTO) {
            snprintf(err, errlen, "server sent a message length of %u bytes", n);
            return CLI_EPROTO;
        }
        if (split == CLI_RECV_MSG) {
            *body = c->in + 4;
            *len = n;
            c->consumed = 4 + (size_t)n;
            return CLI_RECV_MSG;
        }
        if (n && c->incap < 4 + (size_t)n) {
            uint8_t *p = realloc(c->in, 4 + (size_t)n);
            if (!p) {
                snprintf(err, errlen, "out of memory");
                return CLI_EPROTO;
            }
            c->in = p;
            c->incap = 4 + (size_t)n;
        }
        if (c->incap - c->inlen < 65536) {
            size_t nc = c->incap * 2 > c->inlen + 65536 ? c->incap * 2 : c->inlen + 65536;
            uint8_t *p = realloc(c->in, nc);
            if (!p) {
                snprintf(err, errlen, "out of memory");
                return CLI_EPROTO;
            }
            c->in = p;
            c->incap = nc;
        }
        int f = fill(c, timeout_ms, err, errlen);
        if (f != CLI_RECV_MSG) return f;
    }
}

int cli_recv_msg(cli_conn *c, int timeout_ms, wire_msg *m, char *err, size_t errlen)
{
    const uint8_t *body;
    size_t len;
    int rc = cli_recv(c, timeout_ms, &body, &len, err, errlen);
    if (rc != CLI_RECV_MSG) return rc;
    int d = wire_msg_decode(body, len, m);
    if (d) {
        snprintf(err, errlen, "server sent malformed msgpack: %s", sim_strerror(d));
        return CLI_EPROTO;
    }
    return CLI_RECV_MSG;
}

int cli_hello(cli_conn *c, const char *name, const char *token, wire_msg *welcome, char *err,
              size_t errlen)
{
    wire_buf b;
    wire_buf_init(&b);
    cli_put_hello(&b, name, token);
    int rc = cli_send(c, &b);
    wire_buf_free(&b);
    if (rc) {
        snprintf(err, errlen, "sending hello failed: %s", strerror(errno));
        return CLI_EPROTO;
    }
    rc = cli_recv_msg(c, 10000, welcome, err, errlen);
    if (rc == CLI_RECV_TIMEOUT) snprintf(err, errlen, "no welcome within 10 s");
    if (rc != CLI_RECV_MSG) return CLI_EPROTO;
    if (cli_msg_is(welcome, "error")) {
        cli_error e;
        cli_error_read(welcome, "?", &e);
        snprintf(err, errlen, "refused: %.*s: %.*s", (int)e.code_len, e.code, (int)e.msg_len, e.msg);
        return CLI_EPROTO;
    }
    if (!cli_msg_is(welcome, "welcome")) {
        snprintf(err, errlen, "expected welcome");
        return CLI_EPROTO;
    }
    return CLI_OK;
}

void cli_frame_free(cli_frame *cf)
{
    wire_frame_in_free(cf);
}

int cli_frame_apply(cli_frame *cf, const wire_msg *m, char *err, size_t errlen)
{
    return wire_frame_apply(cf, m, err, errlen);
}
