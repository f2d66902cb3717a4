/* hash_wide512.c — hash_wide.c's functions again, as srv__*_wide512, with AVX-512: on x86-64 the
 * Makefile compiles this file with -mavx512f, and hash.c calls it only on a CPU (and an OS) that
 * has AVX-512F. The values are XXH3's, as ever; a 384×256 rect of a 2048×1024 frame is hashed in
 * about 3.3 µs against AVX2's 5.8 on this project's EPYC (bench/RESULTS.md). Elsewhere this file
 * is the baseline build and is not called. */
#define SRV_WIDE(name) name##_wide512
#include "hash_wide.c"
