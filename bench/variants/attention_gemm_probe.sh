#!/bin/bash
# One GPU call that probes the candidates of attention_gemm_probe.patch (README.md here) with
# environment overrides in one build: the attention at batch 8 (warps, key groups, EXPT bits),
# the GEMM's row bias (VKX_GEMM_EXP=1) and the 128 x 64 tile (VKX_GEMM_T128X64=1), each A B B A,
# then the batch-1 transformers against PyTorch. Expects .gpu-run/b.tar.xz (the bundle of the
# patched build: scripts/gpu-bundle.sh build build/tests/op_tests, then
# tar cJf .gpu-run/b.tar.xz --exclude=.gpu-bundle/layers .gpu-bundle) and .gl/ from
# ../shared/tools/gpu-prep.sh; run with the device tool, carry [".gl", ".gpu-run"]. About 8
# minutes; its log is $OUT/log.txt. QUICK=1 (about 4 minutes, for a call with little device
# budget): ViT-B/16 at batch 8 only, no op-test pass, the attention's base, all three bits and
# unfused, the GEMM's two candidates, no batch-1 comparison.
set -u
quick=${QUICK:-}
families8=vit_b_16,swin_t
[ -n "$quick" ] && families8=vit_b_16
. bench/variants/gpu_probe_setup.sh .gpu-run/b.tar.xz
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/vkinfer "$@"\n' $B $B > /tmp/vkw; chmod +x /tmp/vkw
[ -z "$quick" ] && {
el "op tests on the driver with every candidate on (the selection tests' invocation counts may differ; the numbers must not)"
VKX_ATT_EXP=7 VKX_GEMM_EXP=1 LD_LIBRARY_PATH=$B $B/op_tests --gtest_filter='*AttentionCoopmat*:MatMulBias.*:CoopmatGemmTable.*' 2>&1 | grep -E "FAILED|PASSED|Failure" | head -12
VKX_GEMM_T128X64=1 LD_LIBRARY_PATH=$B $B/op_tests --gtest_filter='CoopmatGemmTable.*:MatMulBatchRows.*' 2>&1 | grep -E "FAILED|PASSED|Failure" | head -6
}
el "export at batch 8"
timeout 150 python3 scripts/export_families.py /tmp/fam8 --batch 8 --only $families8 2>&1 | tail -3
M=/tmp/fam8/vit_b_16_batch8/model.onnx
S=/tmp/fam8/swin_t_batch8/model.onnx
run() {  # label, then VAR=value...: GPU medians and the attention's share, per model of $MODELS
    local label=$1; shift
    for m in $MODELS; do
        echo "$label $(basename "$(dirname "$m")"): $(env "$@" /tmp/vkw --precision fp16 bench "$m" --iters 20 --profile --top 0 2>&1 | grep -E "GPU ms|Attention" | tr -s ' ' | tr '\n' ' ')"
    done
}
el "attention sweep (ViT-B/16 at batch 8)"
MODELS=$M
run base X=0
run e7 VKX_ATT_EXP=7
run unfused VKINFER_FUSE_ATTENTION=off  # two batched GEMMs and a Softmax: the floor to beat
run base2 X=0
[ -z "$quick" ] && {
run e1 VKX_ATT_EXP=1   # q fragments held in registers
run e2 VKX_ATT_EXP=2   # the row partner's max and sum by subgroup shuffle
run e4 VKX_ATT_EXP=4   # the next block's loads issued unconditionally (clamped)
run w4 VKX_ATT_WARPS=4
run w4e7 VKX_ATT_WARPS=4 VKX_ATT_EXP=7
run w1s2 VKX_ATT_WARPS=1 VKX_ATT_SPLIT=2
run w2s2 VKX_ATT_WARPS=2 VKX_ATT_SPLIT=2
run w2s2e7 VKX_ATT_WARPS=2 VKX_ATT_SPLIT=2 VKX_ATT_EXP=7
MODELS="$M $S"
}
el "GEMM row bias, A B B A"
for e in 0 1 1 0; do run g$e VKX_GEMM_EXP=$e; done
el "GEMM 128 x 64 in 8 warps where 128 x 128 in 16 was, A B B A"
run t0 X=0; run t1 VKX_GEMM_T128X64=1; run t1 VKX_GEMM_T128X64=1; run t0 X=0
[ -n "$quick" ] && { el end; exit 0; }
el "batch-1 transformers against PyTorch"
timeout 150 python3 scripts/export_families.py /tmp/fam --only vit_b_16,swin_t,convnext_tiny --bench /tmp/vkw --iters 20 2>&1 | grep -v "^timed\|^exported" | tail -8
cp /tmp/fam/export_families.json "$OUT/batch1.json" 2>/dev/null
el end
