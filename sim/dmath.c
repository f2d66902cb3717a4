/* dmath.c — deterministic math for the core: sin, cos, atan2, acos, exp, sqrt, cbrt, floor,
 * isfinite.
 *
 * Everything here is built from + − × ÷ and sqrt on doubles, each of which IEEE 754 rounds
 * correctly, so the same input gives the same bits under every compiler, optimisation level and
 * machine that honours -ffp-contract=off and FLT_EVAL_METHOD == 0. No libm is called: libm
 * transcendentals differ between glibc versions, musl and macOS in the last bit, and one bit is
 * enough to fork a replay.
 *
 * The coefficients are derived, not borrowed: Taylor terms 1/n! and 1/(2n+1), and constants (π/2
 * in pieces, ln 2 in two, atan(i/32)) rounded from 400-bit values. They are written as hex floats
 * so the bits in the binary are the bits on the page.
 *
 * NaN policy: a NaN argument comes back unchanged (no arithmetic touches it, so its bits survive on
 * every machine); a NaN made here (sin(inf), acos(2), sqrt(-1)) is always 0x7ff8000000000000,
 * where hardware would give a sign that differs between x86-64 and aarch64. */
#include "sim_internal.h"

/* ---- bits ------------------------------------------------------------------------------------ */
static uint64_t dm_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double dm_from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static double dm_fabs(double x) { return dm_from_bits(dm_bits(x) & ~(UINT64_C(1) << 63)); }
static int dm_signbit(double x) { return (int)(dm_bits(x) >> 63); }
static int dm_isnan(double x)
{
    return (dm_bits(x) & ~(UINT64_C(1) << 63)) > UINT64_C(0x7ff0000000000000);
}
static double dm_nan(void) { return dm_from_bits(UINT64_C(0x7ff8000000000000)); }
static double dm_inf(void) { return dm_from_bits(UINT64_C(0x7ff0000000000000)); }

/* 2^k as a double, for -1022 ≤ k ≤ 1023 (normal numbers only). */
static double dm_pow2(int k) { return dm_from_bits((uint64_t)(k + 1023) << 52); }

/* Nearest integer, halves away from zero, for |t| < 2^62. A tie either way is harmless to every
 * caller: it only picks which of two equally good reductions is used. */
static double dm_round(double t)
{
    return (double)(int64_t)(t + (t < 0.0 ? -0.5 : 0.5));
}

/* s + err == a + b exactly (Knuth's TwoSum: no precondition on the magnitudes). */
static void dm_two_sum(double a, double b, double *s, double *err)
{
    double sum = a + b;
    double bb = sum - a;
    *err = (a - (sum - bb)) + (b - bb);
    *s = sum;
}

/* ---- sin, cos -------------------------------------------------------------------------------- */
/* π/2 = P1 + P2 + P3 + P4 to about 160 bits. P1..P3 carry 33 significant bits each, so k·Pi is
 * exact for any k with at most 20 significant bits; P4 is the rounded rest. */
static const double PIO2_1 = 0x1.921fb544p+0;
static const double PIO2_2 = 0x1.0b4611a6p-34;
static const double PIO2_3 = 0x1.3198a2ep-69;
static const double PIO2_4 = 0x1.b839a252049c1p-104;
static const double TWO_OVER_PI = 0x1.45f306dc9c883p-1;
static const double PIO4 = 0x1.921fb54442d18p-1;

/* (hi, lo) −= k·π/2, with hi + lo kept as an unevaluated double-double. k must have at most 20
 * significant bits and be 0 or put k·π/2 within a factor of two of hi, so that hi − k·P1 is exact
 * (Sterbenz) and only the far-below-ulp tail is ever rounded. */
static void dm_sub_kpio2(double *hi, double *lo, double k)
{
    double a = *hi - k * PIO2_1;
    double b, e1, c, e2;
    dm_two_sum(a, -(k * PIO2_2), &b, &e1);
    dm_two_sum(b, -(k * PIO2_3), &c, &e2);
    double tail = ((*lo + e1) + e2) - k * PIO2_4;
    dm_two_sum(c, tail, hi, lo);
}

