#!/usr/bin/env bash
# Issue 22 item 3: the Debian package. Builds it with CPack from BUILD_DIR, prints its size and dependencies,
# checks them, unpacks it into a fresh folder and runs programs from the unpacked tree (data found beside them).
#   run_deb_check.sh BUILD_DIR
# Exits 77 (skipped) where cpack's DEB generator or dpkg-shlibdeps (dpkg-dev) is missing.
set -euo pipefail
build=$(cd "$1" && pwd -P)
command -v dpkg-shlibdeps >/dev/null || { echo "deb check: skipped: dpkg-shlibdeps missing (apt-get install dpkg-dev)"; exit 77; }
work=$(mktemp -d /tmp/limbic-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "deb check: FAILED: $*" >&2; exit 1; }

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/out/*.deb)
echo "deb check: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
dpkg-deb -f "$deb" Package Version Architecture Depends Recommends Installed-Size | sed 's/^/deb check:   /'
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libzmq5 libyaml-cpp0.7 libstdc++6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib (dpkg-shlibdeps): $depends"
done
contents=$(dpkg-deb -c "$deb")
grep -q '\./usr/bin/limbic$' <<<"$contents" || fail "no /usr/bin/limbic in the package"
grep -q '\./usr/lib/python3/dist-packages/limbic/__init__.py$' <<<"$contents" || fail "no Python client"

dpkg-deb -x "$deb" "$work/root"
unset LIMBIC_DATA_DIR LIMBIC_EXPERIMENTS_DIR LIMBIC_ROBOT_DIR LIMBIC_AFFECT_CONFIG_DIR
cd "$work"
"$work/root/usr/bin/limbic" experiment list >"$work/list.txt" && grep -q smoke "$work/list.txt" || fail "the unpacked limbic lists no shipped experiments"
"$work/root/usr/bin/limbic-sim" render --set B --index 0 --bodies marvin,tank --out "$work/bodies.svg" >/dev/null ||
  fail "the unpacked limbic-sim cannot read the shipped robot descriptions"
grep -q "<svg" "$work/bodies.svg" || fail "no picture"
echo "deb check: ok (unpacked programs find their data beside them)"
