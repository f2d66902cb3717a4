/* fuzz.h — shared by the libFuzzer targets in tests/fuzz/ (see README.md there).
 *
 * A target checks properties the code promises, not just "no crash": FUZZ_CHECK prints what
 * broke and aborts, and libFuzzer keeps the input as a crash artifact. Buffers handed to the code
 * under test are copied to exact-size heap blocks, so AddressSanitizer catches a read one byte
 * past the end (inside libFuzzer's own buffer, the next bytes of the input would hide it). */
#ifndef VIVARIUM_FUZZ_H
#define VIVARIUM_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: property violated: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

/* An exact-size heap copy (at least one byte allocated, so n = 0 is a valid empty block). */
static inline uint8_t *fuzz_dup(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    FUZZ_CHECK(q != NULL, "out of memory copying %zu bytes", n);
    if (n) memcpy(q, p, n);
    return q;
}

/* A NUL-terminated heap copy of p[0..n) (exactly n + 1 bytes). */
static inline char *fuzz_strdup(const uint8_t *p, size_t n)
{
    char *q = malloc(n + 1);
    FUZZ_CHECK(q != NULL, "out of memory copying %zu bytes", n);
    if (n) memcpy(q, p, n);
    q[n] = '\0';
    return q;
}

/* A sentence buffer must come back NUL-terminated within its capacity. */
static inline int fuzz_terminated(const char *s, size_t cap)
{
    return cap == 0 || memchr(s, '\0', cap) != NULL;
}

/* Whether name is one of the comma-separated words of list. */
static inline int fuzz_listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

#endif