/* Cody–Waite reduction: returns q and sets hi + lo ≈ x − q·π/2 with |hi| ≲ π/4, for finite x.
 * For |x| < 2^20·π/2 one step does it, and the reduced angle keeps ~100 good bits even next to a
 * multiple of π/2. Larger x is peeled 19 bits at a time with k truncated to 20 significant bits;
 * the double-double carries ~2^-105 relative to each intermediate, so the reduced angle is off by
 * ~|x|·2^-125 (measured): below an ulp of 1 up to |x| ≈ 2^70, noise (but still an angle) past
 * 2^120. At most ~55 steps, for DBL_MAX. */
static unsigned dm_reduce(double x, double *rhi, double *rlo)
{
    double hi = x, lo = 0.0;
    unsigned q = 0;
    for (;;) {
        double t = hi * TWO_OVER_PI;
        if (dm_fabs(t) < 0x1p20) {
            double k = dm_round(t);
            dm_sub_kpio2(&hi, &lo, k);
            q += (unsigned)((uint64_t)(int64_t)k & 3u);
            break;
        }
        /* Chop t toward zero to 20 significant bits: k·π/2 then stays within 2^-19 of hi. */
        double k = dm_from_bits(dm_bits(t) & ~((UINT64_C(1) << 33) - 1));
        dm_sub_kpio2(&hi, &lo, k);
        /* Past 2^22 such a k is a multiple of 4 and turns nothing. */
        if (dm_fabs(k) < 0x1p22) q += (unsigned)((uint64_t)(int64_t)k & 3u);
    }
    *rhi = hi;
    *rlo = lo;
    return q & 3u;
}

/* Taylor coefficients: S[n] = (−1)^n / (2n+3)!, C[n] = (−1)^n / (2n+4)!. On |r| ≤ π/4 the first
 * dropped terms (r^19/19!, r^18/18!) are below 2^-62 relative. */
static const double S3 = -0x1.5555555555555p-3;   /* −1/3!  */
static const double S5 = 0x1.1111111111111p-7;    /*  1/5!  */
static const double S7 = -0x1.a01a01a01a01ap-13;  /* −1/7!  */
static const double S9 = 0x1.71de3a556c734p-19;   /*  1/9!  */
static const double S11 = -0x1.ae64567f544e4p-26; /* −1/11! */
static const double S13 = 0x1.6124613a86d09p-33;  /*  1/13! */
static const double S15 = -0x1.ae7f3e733b81fp-41; /* −1/15! */
static const double S17 = 0x1.952c77030ad4ap-49;  /*  1/17! */

static const double C4 = 0x1.5555555555555p-5;    /*  1/4!  */
static const double C6 = -0x1.6c16c16c16c17p-10;  /* −1/6!  */
static const double C8 = 0x1.a01a01a01a01ap-16;   /*  1/8!  */
static const double C10 = -0x1.27e4fb7789f5cp-22; /* −1/10! */
static const double C12 = 0x1.1eed8eff8d898p-29;  /*  1/12! */
static const double C14 = -0x1.93974a8c07c9dp-37; /* −1/14! */
static const double C16 = 0x1.ae7f3e733b81fp-45;  /*  1/16! */

/* sin(hi + lo) for |hi| ≲ π/4, |lo| ≤ ulp(hi). The leading hi is added last so every rounding
 * before it is scaled down by the ratio of the correction to hi (≤ 0.11): < 1 ulp overall. */
static double dm_sin_kernel(double hi, double lo)
{
    double z = hi * hi;
    double p = S17;
    p = p * z + S15;
    p = p * z + S13;
    p = p * z + S11;
    p = p * z + S9;
    p = p * z + S7;
    p = p * z + S5;
    p = p * z + S3;
    /* lo·cos(hi) ≈ lo·(1 − z/2): the next term is far below an ulp. */
    return hi + ((hi * z) * p + lo * (1.0 - 0.5 * z));
}

