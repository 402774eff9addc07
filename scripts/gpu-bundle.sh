#!/bin/sh
# Packs what a run on the GPU machine needs into .gpu-bundle/ (ignored by git): the CLI, the
# benchmark binary, libvkinfer and the Debian shared libraries the GPU machine lacks.
# There: LD_LIBRARY_PATH=.gpu-bundle .gpu-bundle/vkinfer ...
set -eu
build=${1:-build}
out=.gpu-bundle
rm -rf "$out" && mkdir -p "$out"
grep -qxF "/$out/" .git/info/exclude 2>/dev/null || echo "/$out/" >> .git/info/exclude
for bin in "$build/vkinfer" "$build/bench/vkinfer_bench" "$@"; do
    [ -f "$bin" ] || continue
    cp "$bin" "$out/"
    for lib in $(ldd "$bin" | awk '/=> \// {print $3}'); do
        case "$(basename "$lib")" in
            libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libvulkan.so*|ld-linux*) ;;  # present there
            *) cp -L "$lib" "$out/" ;;
        esac
    done
done
strip --strip-unneeded "$out"/* 2>/dev/null || true
du -sh "$out"
