#!/usr/bin/env bash
# Gathers the Debian packages vitals builds with into one folder of .deb files, for a
# GPU machine that has nvcc and CMake but no Debian packages and no network
# (scripts/gpu-check.sh unpacks them there). Usage: scripts/gpu-bundle.sh DIR PACKAGE...
set -euo pipefail
dir=${1:?usage: scripts/gpu-bundle.sh DIR PACKAGE...}
shift
mkdir -p "$dir"
rm -f "$dir"/*.deb
cd "$dir"
# apt-get download drops privileges to _apt where it can; this folder may not be its.
apt-get download -o APT::Sandbox::User=root "$@"
echo "vitals: $(ls ./*.deb | wc -l) packages, $(du -sh . | cut -f1) in $dir"