/* cos(hi + lo) for |hi| ≲ π/4, |lo| ≤ ulp(hi). */
static double dm_cos_kernel(double hi, double lo)
{
    double z = hi * hi;
    double p = C16;
    p = p * z + C14;
    p = p * z + C12;
    p = p * z + C10;
    p = p * z + C8;
    p = p * z + C6;
    p = p * z + C4;
    double h = 0.5 * z;
    double w = 1.0 - h;
    /* h reaches 0.31, so 1 − h loses bits; (1 − w) − h recovers that rounding error exactly
     * (both subtractions are Sterbenz-exact) and it rejoins the small terms. */
    return w + (((1.0 - w) - h) + ((z * z) * p - hi * lo));
}

/* sin(x) in [-1, 1]. Within 0.8 ulp of the true value for |x| < 2^50 (worst measured 0.77), next
 * to multiples of π too, where the result is tiny. Past that the absolute error grows as |x|·2^-125
 * (see dm_reduce), but the result is always finite and in [-1, 1]. sin(±0) = ±0; ±inf gives NaN. */
double sim_sin(double x)
{
    double ax = dm_fabs(x);
    if (ax < 0x1p-27) return x;   /* x³/6 is below half an ulp of x; keeps the sign of −0 */
    if (ax <= PIO4) return dm_sin_kernel(x, 0.0);
    if (dm_isnan(x)) return x;
    if (!sim_isfinite(x)) return dm_nan();
    double hi, lo;
    switch (dm_reduce(x, &hi, &lo)) {
    case 0: return dm_sin_kernel(hi, lo);
    case 1: return dm_cos_kernel(hi, lo);
    case 2: return -dm_sin_kernel(hi, lo);
    default: return -dm_cos_kernel(hi, lo);
    }
}

/* cos(x) in [-1, 1]; same accuracy and range behaviour as sim_sin (worst measured 0.76 ulp).
 * cos(±0) = 1 exactly. */
double sim_cos(double x)
{
    double ax = dm_fabs(x);
    if (ax < 0x1p-27) return 1.0; /* x²/2 is below half an ulp of 1 */
    if (ax <= PIO4) return dm_cos_kernel(x, 0.0);
    if (dm_isnan(x)) return x;
    if (!sim_isfinite(x)) return dm_nan();
    double hi, lo;
    switch (dm_reduce(x, &hi, &lo)) {
    case 0: return dm_cos_kernel(hi, lo);
    case 1: return -dm_sin_kernel(hi, lo);
    case 2: return -dm_cos_kernel(hi, lo);
    default: return dm_sin_kernel(hi, lo);
    }
}

/* ---- atan2, acos ----------------------------------------------------------------------------- */
/* Multiples of π/4 as hi + lo pairs (lo is the rounded rest). */
static const double PI_HI = 0x1.921fb54442d18p+1;
static const double PI_LO = 0x1.1a62633145c07p-53;
static const double PIO2_HI = 0x1.921fb54442d18p+0;
static const double PIO2_LO = 0x1.1a62633145c07p-54;
static const double PIO4_HI = 0x1.921fb54442d18p-1;
static const double PI3O4_HI = 0x1.2d97c7f3321d2p+1;

/* atan(i/32) for i = 4..32, as hi + lo (index i − 4). Below 1/8 the series alone converges fast
 * enough; above it, breakpoints every 1/32 keep the reduced argument within 1/64, so its rounding
 * errors reach the result shrunk at least eightfold. */
