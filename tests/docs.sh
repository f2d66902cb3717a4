#!/bin/sh
# docs.sh — every relative link of the project's Markdown resolves: README.md, docs/*.md and the
# other *.md files of the tree ([text](path) and [text](path#anchor); web addresses are not
# followed), and every mention of ARCHITECTURE.md in the sources names the project's own map,
# docs/ARCHITECTURE.md, which must exist. Before the real check it runs on a probe with a broken
# link, which it must catch.
#
# usage: sh tests/docs.sh   (from anywhere; make test-docs)
set -eu
cd "$(dirname "$0")/.."
status=0
fail() { echo "docs: $*" >&2; status=1; }

# links FILE: the relative link targets of a Markdown file, one a line (anchor and title cut).
links() {
    grep -o '\]([^)]*)' "$1" | sed 's/^](//; s/)$//; s/ .*//; s/#.*//' \
        | grep -Ev '^(https?:|mailto:|$)' || true
}
# broken FILE: the links of FILE that name nothing, printed.
broken() {
    dir=$(dirname "$1")
    links "$1" | while read -r t; do [ -e "$dir/$t" ] || echo "  $1: $t"; done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '# probe\n[ok](probe.md) and [gone](no/such/file.md#x) and [web](https://example.org/)\n' > "$tmp/probe.md"
out=$(broken "$tmp/probe.md")
echo "$out" | grep -q "no/such/file.md" || fail "negative control: a broken link passed (got: $out)"
echo "$out" | grep -q "probe.md$" && fail "negative control: a good link was refused (got: $out)"

[ -f docs/ARCHITECTURE.md ] || fail "docs/ARCHITECTURE.md, the project's map, is missing"
n=0
for f in $(git ls-files '*.md' 2>/dev/null || find . -name '*.md' -not -path './node_modules/*'); do
    case "$f" in */node_modules/*|clients/web/vendor/*) continue ;; esac
    out=$(broken "$f")
    [ -n "$out" ] && { fail "links to nothing:"; echo "$out" >&2; }
    n=$((n + 1))
done
# A mention of ARCHITECTURE.md outside docs/ must say where it is.
bad=$(git grep -n 'ARCHITECTURE\.md' -- . ':!docs/' ':!tests/docs.sh' 2>/dev/null | grep -v 'docs/ARCHITECTURE\.md' || true)
[ -n "$bad" ] && { fail "mentions of ARCHITECTURE.md that do not name docs/ARCHITECTURE.md:"; echo "$bad" >&2; }
[ $status -eq 0 ] && echo "docs: ok ($n Markdown files, every relative link resolves; ARCHITECTURE.md is docs/ARCHITECTURE.md)"
exit $status
