#!/bin/sh
# Rebuilds tests/conformance/onnx-<version>/node.tar.xz, the node tests of an ONNX release that
# CI runs beside Debian's libonnx-testdata, from a clone of https://github.com/onnx/onnx (the
# data was removed from the repository after 1.22: take it from a release tag).
#
#   scripts/update_onnx_node_tests.sh ONNX_GIT_DIR [TAG]        (default tag: v1.22.0)
#
# Then regenerate the reports and expected lists: scripts/conformance.sh.
set -eu
git_dir=${1:?usage: update_onnx_node_tests.sh ONNX_GIT_DIR [TAG]}
tag=${2:-v1.22.0}
version=${tag#v}
version=${version%.*}
out=tests/conformance/onnx-$version
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git --git-dir="$git_dir" archive "$tag" onnx/backend/test/data/node | tar -x -C "$tmp"
[ -d "$tmp/onnx/backend/test/data/node" ] || { echo "$tag has no onnx/backend/test/data/node" >&2; exit 1; }
mkdir -p "$out"
# Sorted, with fixed owners and times, so the same tag gives the same bytes.
tar -C "$tmp/onnx/backend/test/data" --sort=name --mtime="$(git --git-dir="$git_dir" log -1 --format=%cI "$tag")" \
    --owner=0 --group=0 --numeric-owner -cf - node | xz -9e -T1 > "$out/node.tar.xz"
echo "$out/node.tar.xz: $(tar -tJf "$out/node.tar.xz" | grep -c '/model.onnx$') cases from $tag ($(git --git-dir="$git_dir" rev-parse "$tag^{commit}"))"
