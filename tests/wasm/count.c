/* count.c — a test instrument linked only into build/wasm/vivarium-count.wasm (wasm/wasm.mk): the
 * module's calls to malloc, calloc, realloc and free go through these wrappers (wasm-ld --wrap), so
 * tests/wasm/api.test.mjs can read how many there were around a step, a render, a hash and a save,
 * and see that they allocate nothing. The counter is the one mutable global, and it lives in this
 * test build alone: the page's module (bin/vivarium.wasm) has neither it nor the wrappers. */
#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
unsigned vwt_heap_calls(void);

static unsigned heap_calls;

__attribute__((export_name("vwt_heap_calls"))) unsigned vwt_heap_calls(void) { return heap_calls; }

void *__wrap_malloc(size_t n)
{
    heap_calls++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    heap_calls++;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    heap_calls++;
    return __real_realloc(p, n);
}

void __wrap_free(void *p)
{
    if (p) heap_calls++;
    __real_free(p);
}