static const double ATAN_HI[29] = {
    0x1.fd5ba9aac2f6ep-4, 0x1.3d6eee8c6626cp-3, 0x1.7b97b4bce5b02p-3, 0x1.b90d7529260a2p-3,
    0x1.f5b75f92c80ddp-3, 0x1.18bf5a30bf178p-2, 0x1.362773707ebccp-2, 0x1.530ad9951cd4ap-2,
    0x1.6f61941e4def1p-2, 0x1.8b24d394a1b25p-2, 0x1.a64eec3cc23fdp-2, 0x1.c0db4c94ec9f0p-2,
    0x1.dac670561bb4fp-2, 0x1.f40dd0b541418p-2, 0x1.0657e94db30d0p-1, 0x1.1255d9bfbd2a9p-1,
    0x1.1e00babdefeb4p-1, 0x1.2958e59308e31p-1, 0x1.345f01cce37bbp-1, 0x1.3f13fb89e96f4p-1,
    0x1.4978fa3269ee1p-1, 0x1.538f57b89061fp-1, 0x1.5d58987169b18p-1, 0x1.66d663923e087p-1,
    0x1.700a7c5784634p-1, 0x1.78f6bbd5d315ep-1, 0x1.819d0b7158a4dp-1, 0x1.89ff5ff57f1f8p-1,
    0x1.921fb54442d18p-1,
};
static const double ATAN_LO[29] = {
    -0x1.cd37686760c17p-59, 0x1.61a3b0ce9281bp-57, 0x1.347b0b4f881cap-58, 0x1.17b10d2e0e5abp-61,
    0x1.8ab6e3cf7afbdp-57, 0x1.30ca4748b1bf9p-57, -0x1.963a544b672d8p-57, -0x1.2566480884082p-57,
    -0x1.c63aae6f6e918p-56, 0x1.b6d0ba3748fa8p-56, -0x1.24dec1b50b7ffp-56, -0x1.cc1ce70934c34p-56,
    0x1.a2b7f222f65e2p-56, -0x1.a3992dc382a23p-57, -0x1.d5b495f6349e6p-56, -0x1.2bdaee1c0ee35p-58,
    -0x1.928df287a668fp-58, -0x1.09e73b0c6c087p-56, 0x1.1021137c71102p-55, 0x1.ecf8b492644f0p-56,
    0x1.2419a87f2a458p-56, -0x1.1bb74abda520cp-55, 0x1.0028e4bc5e7cap-57, -0x1.6ea6febe8bbbap-56,
    -0x1.8c34d25aadef6p-56, 0x1.406a089803740p-55, -0x1.bf76229d3b917p-56, -0x1.55b9a5e177a1bp-55,
    0x1.1a62633145c07p-55,
};

/* Taylor coefficients (−1)^n / (2n+1) of atan. On |u| ≤ 1/8 the first dropped term, u^19/19, is
 * below 2^-58 relative. */
static const double A3 = -0x1.5555555555555p-2;  /* −1/3  */
static const double A5 = 0x1.999999999999ap-3;   /*  1/5  */
static const double A7 = -0x1.2492492492492p-3;  /* −1/7  */
static const double A9 = 0x1.c71c71c71c71cp-4;   /*  1/9  */
static const double A11 = -0x1.745d1745d1746p-4; /* −1/11 */
static const double A13 = 0x1.3b13b13b13b14p-4;  /*  1/13 */
static const double A15 = -0x1.1111111111111p-4; /* −1/15 */
static const double A17 = 0x1.e1e1e1e1e1e1ep-5;  /*  1/17 */

/* atan(u + lo) for |u| ≤ 1/8, |lo| ≤ ulp(u): the correction rides with the small terms, so the
 * leading u is the only thing rounded at full size. */
static double dm_atan_series(double u, double lo)
{
    double z = u * u;
    double p = A17;
    p = p * z + A15;
    p = p * z + A13;
    p = p * z + A11;
    p = p * z + A9;
    p = p * z + A7;
    p = p * z + A5;
    p = p * z + A3;
    return u + ((u * z) * p + lo * (1.0 - z));
}

/* Veltkamp split: a = hi + lo with at most 26 significant bits in each, so a product of halves is
 * exact. Needs |a| < 2^996 (a·(2^27 + 1) must not overflow). */
static void dm_split(double a, double *hi, double *lo)
{
    double p = a * 134217729.0;   /* 2^27 + 1 */
    double h = p - (p - a);
    *hi = h;
    *lo = a - h;
}

/* The rounding error of t = n/d (0 < n ≤ d finite, t ≥ 2^-27): n/d − t, to ~2^-53 relative.
 * Dekker's exact product gives n − t·d exactly (the remainder of a division is representable). */
