#!/usr/bin/env bash
# Sets up warplab on a fresh Debian 12 machine: installs the Debian packages it needs
# (with sudo when not root), then configures and builds into ./build.
# Safe to run again: it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(meson ninja-build gcc clang pkg-config libcmocka-dev libinih-dev libcjson-dev
      libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev fonts-dejavu-core fonts-wqy-microhei
      libclang-rt-14-dev valgrind python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >/dev/null
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f build/build.ninja ]; then
  meson setup build >/dev/null
fi
ninja -C build >/dev/null
echo "setup: built build/warplab" >&2
