#!/bin/sh
# Packs the Python package for the GPU machine into .gpu-python/ (ignored by git), whose
# Python (3.12 there) is not Debian's 3.11 that the build here compiles the module for: the
# module is compiled there, from the binding's sources, against libvkinfer and the CLI's
# library built here, with the pybind11 headers PyTorch ships (torch/include; Debian 12's
# pybind11 2.10 predates Python 3.12 and NumPy 2). docs/PYTHON.md, "Overhead".
#
#   scripts/python-gpu-bundle.sh [BUILD]          here, after `cmake --build BUILD`
#   .gpu-python/build.sh                          there (PYTHON=python3, CXX=c++, PYBIND11_INCLUDE=... to override)
#   LD_LIBRARY_PATH=.gpu-python/vkinfer PYTHONPATH=.gpu-python python3 bench/python_overhead.py MODEL ...
set -eu
build=${1:-build}
out=.gpu-python
[ -f "$build/tools/vkinfer/libvkinfer_tool.a" ] && [ -e "$build/libvkinfer.so.0" ] ||
    { echo "python-gpu-bundle: build $build first (cmake --build $build)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out/src" "$out/include" "$out/lib" "$out/vkinfer/data/upscaler_x2"
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qxF "/$out/" "$exclude" 2>/dev/null || echo "/$out/" >> "$exclude"

cp python/src/*.cpp python/src/*.h "$out/src/"
cp python/vkinfer/*.py python/vkinfer/*.pyi python/vkinfer/py.typed "$out/vkinfer/"
cp data/upscaler_x2/model.onnx "$out/vkinfer/data/upscaler_x2/"
cp -r include/vkinfer "$out/include/"
cp tools/vkinfer/*.h "$out/include/"
# Header-only or header-and-library dependencies of those headers, from Debian.
cp -r /usr/include/fmt /usr/include/nlohmann /usr/include/CLI "$out/include/"
cp "$build/tools/vkinfer/libvkinfer_tool.a" "$out/lib/"
# libvkinfer and the Debian libraries it needs that the GPU machine lacks, beside the module.
cp -L "$build/libvkinfer.so.0" "$out/vkinfer/"
for lib in $(ldd "$build/libvkinfer.so.0" | awk '/=> \// {print $3}'); do
    case "$(basename "$lib")" in
        libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libstdc++.so*|libgcc_s.so*|libvulkan.so*|ld-linux*) ;;
        *) cp -L "$lib" "$out/vkinfer/" ;;
    esac
done
cat > "$out/build.sh" <<'BUILD'
#!/bin/sh
# Compiles vkinfer/_vkinfer for this machine's Python (see scripts/python-gpu-bundle.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
pybind=${PYBIND11_INCLUDE:-$("$py" -c "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'include'))")}
[ -f "$pybind/pybind11/pybind11.h" ] || { echo "build.sh: no pybind11 headers in $pybind (set PYBIND11_INCLUDE)" >&2; exit 1; }
inc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
suffix=$("$py" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
fmt=$(ls "$here"/vkinfer/libfmt.so.* | head -n 1)
# One compiler per source, side by side (the GPU machine's cores; its device time is short).
mkdir -p "$here/obj"
for src in "$here"/src/*.cpp; do
    "${CXX:-c++}" -O2 -std=c++20 -fPIC -fvisibility=hidden -DFMT_SHARED -I"$here/include" -isystem "$pybind" \
        -isystem "$inc" -c "$src" -o "$here/obj/$(basename "$src" .cpp).o" &
done
wait
"${CXX:-c++}" -shared "$here"/obj/*.o "$here/lib/libvkinfer_tool.a" "$here/vkinfer/libvkinfer.so.0" "$fmt" \
    -Wl,-rpath,'$ORIGIN' -o "$here/vkinfer/_vkinfer$suffix"
echo "built $here/vkinfer/_vkinfer$suffix; run with LD_LIBRARY_PATH=$here/vkinfer PYTHONPATH=$here"
BUILD
chmod +x "$out/build.sh"
du -sh "$out"
