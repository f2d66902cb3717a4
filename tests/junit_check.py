"""junit_check.py FILE [checks…] — parse a JUnit XML report with xml.etree.ElementTree (the
reading Jenkins, GitLab and GitHub's reporters do) and check it (tests/reports.sh).

Always: the root is <testsuites> holding one <testsuite>; every <testcase> has a classname, a
name and a time that is a number, and at most one <failure> or <error>, which has a message and
a type; the counts of the suite (and of the root) are those of its testcases.
Checks:
  --tests N, --failures N, --errors N   the number of testcases, failures, errors
  --case 'NAME=pass'                    the testcase NAME exists and passed
  --case 'NAME=failure:TYPE:TEXT'       ... has a <failure> of that type whose message holds TEXT
  --case 'NAME=error:TYPE:TEXT'         ... the same for an <error>
  --case-prefix P                       a testcase's name starts with P
  --message-has S / --message-lacks S   some failure or error message holds S / none does
  --text-has S                          some failure or error text holds S
Exit 0, or 1 with what is wrong."""
import re
import sys
import xml.etree.ElementTree as ET


def problem(msg):
    sys.exit("junit_check: %s: %s" % (sys.argv[1], msg))


def outcome_of(case):
    bad = [e for e in case if e.tag in ("failure", "error")]
    if len(bad) > 1:
        problem("testcase %r has %d failures/errors" % (case.get("name"), len(bad)))
    return bad[0] if bad else None


def check_structure(root):
    if root.tag != "testsuites":
        problem("the root is <%s>, not <testsuites>" % root.tag)
    suites = root.findall("testsuite")
    if len(suites) != 1:
        problem("%d testsuites, wanted 1" % len(suites))
    suite = suites[0]
    cases = suite.findall("testcase")
    for c in cases:
        for attr in ("classname", "name", "time"):
            if c.get(attr) is None:
                problem("a testcase without %s" % attr)
        float(c.get("time"))
        bad = outcome_of(c)
        if bad is not None and (bad.get("message") is None or bad.get("type") is None):
            problem("testcase %r: a <%s> without message or type" % (c.get("name"), bad.tag))
    counts = {"tests": len(cases),
              "failures": sum(1 for c in cases if (outcome_of(c) is not None and outcome_of(c).tag == "failure")),
              "errors": sum(1 for c in cases if (outcome_of(c) is not None and outcome_of(c).tag == "error"))}
    for el in (root, suite):
        for k, v in counts.items():
            if el.get(k) != str(v):
                problem("<%s %s=%r> but it holds %d" % (el.tag, k, el.get(k), v))
    float(suite.get("time"))
    return cases, counts


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    try:
        root = ET.parse(args[0]).getroot()
    except (ET.ParseError, OSError) as e:
        problem("does not parse: %s" % e)
    cases, counts = check_structure(root)
    byname = {c.get("name"): c for c in cases}
    bads = [outcome_of(c) for c in cases if outcome_of(c) is not None]
    i = 1
    while i < len(args):
        opt, val = args[i], args[i + 1]
        i += 2
        if opt in ("--tests", "--failures", "--errors"):
            if counts[opt[2:]] != int(val):
                problem("%d %s, wanted %s" % (counts[opt[2:]], opt[2:], val))
        elif opt == "--case":
            m = re.match(r"^(.*)=(pass|failure|error)(?::([^:]*):(.*))?$", val, re.S)
            if not m:
                problem("bad --case %r" % val)
            name, want, typ, text = m.groups()
            if name not in byname:
                problem("no testcase %r (there are %r)" % (name, list(byname)))
            bad = outcome_of(byname[name])
            if want == "pass":
                if bad is not None:
                    problem("testcase %r has a <%s>: %r" % (name, bad.tag, bad.get("message")))
                continue
            if bad is None or bad.tag != want:
                problem("testcase %r: wanted a <%s>, got %r" % (name, want, None if bad is None else bad.tag))
            if bad.get("type") != typ:
                problem("testcase %r: type %r, wanted %r" % (name, bad.get("type"), typ))
            if text not in bad.get("message"):
                problem("testcase %r: the message lacks %r: %r" % (name, text, bad.get("message")))
        elif opt == "--case-prefix":
            if not any(n.startswith(val) for n in byname):
                problem("no testcase starts with %r (there are %r)" % (val, list(byname)))
        elif opt == "--message-has":
            if not any(val in b.get("message") for b in bads):
                problem("no message holds %r: %r" % (val, [b.get("message") for b in bads]))
        elif opt == "--message-lacks":
            if any(val in b.get("message") for b in bads):
                problem("a message holds %r" % val)
        elif opt == "--text-has":
            if not any(val in (b.text or "") for b in bads):
                problem("no failure or error text holds %r" % val)
        else:
            problem("unknown check %s" % opt)


main()
