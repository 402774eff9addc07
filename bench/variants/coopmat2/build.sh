#!/bin/sh
# Builds the workgroup-scope GEMM probe here (Debian 12: glslc, spirv-tools, g++, libvulkan-dev,
# libfmt-dev) into OUT_DIR (default .gpu-run/cm2): the harness and one kernel per tile in VARIANTS, each
# compiled against GL_NV_cooperative_matrix with workgroup scope (the probe translates it to
# KHR). Then run run_probe.sh on the GPU machine (README.md here).
set -eu
here=$(dirname "$0")
out=${1:-.gpu-run/cm2}
mkdir -p "$out"
root=$here/../../..
g++ -std=c++20 -O2 -Wall -I"$root/src" -I"$root/include" -o "$out/cm2_gemm_probe" "$here/cm2_gemm_probe.cpp" \
    "$root/src/vk/coopmat_khr.cpp" "$root/src/io/whole_file.cpp" "$root/src/core/status.cpp" -lfmt -lvulkan
glslc --target-env=vulkan1.2 -fshader-stage=comp "$here/gemm_plain.comp" -o "$out/plain.spv"
# BM BN BK WG UNROLL: K slices of BK, UNROLL of them per loop iteration (K is a multiple of 256)
# (the driver allows at most 256 invocations for workgroup scope on an H100)
VARIANTS=${VARIANTS:-"128,128,32,256,4 128,128,64,256,2 128,256,32,256,4 128,256,64,256,2 256,128,32,256,4
128,128,32,128,4 64,128,32,128,4 64,64,32,128,4 256,256,32,256,4"}
# A subgroup-scope kernel of the same source (one warp, flexible 16 x 32 tiles): the translation's
# KHR forms checked apart from workgroup scope.
glslc --target-env=vulkan1.2 -fshader-stage=comp -O -DBM=16 -DBN=32 -DBK=16 -DWG=32 -DUNROLL=4 \
    -DSCOPE=gl_ScopeSubgroup "$here/gemm_wg.comp" -o "$out/sg_16x32_k16_t32_u4.spv"
for v in $VARIANTS; do
    set -- $(echo "$v" | tr , ' ')
    name="wg_${1}x${2}_k${3}_t${4}_u${5}"
    glslc --target-env=vulkan1.2 -fshader-stage=comp -O -DBM=$1 -DBN=$2 -DBK=$3 -DWG=$4 -DUNROLL=$5 \
        "$here/gemm_wg.comp" -o "$out/$name.spv"
done
# The same tiles with A and B read through tensor layouts (gemm_tensor.py), where llama.cpp's
# NVIDIA path differs from gemm_wg.comp. Prefixes: tl_ layouts of clamp mode Undefined, B stored
# K x N; tt_ the same with B stored N x K (read through a transposing view, as llama.cpp does);
# tc_ clamp mode Constant, B N x K; tk_ clamp mode Constant, B K x N (run 70: Constant is up to
# ten times faster than Undefined on driver 580).
TENSOR_VARIANTS=${TENSOR_VARIANTS:-"128,128,32,256,4 128,128,64,256,2 128,256,32,256,4 256,128,32,256,4
64,128,32,128,4 128,128,32,128,4"}
CLAMP_VARIANTS=${CLAMP_VARIANTS:-"128,128,32,128,1 128,128,32,256,1 128,128,32,256,4 128,128,64,256,1
128,256,32,256,1 128,256,64,256,1 256,128,32,256,1 256,128,64,256,1 256,256,32,256,1 64,128,32,128,1
128,64,64,128,1 64,64,64,128,1"}
tensor() {  # prefix, BM,BN,BK,WG,UNROLL, gemm_tensor.py flags
    prefix=$1; v=$2; shift 2
    set -- $(echo "$v" | tr , ' ') "$@"
    bm=$1 bn=$2 bk=$3 wg=$4 u=$5; shift 5
    python3 "$here/gemm_tensor.py" $bm $bn $bk $wg $u "$out/${prefix}_${bm}x${bn}_k${bk}_t${wg}_u${u}.spv" "$@"
}
for v in $TENSOR_VARIANTS; do tensor tl "$v"; done
for v in 128,128,32,256,4 128,256,32,256,4 128,256,64,256,1 128,128,64,256,1 64,64,64,128,1; do
    tensor tt "$v" --b-nk
done
for v in $CLAMP_VARIANTS; do tensor tc "$v" --b-nk --clamp; done
for v in 128,128,32,256,1 128,256,64,256,1; do tensor tk "$v" --clamp; done
# The tensor kernel's module with plain loads: if it fails where wg_ passes, the generator is at
# fault (pt_: B stored N x K, loaded column-major).
tensor pl 128,128,32,256,4 --plain-loads
tensor pt 128,128,32,256,4 --plain-loads --b-nk
ls "$out"
