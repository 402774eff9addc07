#!/bin/sh
# Packs another build of the CLI beside the bundle, for side-by-side runs on the GPU machine
# (scripts/compare_builds.sh bench ITERS .gpu-bundle/NAME .gpu-bundle MODEL...):
#
#   gpu-variant.sh COMMIT [NAME [PATCH]]
#
# builds `vkinfer` at COMMIT (with PATCH applied on top, if given: a kernel variant to try) in a
# git worktree beside the checkout (../vkinfer-variant-NAME; ccache makes a rebuild minutes)
# and copies the binary and its libvkinfer into .gpu-bundle/NAME (default: base-COMMIT). Run
# scripts/gpu-bundle.sh first: its libraries serve the variants too.
set -eu
commit=$1
name=${2:-base-$commit}
patch=${3:-}
[ -d .gpu-bundle ] || { echo "gpu-variant: run scripts/gpu-bundle.sh first" >&2; exit 2; }
[ -z "$patch" ] || patch=$(realpath "$patch")
tree=$(realpath ..)/vkinfer-variant-$name
git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
git worktree add --detach "$tree" "$commit" >/dev/null
[ -z "$patch" ] || git -C "$tree" apply "$patch"
launcher=$(command -v ccache >/dev/null && echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache" || true)
cmake -S "$tree" -B "$tree/build" -G Ninja $launcher >/dev/null
cmake --build "$tree/build" --target vkinfer_cli >/dev/null
mkdir -p ".gpu-bundle/$name"
cp "$tree/build/vkinfer" ".gpu-bundle/$name/"
cp -L "$tree/build/libvkinfer.so.0" ".gpu-bundle/$name/"
strip --strip-unneeded ".gpu-bundle/$name"/* 2>/dev/null || true
echo "gpu-variant: .gpu-bundle/$name holds vkinfer at $(git -C "$tree" rev-parse --short HEAD)${patch:+ with $(basename "$patch")}"
