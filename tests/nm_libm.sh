#!/bin/sh
# The sim library must not call any libm transcendental (their results differ between libm
# versions and architectures). Lists the undefined symbols of the library with nm and fails on any
# of them, in double, float or long double form (sqrt is allowed: IEEE 754 rounds it correctly).
# A negative control first proves the check can fail.
set -eu
lib=${1:?usage: nm_libm.sh path/to/libsim.a}
names='sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|exp|exp2|exp10|expm1|log|log2|log10|log1p|logb|pow|pow10|cbrt|hypot|erf|erfc|tgamma|lgamma|sincos|j0|j1|jn|y0|y1|yn|ldexp|frexp|scalbn|fmod|remainder|nearbyint|rint|lrint|round|lround|floor|ceil|trunc'
pattern="^(__)?($names)(f|l)?(_finite)?(@.*)?$"

bad_syms() {
    nm -u "$1" 2>/dev/null | awk '{print $NF}' | grep -E "$pattern" | sort -u || true
}

# Negative control: an object that calls sinf and exp must be caught.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/bad.c" <<'C'
#include <math.h>
float f(float x);
double g(double x);
float f(float x) { return sinf(x); }
double g(double x) { return exp(x); }
C
${CC:-cc} -O2 -c "$tmp/bad.c" -o "$tmp/bad.o"
caught=$(bad_syms "$tmp/bad.o" | tr '\n' ' ')
case "$caught" in
    *sinf*exp*|*exp*sinf*) ;;
    *) echo "nm_libm: the negative control was not caught (got: '$caught'); the check is broken" >&2
       exit 1 ;;
esac

found=$(bad_syms "$lib")
if [ -n "$found" ]; then
    echo "nm_libm: $lib calls libm functions that are not deterministic across machines:" >&2
    echo "$found" | sed 's/^/  /' >&2
    echo "use sim/dmath.c (sim_sin, sim_cos, sim_atan2, sim_acos, sim_exp, sim_floor) instead" >&2
    exit 1
fi
echo "nm_libm: ok: $(nm -u "$lib" | awk '{print $NF}' | sort -u | wc -l) undefined symbols in $lib, none from libm's transcendentals"
