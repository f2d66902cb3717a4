/* art_text.c — the fruit-merge world's text (issue 14 §3): a 3×5 font drawn with a one-pixel
 * MERGE_C_OUTLINE ring so it reads on any background, at any integer scale. See art.h for the
 * contract. */
#include <string.h>
#include "art_int.h"

/* ---- text ------------------------------------------------------------------------------------ */
/* 3×5 glyphs, one row a 3-bit number (bit 2 = left column). */
typedef struct glyph { char ch; uint8_t rows[5]; } glyph;
static const glyph font[] = {
    { '0', { 7, 5, 5, 5, 7 } }, { '1', { 2, 6, 2, 2, 7 } }, { '2', { 7, 1, 7, 4, 7 } },
    { '3', { 7, 1, 3, 1, 7 } }, { '4', { 5, 5, 7, 1, 1 } }, { '5', { 7, 4, 7, 1, 7 } },
    { '6', { 7, 4, 7, 5, 7 } }, { '7', { 7, 1, 2, 2, 2 } }, { '8', { 7, 5, 7, 5, 7 } },
    { '9', { 7, 5, 7, 1, 7 } },
    { 'A', { 2, 5, 7, 5, 5 } }, { 'B', { 6, 5, 6, 5, 6 } }, { 'C', { 3, 4, 4, 4, 3 } },
    { 'D', { 6, 5, 5, 5, 6 } }, { 'E', { 7, 4, 6, 4, 7 } }, { 'F', { 7, 4, 6, 4, 4 } },
    { 'G', { 3, 4, 5, 5, 3 } }, { 'H', { 5, 5, 7, 5, 5 } }, { 'I', { 7, 2, 2, 2, 7 } },
    { 'J', { 1, 1, 1, 5, 2 } }, { 'K', { 5, 5, 6, 5, 5 } }, { 'L', { 4, 4, 4, 4, 7 } },
    { 'M', { 5, 7, 7, 5, 5 } }, { 'N', { 6, 5, 5, 5, 5 } }, { 'O', { 2, 5, 5, 5, 2 } },
    { 'P', { 6, 5, 6, 4, 4 } }, { 'Q', { 2, 5, 5, 6, 3 } }, { 'R', { 6, 5, 6, 5, 5 } },
    { 'S', { 3, 4, 2, 1, 6 } }, { 'T', { 7, 2, 2, 2, 2 } }, { 'U', { 5, 5, 5, 5, 7 } },
    { 'V', { 5, 5, 5, 5, 2 } }, { 'W', { 5, 5, 7, 7, 5 } }, { 'X', { 5, 5, 2, 5, 5 } },
    { 'Y', { 5, 5, 2, 2, 2 } }, { 'Z', { 7, 1, 2, 4, 7 } },
    { '.', { 0, 0, 0, 0, 2 } }, { ',', { 0, 0, 0, 2, 4 } }, { ':', { 0, 2, 0, 2, 0 } },
    { '!', { 2, 2, 2, 0, 2 } }, { '-', { 0, 0, 7, 0, 0 } }, { '+', { 0, 2, 7, 2, 0 } },
    { '/', { 1, 1, 2, 4, 4 } }, { 'x', { 0, 5, 2, 5, 0 } },
};

static const uint8_t *glyph_rows(char ch)
{
    if (ch >= 'a' && ch <= 'z' && ch != 'x')
        ch = (char)(ch - 'a' + 'A');
    for (size_t i = 0; i < sizeof font / sizeof font[0]; i++)
        if (font[i].ch == ch)
            return font[i].rows;
    return NULL;
}

int sim__merge_text_width(const char *text, int scale)
{
    if (scale < 1)
        scale = 1;
    size_t n = text ? strlen(text) : 0;
    return n ? (int)n * MERGE_GLYPH_ADV * scale - scale : 0;
}

int sim__merge_draw_text_scaled(sim_frame *f, const merge_art *a, int x, int y, const char *text,
                                uint8_t colour, int scale)
{
    (void)a;
    if (scale < 1)
        scale = 1;
    if (!f || !f->px || !text)
        return 0;
    /* two passes: the ring under every glyph first, so a neighbour's ring never cuts a glyph */
    for (int pass = 0; pass < 2; pass++) {
        int gx = x;
        for (const char *p = text; *p; p++, gx += MERGE_GLYPH_ADV * scale) {
            const uint8_t *rows = glyph_rows(*p);
            if (!rows)
                continue;
            for (int j = 0; j < MERGE_GLYPH_H; j++)
                for (int i = 0; i < MERGE_GLYPH_W; i++) {
                    if (!(rows[j] >> (MERGE_GLYPH_W - 1 - i) & 1))
                        continue;
                    int x0 = gx + i * scale, y0 = y + j * scale;
                    if (pass == 0) {
                        for (int yy = y0 - 1; yy <= y0 + scale; yy++)
                            for (int xx = x0 - 1; xx <= x0 + scale; xx++)
                                sim__merge_px_put(f, xx, yy, MERGE_C_OUTLINE);
                    } else {
                        for (int yy = y0; yy < y0 + scale; yy++)
                            for (int xx = x0; xx < x0 + scale; xx++)
                                sim__merge_px_put(f, xx, yy, colour);
                    }
                }
        }
    }
    return sim__merge_text_width(text, scale);
}

int sim__merge_draw_text(sim_frame *f, const merge_art *a, int x, int y, const char *text,
                         uint8_t colour)
{
    return sim__merge_draw_text_scaled(f, a, x, y, text, colour, 1);
}
