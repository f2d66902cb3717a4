/* opt.h — options as data: one table per program of {name, argument, help, setter}, from which
 * the parsing, the option lines of --help and the error sentences all come (git's
 * parse-options.h; getopt_long).
 *
 * A program (vivd, each viv subcommand) describes itself once, as an opt_prog: the name its
 * messages start with, its table of options, and the prose of its --help above and below the
 * option lines. opt_parse walks argv in order and calls each option's setter with its value:
 * the stock setters store a string, a flag or a number; a program's own setter checks a value
 * and says what is wrong with it in the program's words. The sentences for what the table alone
 * can tell are the same for every program:
 *
 *     vivd: unknown option '--x' (see vivd --help)
 *     viv sim: --ticks needs a value (see viv sim --help)
 *
 * Rules, as every program had them before the table: an option is an argument that starts with
 * '-' and is not "-" alone; its value is always the next argument, even one that starts with '-'
 * (vivd --admin-token -x); there is no --name=value form and no "--" end of options; options
 * apply in the order given, so the first bad one stops the parse, and --help (or -h) prints the
 * help when it is reached. Every program also takes --list-options, not shown in its help: the
 * table as one line per option, `NAME value|flag shown|hidden`, for scripts and tests (as git's
 * --git-completion-helper).
 *
 * Layering: opt/ is libc alone; server/ and clients/ may use it (tests/layers.sh). */
#ifndef VIVARIUM_OPT_H
#define VIVARIUM_OPT_H
#include <stdint.h>
#include <stdio.h>

typedef struct opt opt;
typedef struct opt_prog opt_prog;

/* What opt_parse and the setters return. */
enum {
    OPT_OK = 0,         /* go on */
    OPT_DONE = 1,       /* what was asked for is printed (--help, --version): exit 0 */
    OPT_BAD = 2         /* bad usage, the message is printed: exit 2 */
};
/* The exit status of a parse that did not return OPT_OK. */
#define OPT_EXIT(rc) ((rc) == OPT_DONE ? 0 : 2)

/* A setter: store `value` (NULL for a flag) through o->ptr. OPT_OK, or OPT_DONE, or OPT_BAD
 * after printing one line to stderr that starts with p->who. */
typedef int (*opt_setter)(const opt_prog *p, const opt *o, const char *value);

struct opt {
    const char *name;   /* "--listen", "-o"; NULL ends the table */
    const char *arg;    /* the value's name in --help ("HOST:PORT"); NULL: a flag, no value */
    const char *help;   /* its text in --help, lines split at '\n'; NULL: not shown (an alias,
                           a test hook) */
    opt_setter set;     /* NULL: a row for --help alone, another form of the option above */
    void *ptr;          /* what the setter writes */
    long min, max;      /* opt_long's range; opt_flag's value is min */
    int mode;           /* taken only when the program parses in this mode (0 unless a program
                           has modes: viv fuzz's --merge rows are mode 1) */
};

struct opt_prog {
    const char *who;    /* what every message starts with: "vivd", "viv replay verify" */
    const char *see;    /* the program whose --help the sentences name; NULL: who */
    const opt *opts;    /* the table, ended by a row without a name */
    int column;         /* where the text of an option starts in --help */
    void (*head)(FILE *out);   /* --help above the option lines: usage and description */
    void (*tail)(FILE *out);   /* --help below them, or NULL */
    /* A non-option argument (a file), or NULL: one is refused as an unknown option. OPT_OK, or
     * OPT_BAD after a message. */
    int (*operand)(const opt_prog *p, const char *arg);
    void *ud;           /* the operand callback's state */
    int mode;           /* the rows of this mode are taken, the others are unknown options */
};

/* Parse argv[1..argc-1] against p's table, calling the setters in order. OPT_OK, or OPT_DONE
 * (--help or a setter printed what was asked), or OPT_BAD (a message on stderr). */
int opt_parse(const opt_prog *p, int argc, char **argv);

/* The whole --help: head, one entry per shown option (its name and argument, then its help text
 * from p->column on, continued lines indented to the column), tail. */
void opt_help(const opt_prog *p, FILE *out);

/* The stock setters. */
int opt_str(const opt_prog *p, const opt *o, const char *value);   /* const char ** */
int opt_flag(const opt_prog *p, const opt *o, const char *value);  /* int *: set to o->min */
int opt_u64(const opt_prog *p, const opt *o, const char *value);   /* uint64_t * */
int opt_long(const opt_prog *p, const opt *o, const char *value);  /* long *, in o->min..o->max */

/* The numbers of the stock setters, for a program's own setters. A non-negative integer
 * (strtoull base 0: 0x10 is 16) or an integer in min..max; 0, or -1 after printing
 * `<who>: <flag> needs a non-negative integer, got '<s>'` or `… needs an integer in MIN..MAX, …`. */
int opt_parse_u64(const char *who, const char *flag, const char *s, uint64_t *out);
int opt_parse_long(const char *who, const char *flag, const char *s, long min, long max, long *out);

/* Rows. The pointer's type is checked: OPT_STR wants a const char **, OPT_FLAG an int *, OPT_U64
 * a uint64_t *, OPT_LONG a long *. */
#define OPT_STR(n, a, var, h) \
    { .name = (n), .arg = (a), .help = (h), .set = opt_str, .ptr = (1 ? (var) : (const char **)0) }
#define OPT_FLAG(n, var, h) \
    { .name = (n), .help = (h), .set = opt_flag, .ptr = (1 ? (var) : (int *)0), .min = 1 }
#define OPT_SET(n, var, value, h) \
    { .name = (n), .help = (h), .set = opt_flag, .ptr = (1 ? (var) : (int *)0), .min = (value) }
#define OPT_U64(n, a, var, h) \
    { .name = (n), .arg = (a), .help = (h), .set = opt_u64, .ptr = (1 ? (var) : (uint64_t *)0) }
#define OPT_LONG(n, a, var, lo, hi, h) \
    { .name = (n), .arg = (a), .help = (h), .set = opt_long, .ptr = (1 ? (var) : (long *)0), \
      .min = (lo), .max = (hi) }
/* A program's own setter fn, writing through ptr (a = NULL: a flag). */
#define OPT_CALL(n, a, fn, p, h) { .name = (n), .arg = (a), .help = (h), .set = (fn), .ptr = (p) }
/* Another form of the option above (bot's --host H:P,H:P,...): a --help entry, never parsed. */
#define OPT_FORM(n, a, h) { .name = (n), .arg = (a), .help = (h) }
#define OPT_END { .name = NULL }

/* The string of a number macro, for help texts: OPT_STRINGIFY(POOL_DEFAULT_MAX) is "8". */
#define OPT_STRINGIFY(x) OPT_STRINGIFY_(x)
#define OPT_STRINGIFY_(x) #x

#endif
