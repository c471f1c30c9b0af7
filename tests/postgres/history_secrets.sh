#!/usr/bin/env bash
# A password in --db is never shown: every `vitals history` subcommand and `run --history`
# against a real server (tests/postgres/with-server.sh gives VITALS_TEST_POSTGRESQL),
# with the password in a parameter and in the user part, and every line they print and
# every file they write searched for it.
#
#   tests/postgres/with-server.sh tests/postgres/history_secrets.sh VITALS WORK_DIR
set -uo pipefail
vitals=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
secret=S3cret-pw
uri=${VITALS_TEST_POSTGRESQL:?run me through tests/postgres/with-server.sh}
# postgresql:///postgres?host=H&port=P&user=U: the same login with a password in the user part.
query=${uri#*\?}
user=$(sed -n 's/.*user=\([^&]*\).*/\1/p' <<< "$query")
in_user_part="postgresql://$user:$secret@/postgres?${query}"
in_parameter="$uri&password=$secret"
failed=0
check() {  # check NAME: nothing of NAME's output holds the secret
    if grep -q -- "$secret" "$1".out "$1".err; then
        echo "FAILED: $1 shows the password:"
        cat "$1".out "$1".err
        failed=1
    fi
}
# run --history takes its commit from git.
git init -q . && git -c user.email=ci@example.org -c user.name=ci commit -q --allow-empty -m measured ||
    { echo "FAILED: cannot make a git repository"; exit 1; }
"$vitals" run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.01 --json run.json > /dev/null 2>&1 ||
    { echo "FAILED: cannot make a results file"; exit 1; }
for form in user parameter; do
    [[ $form == user ]] && db=$in_user_part || db=$in_parameter
    "$vitals" history add run.json --db "$db" --commit "c-$form" --branch main --time 2026-12-01T00:00:00Z > add-$form.out 2> add-$form.err
    grep -q "recorded in postgresql://" add-$form.out || { echo "FAILED: add ($form): $(cat add-$form.out add-$form.err)"; failed=1; }
    check add-$form
    "$vitals" history show --db "$db" > show-$form.out 2> show-$form.err
    check show-$form
    "$vitals" history show 'no-such-case' --db "$db" > none-$form.out 2> none-$form.err
    grep -q "^no results of cases matching 'no-such-case' in postgresql://" none-$form.out ||
        { echo "FAILED: show of no case ($form): $(cat none-$form.out)"; failed=1; }
    check none-$form
    "$vitals" history check --commit no-such-commit --db "$db" > check-$form.out 2> check-$form.err
    grep -q "has no run of commit no-such-commit" check-$form.err || { echo "FAILED: check ($form): $(cat check-$form.err)"; failed=1; }
    check check-$form
    "$vitals" history report --db "$db" --html report-$form.html > report-$form.out 2> report-$form.err
    cat report-$form.html >> report-$form.out
    grep -q "<title>vitals history: postgresql://" report-$form.out || { echo "FAILED: report ($form)"; failed=1; }
    check report-$form
    "$vitals" run --filter '^relu/32x1024/cpu-f32$' --min-run-time 0.01 --history "$db" > run-$form.out 2> run-$form.err
    # The second form's run is refused (the commit has its result): that message is checked too.
    [[ $form == parameter ]] || grep -q "recorded in postgresql://" run-$form.err ||
        { echo "FAILED: run --history ($form): $(cat run-$form.err)"; failed=1; }
    check run-$form
done
# A refused login: libpq's message names the user, never the password.
refused="postgresql://vitals_no_such_role:$secret@/postgres?${query/user=$user/user=vitals_no_such_role}"
"$vitals" history show --db "$refused" > refused.out 2> refused.err
grep -q "cannot connect to the history" refused.err || { echo "FAILED: a refused login: $(cat refused.err)"; failed=1; }
check refused
[[ $failed == 0 ]] && echo "no password shown in $(ls ./*.out | wc -l) commands' output"
exit $failed
