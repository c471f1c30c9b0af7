#!/usr/bin/env bash
# Gathers the Debian packages vitals builds with into one folder of .deb files, for a
# GPU machine that has nvcc and CMake but no Debian packages and no network
# (scripts/gpu-check.sh unpacks them there). Usage: scripts/gpu-bundle.sh DIR PACKAGE...
# The Makefile's GPU_BUNDLE_PACKAGES is the list: every find_package of the build
# (zlib included) and the test framework.
set -euo pipefail
dir=${1:?usage: scripts/gpu-bundle.sh DIR PACKAGE...}
shift
[[ $# -gt 0 ]] || { echo "usage: scripts/gpu-bundle.sh DIR PACKAGE..." >&2; exit 2; }
mkdir -p "$dir"
rm -f "$dir"/*.deb
cd "$dir"
# apt-get download drops privileges to _apt where it can; this folder may not be its.
apt-get download -o APT::Sandbox::User=root "$@"
# Every package asked for is here (a .deb is named PACKAGE_VERSION_ARCH.deb).
for package in "$@"; do
    compgen -G "${package}_*.deb" > /dev/null || { echo "vitals: $package was not downloaded" >&2; exit 1; }
done
echo "vitals: $(ls ./*.deb | wc -l) packages, $(du -sh . | cut -f1) in $(pwd)"
