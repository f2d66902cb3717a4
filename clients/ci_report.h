/* ci_report.h — reports for CI systems (issue 31): JUnit XML, the schema Jenkins, GitLab and
 * GitHub read as test results, written by `viv replay verify --junit` (a testcase per session)
 * and `viv fuzz --junit` (a testcase per fuzz session); and the escaping of any text, bytes from a
 * file included, into XML and JSON that parsers accept.
 *
 * The file is
 *   <testsuites><testsuite name tests failures errors skipped time timestamp>
 *     <testcase classname name time>[<failure message type>text</failure> | <error …>…</error>]
 *   </testsuite></testsuites>
 * Every case is kept in memory and the file written whole at the end, since the suite's counts
 * come first; it goes to FILE.tmp, created when the report is opened (so a FILE that cannot be
 * written is said before any work is done), and is renamed over FILE when complete: a CI job
 * never reads half a report.
 *
 * Text that XML 1.0 cannot carry at all, even as a character reference (C0 controls other than
 * tab, newline and carriage return, U+FFFE and U+FFFF, and bytes that are not UTF-8), is written
 * as U+FFFD; tab, newline and carriage return in attributes as &#9; &#10; &#13;, so that a
 * multi-line message survives the attribute-value normalisation of parsers. JSON strings escape
 * every control character (\n, \t, \u00XX) and write bytes that are not UTF-8 as U+FFFD.
 * stdio only: it is built into the minimal and cross builds of viv too (tests/cross.sh). */
#ifndef VIVARIUM_CI_REPORT_H
#define VIVARIUM_CI_REPORT_H
#include <stddef.h>
#include <stdio.h>

enum { CI_PASS, CI_FAIL, CI_ERROR };   /* a testcase's outcome: passed, <failure>, <error> */

typedef struct ci_junit ci_junit;

/* A report of one suite (name: what ran, e.g. "viv replay verify run.db") to be written to path.
 * FILE.tmp is created now. NULL with a sentence in err. */
ci_junit *ci_junit_open(const char *path, const char *suite, char *err, size_t errlen);
/* One testcase. outcome CI_FAIL or CI_ERROR carries message (the attribute: a line or a few) and
 * text (the element's body: the whole report; NULL for none), and type (what kind of failure or
 * error: "desync", "damaged", …). Copies everything. 0, or -1 out of memory (close says so). */
int ci_junit_case(ci_junit *j, const char *classname, const char *name, double seconds, int outcome,
                  const char *type, const char *message, const char *text);
/* The report written to FILE.tmp and renamed over FILE; seconds: the suite's wall time. Frees j.
 * 0, or -1 with a sentence in err (FILE.tmp removed, FILE untouched). */
int ci_junit_close(ci_junit *j, double seconds, char *err, size_t errlen);

/* The report given up: FILE.tmp removed, FILE untouched, j freed (NULL: nothing). */
void ci_junit_discard(ci_junit *j);

/* s as XML character data (attr 0) or as an attribute value's content (attr 1: quotes and
 * tab/newline/carriage return escaped too), without surrounding quotes. */
void ci_xml_text(FILE *fp, const char *s, int attr);
/* s as a JSON string, quotes included. */
void ci_json_str(FILE *fp, const char *s);

/* The length of the valid UTF-8 sequence at s (1..4), or 0 when the byte at s does not start one
 * (a stray continuation byte, an overlong form, a surrogate, a code point above U+10FFFF, or a
 * sequence cut short). *cp gets the code point. s is NUL-terminated. */
int ci_utf8_len(const unsigned char *s, unsigned long *cp);

/* The first lines of a desync report, as a CI's message should show them: its first line, its
 * second (the first divergent tick, or what else failed) and the lines indented under that one
 * (the hashes), up to the next section (the inputs, the diff); at most max_lines lines, into out
 * (NUL-terminated, no trailing newline). */
void ci_first_lines(const char *report, int max_lines, char *out, size_t cap);

#endif
