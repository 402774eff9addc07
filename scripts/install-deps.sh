#!/bin/sh
# Installs what vkinfer needs to build and test from Debian 12's packages (run as root).
# Installs only what is missing, so a second run costs a few dpkg queries.
set -eu
packages="build-essential cmake ninja-build pkg-config
  libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libpng-dev libjpeg62-turbo-dev
  clang libclang-rt-14-dev
  python3 python3-dev python3-venv python3-pip python3-setuptools python3-wheel python3-pybind11
  python3-numpy python3-onnx python3-pytest"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing
fi