static double dm_div_err(double n, double d, double t)
{
    /* Scale both by a power of two (exact) so the split cannot overflow and the partial products
     * cannot fall into the subnormals; t ≥ 2^-27 ties n to d, so one test each side suffices. */
    if (d > 0x1p512) {
        n *= 0x1p-600;
        d *= 0x1p-600;
    } else if (n < 0x1p-512) {
        n *= 0x1p600;
        d *= 0x1p600;
    }
    double t1, t2, d1, d2;
    dm_split(t, &t1, &t2);
    dm_split(d, &d1, &d2);
    double p = t * d;
    double e = ((t1 * d1 - p) + t1 * d2 + t2 * d1) + t2 * d2;   /* t·d = p + e exactly */
    return ((n - p) - e) / d;                                   /* n − p is exact (Sterbenz) */
}

/* atan2 for finite ay, ax > 0; xneg says x was negative. The angle is base ± atan(t) with
 * t = min/max ≤ 1, and atan(t) = atan(c) + atan((t − c)/(1 + t·c)) with c the nearest i/32.
 * t carries its division error along; dropped, it alone would cost up to an ulp. */
static double dm_atan2_pos(double ay, double ax, int xneg)
{
    int swap = ay > ax;
    double n = swap ? ax : ay, d = swap ? ay : ax;
    double t = n / d;                      /* in [0, 1]; may underflow, never overflows */
    double t_lo = t < 0x1p-27 ? 0.0 : dm_div_err(n, d, t);   /* tiny t: atan(t) rounds to t */
    double a_hi = 0.0, a_lo = 0.0, poly;
    if (t <= 0.125) {
        poly = dm_atan_series(t, t_lo);
    } else {
        int i = (int)(t * 32.0 + 0.5);
        double c = (double)i * 0x1p-5;
        /* t − c is exact (Sterbenz); t_lo·c in the denominator is far below what matters. */
        poly = dm_atan_series(((t - c) + t_lo) / (1.0 + t * c), 0.0);
        a_hi = ATAN_HI[i - 4];
        a_lo = ATAN_LO[i - 4];
    }

    /* Fold the quadrant in as base + sign·atan(t), summing the big parts with TwoSum so the only
     * rounding that reaches the result whole is the last addition. */
    double base_hi = 0.0, base_lo = 0.0, sign = 1.0;
    if (swap) {
        base_hi = PIO2_HI;
        base_lo = PIO2_LO;
        sign = xneg ? 1.0 : -1.0;
    } else if (xneg) {
        base_hi = PI_HI;
        base_lo = PI_LO;
        sign = -1.0;
    }
    double s, err;
    dm_two_sum(base_hi, sign * a_hi, &s, &err);
    return s + (err + (base_lo + sign * (a_lo + poly)));
}

/* atan2(y, x) in [−π, π], the angle of the point (x, y), with C99 Annex F's special cases:
 * atan2(±0, +0) = ±0, atan2(±0, −0) = ±π, atan2(±y, ±0) = ±π/2 for y ≠ 0, atan2(±0, x<0) = ±π,
 * and the infinite cases (±π/4, ±3π/4, ±0, ±π). Within 0.7 ulp of the true value for finite
 * arguments (worst measured 0.65). A NaN argument is returned unchanged (y's if both are NaN). */
double sim_atan2(double y, double x)
{
    if (dm_isnan(y)) return y;
    if (dm_isnan(x)) return x;
    int xneg = dm_signbit(x);
    double ay = dm_fabs(y), ax = dm_fabs(x);
    double r;
    if (ay == 0.0) r = xneg ? PI_HI : 0.0;
    else if (ax == 0.0) r = PIO2_HI;
    else if (!sim_isfinite(ax) && !sim_isfinite(ay)) r = xneg ? PI3O4_HI : PIO4_HI;
    else if (!sim_isfinite(ax)) r = xneg ? PI_HI : 0.0;
    else if (!sim_isfinite(ay)) r = PIO2_HI;
    else r = dm_atan2_pos(ay, ax, xneg);
    return dm_signbit(y) ? -r : r;
}

