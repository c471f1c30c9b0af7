#!/usr/bin/env bash
# Runs a command against a PostgreSQL server of its own: initdb into a temporary folder,
# the server on a Unix socket there (no TCP port), started as an unprivileged user (the
# postgres user when run as root), stopped and removed at the end whatever happens.
# The command gets the server's URI in VITALS_TEST_POSTGRESQL.
#
#   tests/postgres/with-server.sh COMMAND [ARGS...]
#
# Exit status: the command's; 77 (skipped) when Debian's postgresql package is not
# installed, unless VITALS_REQUIRE_OUTSIDE_TOOLS=1 (make test), which makes that a failure.
set -uo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [[ -z $bin || ! -x $bin/initdb || ! -x $bin/pg_ctl ]]; then
    echo "with-server: PostgreSQL is not installed (Debian: postgresql)" >&2
    [[ ${VITALS_REQUIRE_OUTSIDE_TOOLS:-0} == 1 ]] && exit 1
    exit 77
fi
work=$(mktemp -d /tmp/vitals-pg.XXXXXX)
as_user=()
user=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
    # initdb refuses root: the server runs as the postgres user the package created.
    id postgres > /dev/null 2>&1 || { echo "with-server: run as root, but there is no postgres user" >&2; exit 1; }
    chown postgres "$work"
    as_user=(runuser -u postgres --)
    user=postgres
fi
chmod 700 "$work"
stop() {
    "${as_user[@]}" "$bin/pg_ctl" -D "$work/data" -m immediate stop > /dev/null 2>&1
    rm -rf "$work"
}
trap stop EXIT
"${as_user[@]}" "$bin/initdb" -D "$work/data" -U "$user" -A trust --no-sync > "$work/initdb.log" 2>&1 ||
    { echo "with-server: initdb failed:" >&2; cat "$work/initdb.log" >&2; exit 1; }
port=$((20000 + RANDOM % 20000))
"${as_user[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$work' -p $port -c fsync=off" start > /dev/null ||
    { echo "with-server: the server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
export VITALS_TEST_POSTGRESQL="postgresql:///postgres?host=$work&port=$port&user=$user"
"$@"
