#!/bin/sh
# Packs what a run on the GPU machine needs into .gpu-bundle/ (ignored by git): the CLI, the
# benchmark binary, libvkinfer and the Debian shared libraries the GPU machine lacks.
# There: LD_LIBRARY_PATH=.gpu-bundle .gpu-bundle/vkinfer ...
set -eu
build=${1:-build}
out=.gpu-bundle
rm -rf "$out" && mkdir -p "$out"
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qxF "/$out/" "$exclude" 2>/dev/null || echo "/$out/" >> "$exclude"
shift $(( $# > 0 ? 1 : 0 ))
for bin in "$build/vkinfer" "$build/bench/vkinfer_bench" "$build/bench/vkinfer_patterns" "$build"/examples/example_* "$@"; do
    [ -f "$bin" ] || continue
    cp "$bin" "$out/"
    for lib in $(ldd "$bin" | awk '/=> \// {print $3}'); do
        case "$(basename "$lib")" in
            libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libstdc++.so*|libgcc_s.so*|libvulkan.so*|ld-linux*|libcuda*) ;;  # present there
            *) cp -L "$lib" "$out/" ;;
        esac
    done
done
strip --strip-unneeded "$out"/* 2>/dev/null || true
du -sh "$out"