/* acos(x) in [0, π] for x in [−1, 1]; NaN outside. acos(1) = +0 and acos(−1) = π (the double
 * nearest π) exactly. Within 1.5 ulp (worst measured 1.46, just below 1). The angle is
 * atan2(√(1 − x²), x) with 1 − x² formed as (1 − x)(1 + x), so it keeps its bits near ±1, where
 * one factor is exact; the rounding of the other, of the product and of the root is what remains,
 * and near 1 it passes straight into the small result. */
double sim_acos(double x)
{
    if (dm_isnan(x)) return x;
    if (!(x >= -1.0 && x <= 1.0)) return dm_nan();
    return sim_atan2(sim_sqrt((1.0 - x) * (1.0 + x)), x);
}

/* ---- exp ------------------------------------------------------------------------------------- */
/* ln 2 = LN2_HI + LN2_LO; LN2_HI has 38 significant bits so k·LN2_HI is exact for |k| < 2^15. */
static const double LN2_HI = 0x1.62e42fefa38p-1;
static const double LN2_LO = 0x1.ef35793c7673p-45;
static const double INV_LN2 = 0x1.71547652b82fep+0;
/* Past these, exp rounds to +inf (e^709.79 > DBL_MAX) or to 0 (e^-745.14 < 2^-1075, half the
 * smallest subnormal). Between them the scaling below produces inf, subnormals and 0 itself. */
static const double EXP_OVER = 709.79;
static const double EXP_UNDER = -745.14;

/* Taylor coefficients 1/n! of e^r for n = 2..13. On |r| ≤ ln2/2 the first dropped term, r^14/14!,
 * is below 2^-57. */
static const double E2 = 0x1p-1;
static const double E3 = 0x1.5555555555555p-3;
static const double E4 = 0x1.5555555555555p-5;
static const double E5 = 0x1.1111111111111p-7;
static const double E6 = 0x1.6c16c16c16c17p-10;
static const double E7 = 0x1.a01a01a01a01ap-13;
static const double E8 = 0x1.a01a01a01a01ap-16;
static const double E9 = 0x1.71de3a556c734p-19;
static const double E10 = 0x1.27e4fb7789f5cp-22;
static const double E11 = 0x1.ae64567f544e4p-26;
static const double E12 = 0x1.1eed8eff8d898p-29;
static const double E13 = 0x1.6124613a86d09p-33;

/* e^x. Within 0.7 ulp for normal results (worst measured 0.67); exp(±0) = 1 exactly; +inf when
 * the result overflows (x > ~709.78), gradual underflow through the subnormals, +0 below ~−745.13;
 * exp(+inf) = +inf, exp(−inf) = +0. */
double sim_exp(double x)
{
    if (dm_isnan(x)) return x;
    if (x > EXP_OVER) return dm_inf();
    if (x < EXP_UNDER) return 0.0;
    /* x = k·ln2 + r, |r| ≤ ln2/2. */
    double kd = dm_round(x * INV_LN2);
    int k = (int)kd;
    double hi = x - kd * LN2_HI;             /* exact: k·LN2_HI is exact and close to x */
    double lo = kd * LN2_LO;
    double r = hi - lo;
    double rerr = (hi - r) - lo;             /* what r lost; e^(r + rerr) ≈ e^r + rerr */
    double p = E13;
    p = p * r + E12;
    p = p * r + E11;
    p = p * r + E10;
    p = p * r + E9;
    p = p * r + E8;
    p = p * r + E7;
    p = p * r + E6;
    p = p * r + E5;
    p = p * r + E4;
    p = p * r + E3;
    p = p * r + E2;
    /* 1 + r carries its rounding error into the small terms, so y is rounded once, at the end. */
    double one_r = 1.0 + r;
    double one_r_err = (1.0 - one_r) + r;    /* exact: |r| < 1 */
    double y = one_r + (one_r_err + (rerr + (r * r) * p));
    /* y·2^k with y in [0.7, 1.42]. 2^1024 and 2^k below 2^-1022 are not normal doubles, so those
     * ends scale in two steps; the first step is exact, so only the second rounds (to inf, or to a
     * subnormal, once). */
    if (k > 1023) return (y * dm_pow2(1023)) * 2.0;
    if (k < -1022) return (y * dm_pow2(k + 1000)) * dm_pow2(-1000);
    return y * dm_pow2(k);
}

