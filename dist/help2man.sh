#!/bin/sh
# help2man.sh PROGRAM --help|--version — what Debian's help2man reads to write PROGRAM's man
# page (dist/install.mk): PROGRAM's own --version as it is, and its own --help laid out as
# help2man expects, so that the page says exactly what the program says and cannot drift:
#   - the usage lines become help2man's synopsis ("Usage: ...", then "   or: ..." for each
#     alternative), each wrapped line joined to the one it continues;
#   - an option list gets an "Options:" line (help2man's OPTIONS section), and text after it
#     "*Notes*" (a NOTES section);
#   - a program whose usage names a <command> (viv, viv replay) gets one section per command,
#     "*viv sim*" and so on, with that command's --help (its usage lines go to the synopsis).
# usage: help2man -N -o vivd.1 "sh dist/help2man.sh bin/vivd"
set -eu
prog=${1:?usage: help2man.sh PROGRAM --help|--version}
case "${2:-}" in
    --version) exec "$prog" --version ;;
    --help) ;;
    *) echo "usage: help2man.sh PROGRAM --help|--version" >&2; exit 2 ;;
esac
name=$(basename "$prog")

# The usage block (from "usage:" to the first blank line) of a help text on stdin, one
# alternative a line, without "usage:", a trailing "    (see ...)" note or the line breaks.
usages() {
    awk '
        /^usage: / { on = 1; sub(/^usage: */, ""); line = $0; next }
        on && /^$/ { exit }
        on && /^ +[^ [(]/ && $1 == first { print line; line = $0; sub(/^ +/, "", line); next }
        on { sub(/^ +/, " "); line = line $0 }
        END { if (line != "") print line }
    ' first="$1" | sed 's/  *([^)]*)$//; s/ *$//'
}

# The help text on stdin after its usage block.
body() {
    awk 'seen { print; next } /^usage: / { u = 1 } u && /^$/ { seen = 1 }'
}

# The commands a lister's help text on stdin names ("  sim      run a world ..."), one a line.
commands() {
    sed -n 's/^  \([a-z][a-z]*\)   *[^ -].*/\1/p'
}

# The synopsis lines of "$@ --help" and of its commands, when it names a <command>.
synopsis() {
    help=$("$@" --help)
    printf '%s\n' "$help" | usages "$name"
    case "$(printf '%s\n' "$help" | head -n 1)" in
        *"<command>"*)
            for c in $(printf '%s\n' "$help" | commands); do synopsis "$@" "$c"; done ;;
    esac
}

# "$@"'s own --help after its usage, as a section per command (below the program itself).
sections() {
    help=$("$@" --help)
    shift
    printf '\n*%s*\n\n' "$name $*"
    printf '%s\n' "$help" | body
    case "$(printf '%s\n' "$help" | head -n 1)" in
        *"<command>"*)
            for c in $(printf '%s\n' "$help" | commands); do sections "$prog" "$@" "$c"; done ;;
    esac
}

synopsis "$prog" | awk 'NR == 1 { print "Usage: " $0; next } { print "   or: " $0 }'
echo
help=$("$prog" --help)
# Options, then notes: the first option line after a blank line opens the options, the first
# unindented paragraph after them the notes.
printf '%s\n' "$help" | body | awk '
    state == 0 && blank && /^  *-/ { print "Options:"; state = 1 }
    state == 1 && blank && /^[^ ]/ { print "*Notes*"; print ""; state = 2 }
    { blank = /^$/; print }
'
case "$(printf '%s\n' "$help" | head -n 1)" in
    *"<command>"*)
        for c in $(printf '%s\n' "$help" | commands); do sections "$prog" "$c"; done ;;
esac
