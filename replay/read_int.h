/* read_int.h — what replay/read.c shares with the readers split from it (read_hashes.c): the
 * one way a query's rows are read, and the tick columns' checks. Not a public header. */
#ifndef VIV_REPLAY_READ_INT_H
#define VIV_REPLAY_READ_INT_H
#include <sqlite3.h>
#include "read.h"

/* One query of the file: its SQL, the int64s bound to its ? in order, and what to do with a row.
 * row fills `one` (an element of `size` bytes, or ud itself when the rows are not kept) from the
 * row, or refuses it with a negative code and a sentence in err, which ends the query. */
typedef struct query {
    const char *sql;
    int64_t bind[3];
    int nbind;
    const char *what;                  /* "…: reading <what> failed: <SQLite's reason>" */
    const char *oom;                   /* the sentence when the array cannot grow */
    size_t size;
    int (*row)(sqlite3_stmt *st, void *one, void *ud, char *err, size_t errlen);
    void *ud;
} query;

/* Run q: prepare, bind, step every row, hand each to q->row, and append what it filled to *v, a
 * malloc'd array grown as needed (v NULL: each row fills q->ud, and they are only counted). 0,
 * or a negative code with a sentence and nothing in *v. */
int rd_query_rows(rpl_file *f, const query *q, void **v, size_t *n, char *err, size_t errlen);
/* *v (n elements of size, *cap of room) with room for one more. 0, or RPL_ENOMEM. */
int rd_grow(void **v, size_t *cap, size_t n, size_t size);
/* A tick as bound: u64 stored as the i64 with the same bits, clamped to what a row can hold. */
int64_t rd_tick_arg(uint64_t t);
/* A tick column as the recorder writes it (an integer, not negative): 0, or -1. */
int rd_tick_col(sqlite3_stmt *st, int col, uint64_t *out);
#endif