/* ---- sqrt, floor, isfinite ------------------------------------------------------------------- */
/* √x, correctly rounded (IEEE 754 requires it of the hardware instruction, which -fno-math-errno
 * lets the compiler inline). sqrt(−0) = −0, sqrt(+inf) = +inf; x < 0 gives the canonical NaN. */
double sim_sqrt(double x)
{
    if (dm_isnan(x)) return x;
    if (x < 0.0) return dm_nan();
    return __builtin_sqrt(x);
}

/* ∛x, within 0.51 ulp (worst measured 0.500, tests/check_dmath.c). Exact for perfect cubes and
 * for powers of 8 (∛27 = 3, ∛(1/8) = 1/2); odd: ∛(−x) = −∛x; ±0, ±inf and NaN come back unchanged.
 * OKLab (sim/anim/inks.c) needs it, and libm's cbrt is not on the core's allow-list.
 * x = t·2^(3q) with t in [1, 8), so ∛x = ∛t·2^q; ∛t comes from a linear guess and Newton's
 * y ← y − (y³ − t)/(3y²), a fixed number of times (the guess is within 13%, and each step squares
 * the error: five steps reach the last bit), then one step in the corrected form y + (t − y³)/(3y²)
 * with y³ taken exactly as a double-double, so the last rounding is the only one that matters. */
double sim_cbrt(double x)
{
    if (dm_isnan(x) || x == 0.0 || !sim_isfinite(x)) return x;
    int neg = dm_signbit(x);
    double a = dm_fabs(x);
    int bias = 0;
    if (a < 0x1p-1022) {                     /* subnormal: scale into the normals, exactly */
        a *= 0x1p54;
        bias = -18;
    }
    int e = (int)((dm_bits(a) >> 52) & 0x7ff) - 1023;
    int q = e >= 0 ? e / 3 : -((-e + 2) / 3);  /* floor(e / 3) */
    int r = e - 3 * q;                         /* 0, 1 or 2 */
    double t = dm_from_bits((dm_bits(a) & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1023) << 52));
    t *= (double)(1 << r);                     /* exact: t in [1, 8) */
    double y = 0.72 + 0.17 * t;                /* ∛t within 13% on [1, 8) */
    for (int i = 0; i < 5; i++) y = y - (y * y * y - t) / (3.0 * y * y);
    /* y² and y³ as exact double-doubles (Dekker's product), so t − y³ carries no rounding. */
    double yh, yl;
    dm_split(y, &yh, &yl);
    double y2 = y * y;
    double y2e = ((yh * yh - y2) + 2.0 * yh * yl) + yl * yl;
    double y2h, y2l;
    dm_split(y2, &y2h, &y2l);
    double y3 = y2 * y;
    double y3e = ((((y2h * yh - y3) + y2h * yl) + y2l * yh) + y2l * yl) + y2e * y;
    y = y + ((t - y3) - y3e) / (3.0 * y2);
    double out = y * dm_pow2(q + bias);
    return neg ? -out : out;
}

/* The largest integer ≤ x. Exact for every double: |x| ≥ 2^52 is already an integer and comes back
 * unchanged, as do ±0, ±inf and NaN; −0.5 gives −1, +0.5 gives +0. */
double sim_floor(double x)
{
    if (!(dm_fabs(x) < 0x1p52) || x == 0.0) return x;
    double d = (double)(int64_t)x;          /* toward zero, exact below 2^52 */
    return d > x ? d - 1.0 : d;
}

/* 1 if x is neither infinite nor NaN, else 0. Reads the exponent bits, so no compiler flag can
 * fold it away. */
int sim_isfinite(double x)
{
    return ((dm_bits(x) >> 52) & 0x7ffu) != 0x7ffu;
}
