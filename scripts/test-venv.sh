#!/usr/bin/env bash
# Makes the test-only Python virtual environment that the outside checks run in
# (tests/outside/hta_check.py: Holistic Trace Analysis; conbench_check.py: Conbench's
# benchadapt):
#     scripts/test-venv.sh VENV_DIR [REQUIREMENTS]
# REQUIREMENTS defaults to tests/outside/requirements.txt: exact pins of those tools and of
# everything they import, installed with pip --no-deps --only-binary=:all: (see that file).
#
# Two ways, chosen by what the machine has:
#  - Debian's numpy and pandas (python3-numpy, python3-pandas; 1.24 and 1.5.3 on Debian 12,
#    which HTA 0.5.0 works with): a venv of /usr/bin/python3 with --system-site-packages,
#    and pip installs the pins except numpy, pandas and pandas' dependencies. About 19 MB
#    from PyPI (plotly is 15 of it), some 6 s.
#  - Otherwise, or when PYTHON names an interpreter: a plain venv of $PYTHON (default
#    python3 on PATH, 3.10 to 3.13) with every pin. About 49 MB from PyPI, some 25 s.
# Idempotent: when VENV_DIR was made the same way from the same file (a stamp holds a
# hash of both) and still imports HTA, it does nothing, in well under a second.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: $0 VENV_DIR [REQUIREMENTS]" >&2
    exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
venv=$1
requirements=${2:-$here/../tests/outside/requirements.txt}
if [[ ! -r "$requirements" ]]; then
    echo "test-venv: error: cannot read requirements file $requirements" >&2
    exit 1
fi

# Pins that Debian's python3-numpy and python3-pandas (with python3-dateutil, python3-tz,
# python3-six) stand in for.
debian_provided='numpy|pandas|python-dateutil|pytz|tzdata|six'
if [[ -z "${PYTHON:-}" ]] && [[ -x /usr/bin/python3 ]] && /usr/bin/python3 - 2>/dev/null <<'EOF'
import ensurepip, numpy, pandas
def version(module):
    return tuple(int(p) for p in module.__version__.split(".")[:2])
# HTA 0.5.0's own floors: numpy>=1.23.5, pandas>=1.5.2.
assert numpy.__file__.startswith("/usr/lib/python3/") and pandas.__file__.startswith("/usr/lib/python3/")
assert version(numpy) >= (1, 24) and version(pandas) >= (1, 5)
EOF
then
    mode=debian
    python=/usr/bin/python3
    venv_flags=(--system-site-packages)
else
    mode=wheels
    python=${PYTHON:-python3}
    venv_flags=()
fi
if ! command -v "$python" >/dev/null; then
    echo "test-venv: error: no Python interpreter '$python' (set PYTHON to one)" >&2
    exit 1
fi

mkdir -p "$venv"
venv=$(cd "$venv" && pwd)
stamp="$venv/.vitals-requirements.sha256"
want=$( (cat "$requirements"; echo "mode=$mode python=$python") | sha256sum | cut -d' ' -f1)

up_to_date() {
    [[ -x "$venv/bin/python" && -r "$stamp" && "$(cat "$stamp")" == "$want" ]] &&
        "$venv/bin/python" -c 'import hta, pandas, numpy, benchadapt' >/dev/null 2>&1
}

# Fast path, without the lock.
if up_to_date; then
    echo "test-venv: $venv is up to date ($mode)"
    exit 0
fi

# Two callers at once (ctest -j, two builds) must not install into one venv together.
# The lock file sits beside the venv: venv --clear empties the folder.
exec 9>"$venv.lock"
flock 9
if up_to_date; then
    echo "test-venv: $venv is up to date ($mode)"
    exit 0
fi

start=$(date +%s)
if [[ $mode == debian ]]; then
    echo "test-venv: creating $venv from $requirements with $("$python" --version 2>&1) and Debian's numpy and pandas"
else
    echo "test-venv: creating $venv from $requirements with $("$python" --version 2>&1) (wheels only; install python3-numpy and python3-pandas for a smaller download)"
fi
rm -f "$stamp"
if ! venv_error=$("$python" -m venv --clear "${venv_flags[@]}" "$venv" 2>&1); then
    echo "test-venv: error: '$python -m venv' failed (on Debian, the python3-venv package provides it):" >&2
    echo "$venv_error" >&2
    exit 1
fi

pins="$venv/requirements.txt"
if [[ $mode == debian ]]; then
    grep -viE "^($debian_provided)==" "$requirements" >"$pins"
else
    cp "$requirements" "$pins"
fi
log="$venv/pip-install.log"
if ! "$venv/bin/python" -m pip install --disable-pip-version-check --no-input \
        --no-deps --only-binary=:all: --no-compile -r "$pins" >"$log" 2>&1; then
    echo "test-venv: error: pip install -r $requirements failed; its last lines:" >&2
    tail -n 25 "$log" >&2
    if grep -qiE 'NewConnectionError|Temporary failure in name resolution|Network is unreachable|ConnectTimeout|ReadTimeout|ProxyError|SSLError|Connection refused' "$log"; then
        echo "test-venv: PyPI could not be reached (network, proxy or TLS); the full log is $log" >&2
    elif grep -q 'from versions: none' "$log"; then
        echo "test-venv: pip found no version at all of a pinned package: PyPI is likely unreachable, or pip is set to another index (PIP_INDEX_URL, 'pip config list'); the full log is $log" >&2
    elif grep -qiE 'Could not find a version|No matching distribution' "$log"; then
        echo "test-venv: a pinned version has no wheel for $("$venv/bin/python" --version 2>&1) on this platform: change the pin, or run with PYTHON=python3.11; the full log is $log" >&2
    else
        echo "test-venv: the full log is $log" >&2
    fi
    exit 1
fi
if ! import_error=$("$venv/bin/python" -c 'import hta, pandas, numpy; import hta.trace_analysis, hta.trace_diff
from benchadapt.adapters import GoogleBenchmarkAdapter' 2>&1); then
    echo "test-venv: error: installed, but importing HTA or benchadapt fails:" >&2
    echo "$import_error" >&2
    exit 1
fi
echo "$want" >"$stamp"
echo "test-venv: installed $(grep -cE '^[A-Za-z]' "$pins") packages ($mode) in $(($(date +%s) - start)) s"
