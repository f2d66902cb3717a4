/* errors.c — sim_strerror: the sentence of any code of errors.h, whichever folder's it is. It
 * lives in the core because every layer may include sim/ and none may include the layers above
 * it: so one function can know every code (libuv's uv_strerror), and the core still calls nothing
 * of theirs (the list holds numbers and sentences only). */
#include "sim.h"

const char *sim_strerror(int err)
{
    switch (err) {
    case 0: return "ok";
    /* One case per code: two codes with one value would not compile. */
#define SIM_ERROR_RANGE(first, last, prefix)
#define SIM_ERROR(name, value, sentence) case name: return sentence;
#include "errors.h"
#undef SIM_ERROR
#undef SIM_ERROR_RANGE
    default: return "unknown error";
    }
}
