/* mmpx.c — the MMPX 2× magnifier (mmpx.h). */
#include "mmpx.h"

typedef struct img {
    const uint8_t *px;
    int w, h;
} img;

/* The source pixel at (x, y), the edges clamped. */
static uint8_t at(const img *s, int x, int y)
{
    x = x < 0 ? 0 : x >= s->w ? s->w - 1 : x;
    y = y < 0 ? 0 : y >= s->h ? s->h - 1 : y;
    return s->px[y * s->w + x];
}

static int all2(uint8_t v, uint8_t a, uint8_t b) { return v == a && v == b; }
static int all3(uint8_t v, uint8_t a, uint8_t b, uint8_t c) { return v == a && v == b && v == c; }
static int all4(uint8_t v, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    return v == a && v == b && v == c && v == d;
}
static int any3(uint8_t v, uint8_t a, uint8_t b, uint8_t c) { return v == a || v == b || v == c; }
static int none2(uint8_t v, uint8_t a, uint8_t b) { return v != a && v != b; }
static int none4(uint8_t v, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    return v != a && v != b && v != c && v != d;
}

int sim_mmpx_2x(const sim_frame *src, sim_frame *dst)
{
    if (!src || !dst || !src->px || !dst->px || src == dst || src->px == dst->px || src->w < 1 ||
        src->h < 1 || dst->w != 2 * src->w || dst->h != 2 * src->h)
        return SIM_EINVAL;
    dst->pal = src->pal;
    int luma[256];
    for (int i = 0; i < 256; i++)
        luma[i] = i < src->pal.count ? src->pal.rgb[3 * i] + src->pal.rgb[3 * i + 1] +
                                           src->pal.rgb[3 * i + 2] + 1
                                     : 1;
    img s = { src->px, src->w, src->h };
    int ow = dst->w;
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++) {
            uint8_t A = at(&s, x - 1, y - 1), B = at(&s, x, y - 1), C = at(&s, x + 1, y - 1);
            uint8_t D = at(&s, x - 1, y), E = at(&s, x, y), F = at(&s, x + 1, y);
            uint8_t G = at(&s, x - 1, y + 1), H = at(&s, x, y + 1), I = at(&s, x + 1, y + 1);
            uint8_t J = E, K = E, L = E, M = E;
            /* a pixel inside a flat area stays flat: the common case, and no rule can fire */
            if (!(all4(E, A, B, C, D) && all4(E, F, G, H, I))) {
                uint8_t P = at(&s, x, y - 2), S = at(&s, x, y + 2);
                uint8_t Q = at(&s, x - 2, y), R = at(&s, x + 2, y);
                int Bl = luma[B], Dl = luma[D], El = luma[E], Fl = luma[F], Hl = luma[H];

                /* 1:1 slopes */
                if (D == B && D != H && D != F && (El >= Dl || E == A) && any3(E, A, C, G) &&
                    (El < Dl || A != D || E != P || E != Q))
                    J = D;
                if (B == F && B != D && B != H && (El >= Bl || E == C) && any3(E, A, C, I) &&
                    (El < Bl || C != B || E != P || E != R))
                    K = B;
                if (H == D && H != F && H != B && (El >= Hl || E == G) && any3(E, A, G, I) &&
                    (El < Hl || G != H || E != S || E != Q))
                    L = H;
                if (F == H && F != B && F != D && (El >= Fl || E == I) && any3(E, C, G, I) &&
                    (El < Fl || I != H || E != R || E != S))
                    M = F;

                /* intersections: a one-pixel line across keeps its width */
                if (E != F && all4(E, C, I, D, Q) && all2(F, B, H) && F != at(&s, x + 3, y))
                    K = M = F;
                if (E != D && all4(E, A, G, F, R) && all2(D, B, H) && D != at(&s, x - 3, y))
                    J = L = D;
                if (E != H && all4(E, G, I, B, P) && all2(H, D, F) && H != at(&s, x, y + 3))
                    L = M = H;
                if (E != B && all4(E, A, C, H, S) && all2(B, D, F) && B != at(&s, x, y - 3))
                    J = K = B;
                if (Bl < El && all4(E, G, H, I, S) && none4(E, A, D, C, F)) J = K = B;
                if (Hl < El && all4(E, A, B, C, P) && none4(E, D, G, I, F)) L = M = H;
                if (Fl < El && all4(E, A, D, G, Q) && none4(E, B, C, I, H)) K = M = F;
                if (Dl < El && all4(E, C, F, I, R) && none4(E, B, A, G, H)) J = L = D;

                /* 2:1 slopes */
                if (H != B) {
                    if (H != A && H != E && H != C) {
                        if (all3(H, G, F, R) && none2(H, D, at(&s, x + 2, y - 1))) L = M;
                        if (all3(H, I, D, Q) && none2(H, F, at(&s, x - 2, y - 1))) M = L;
                    }
                    if (B != I && B != G && B != E) {
                        if (all3(B, A, F, R) && none2(B, D, at(&s, x + 2, y + 1))) J = K;
                        if (all3(B, C, D, Q) && none2(B, F, at(&s, x - 2, y + 1))) K = J;
                    }
                }
                if (F != D) {
                    if (D != I && D != E && D != C) {
                        if (all3(D, A, H, S) && none2(D, B, at(&s, x + 1, y + 2))) J = L;
                        if (all3(D, G, B, P) && none2(D, H, at(&s, x + 1, y - 2))) L = J;
                    }
                    if (F != E && F != A && F != G) {
                        if (all3(F, C, H, S) && none2(F, B, at(&s, x - 1, y + 2))) K = M;
                        if (all3(F, I, B, P) && none2(F, H, at(&s, x - 1, y - 2))) M = K;
                    }
                }
            }
            uint8_t *o = dst->px + (size_t)(2 * y) * ow + 2 * x;
            o[0] = J;
            o[1] = K;
            o[ow] = L;
            o[ow + 1] = M;
        }
    return 0;
}
