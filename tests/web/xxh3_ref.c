/* xxh3_ref.c — reference XXH3-64 values from the C library vivd links, for hash.test.mjs.
 *
 *   cc -O2 tests/web/xxh3_ref.c -o /tmp/xxh3_ref $(pkg-config --cflags --libs libxxhash) && /tmp/xxh3_ref
 *
 * prints JSON: XXH3_64bits of the first n bytes of a fixed pseudo-random pattern, for each n in
 * the list below (every length through 1100, which covers each short path, the long one's
 * partial stripes and its first block edge; every 13th length on to 2100; then block edges and
 * frame sizes). The pattern: s = 1, then for each byte
 * s = s·1103515245 + 12345 (mod 2^32) and the byte is s >> 23 (mod 256); hash.test.mjs makes the
 * same bytes. Committed as tests/web/fixtures/xxh3.json; the test also rebuilds it when cc and
 * libxxhash are there. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#define MAXLEN 131072

int main(void)
{
    static uint8_t buf[MAXLEN];
    uint32_t s = 1;
    for (size_t i = 0; i < MAXLEN; i++) {
        s = s * 1103515245u + 12345u;
        buf[i] = (uint8_t)(s >> 23);
    }
    static const size_t extra[] = { 2047, 2048, 2049, 2111, 3071, 3072, 3073, 4095, 4096, 4097, 8191, 8192, 8193,
                                    10240, 16384, 16385, 57606, 57600 + 774, 65536, 76806,
                                    100003, 131072 };
    printf("{\"pattern\": \"lcg1103515245\", \"hashes\": [\n");
    int first = 1;
    for (size_t n = 0; n <= 2100; n += n < 1100 ? 1 : 13) {
        printf("%s[%zu, \"%016llx\"]", first ? "" : ",\n", n, (unsigned long long)XXH3_64bits(buf, n));
        first = 0;
    }
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        printf(",\n[%zu, \"%016llx\"]", extra[i], (unsigned long long)XXH3_64bits(buf, extra[i]));
    printf("\n]}\n");
    return 0;
}
