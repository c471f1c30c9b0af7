#!/usr/bin/env bash
# Runs a command (the test suite) and fails when it left anything new of this user's in the
# system's temporary folder: the tests keep their files in TMPDIR, a folder of the build.
# Hidden entries (a browser's or launcher's session folders) are the tools' own.
#
#   scripts/leaves-nothing.sh COMMAND [ARGS...]
set -uo pipefail
tmp=/tmp
entries() { find "$tmp" -mindepth 1 -maxdepth 1 -user "$(id -u)" ! -name '.*' -printf '%f\n' 2> /dev/null | sort; }
before=$(entries)
"$@"
status=$?
new=$(comm -13 <(printf '%s\n' "$before") <(entries) | sed '/^$/d')
if [[ -n $new ]]; then
    echo "leaves-nothing: the tests left these in $tmp (a test's files belong in \$TMPDIR):" >&2
    sed 's/^/  /' <<< "$new" >&2
    [[ $status == 0 ]] && status=1
fi
exit $status
