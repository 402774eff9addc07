#!/bin/sh
# Packs what a run on the GPU machine needs into .gpu-bundle/ (ignored by git): the CLI, the
# benchmark binaries (vkinfer_bench, vkinfer_patterns), the examples and the demo renderer
# (vkinfer_demo), libvkinfer and the Debian shared libraries the GPU machine lacks, and
# Debian's validation layer in .gpu-bundle/layers/ (where installed here).
# There: LD_LIBRARY_PATH=.gpu-bundle .gpu-bundle/vkinfer ...; for validated runs also
# VK_LAYER_PATH=$PWD/.gpu-bundle/layers.
set -eu
build=${1:-build}
out=.gpu-bundle
rm -rf "$out" && mkdir -p "$out"
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qxF "/$out/" "$exclude" 2>/dev/null || echo "/$out/" >> "$exclude"
shift $(( $# > 0 ? 1 : 0 ))
for bin in "$build/vkinfer" "$build/bench/vkinfer_bench" "$build/bench/vkinfer_patterns" "$build"/examples/example_* \
           "$build/examples/frame_upscale/vkinfer_demo" "$@"; do
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
layer=/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json
layerlib=/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so
if [ -f "$layer" ] && [ -f "$layerlib" ]; then
    mkdir -p "$out/layers"
    # A bare library name is looked up by dlopen; "./name" is relative to the manifest.
    sed 's#"library_path": "libVkLayer#"library_path": "./libVkLayer#' "$layer" > "$out/layers/$(basename "$layer")"
    cp -L "$layerlib" "$out/layers/"
    strip --strip-unneeded "$out/layers/$(basename "$layerlib")" 2>/dev/null || true
fi
du -sh "$out"
