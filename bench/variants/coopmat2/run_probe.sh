#!/bin/bash
# On the GPU machine (README.md here): the driver's cooperative-matrix-2 properties, then every
# kernel that build.sh made on ViT-B/16's batch-8 products (M padded to the tile) and a square
# 4096, then cuBLAS (PyTorch 2.11, fp16, CUDA graphs) on the same padded products.
#   [KERNELS="tc tk tl tt pl pt wg sg"] bash bench/variants/coopmat2/run_probe.sh [DIR]
# (DIR: build.sh's, default .gpu-run/cm2; KERNELS: which kernel prefixes (build.sh says what
# each is), default "tc tk": the fastest, run 70; the subgroup-scope sg kernel crashes the
# driver's compiler, run 69.)
# Needs the Vulkan loader from .gl/ (gpu_probe_setup.sh installs it when sourced first).
set -u
dir=${1:-.gpu-run/cm2}
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
"$dir/cm2_gemm_probe" --info
products="1576x3072x768 1576x768x3072 1576x2304x768 1576x768x768 4096x4096x4096"
for spv in $(for prefix in ${KERNELS:-tc tk}; do ls "$dir"/${prefix}_*.spv; done); do
    v=$(basename "$spv" .spv)            # PREFIX_BMxBN_kBK_tWG_uU
    case $v in tt_*|tc_*|pt_*) bnk=--b-nk ;; *) bnk= ;; esac  # B stored N x K
    tile=${v#*_}; tile=${tile%%_*}; bm=${tile%x*}; bn=${tile#*x}
    wg=${v#*_t}; wg=${wg%%_*}
    for p in $products; do
        m=${p%%x*}; rest=${p#*x}; n=${rest%x*}; k=${rest#*x}
        mp=$(( (m + bm - 1) / bm * bm )); np=$(( (n + bn - 1) / bn * bn ))
        out=$(timeout 60 "$dir/cm2_gemm_probe" "$spv" "$bm" "$bn" "$wg" "$mp" "$np" "$k" 20 $bnk 2>&1)
        rc=$?
        echo "$out" | grep -v '^device:'
        # 139: a segfault, which the driver's SPIR-V compiler gives for modules it cannot take
        [ $rc = 0 ] || echo "$v ${mp}x${np}x${k}: exit $rc"
    done
done
python3 - <<'PY'
import sys
import torch
sys.path.insert(0, "scripts")
from op_probe import cuda_graph_ms  # the CUDA-graph timing op_probe.py --torch uses
for m, n, k in [(1664, 3072, 768), (1664, 768, 3072), (1664, 2304, 768), (1664, 768, 768), (1792, 3072, 768),
                (4096, 4096, 4096)]:
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    us = cuda_graph_ms(lambda: torch.matmul(a, b), 20) * 1000
    print("cuBLAS %dx%dx%d: %.2f us %.1f TFLOP/s" % (m, n, k, us, 2 * m * n * k / us / 1e6))
PY
