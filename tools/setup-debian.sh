#!/usr/bin/env bash
# Installs limbic's build and test dependencies from Debian 12 packages. Idempotent and
# non-interactive; works as root or through sudo. Installs nothing that is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libzmq3-dev cppzmq-dev libflatbuffers-dev flatbuffers-compiler
  libeigen3-dev libasio-dev prometheus-cpp-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libwebsocketpp-dev nlohmann-json3-dev
  libzstd-dev liblz4-dev zlib1g-dev libdeflate-dev
  # The Python client (python/limbic) and its tests: the bus, the generated message classes, compressed recordings.
  python3 python3-zmq python3-flatbuffers python3-zstandard python3-lz4
)
# Extra packages for some tests/tools, named by the caller: tools/setup-debian.sh prometheus iproute2
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "setup: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
