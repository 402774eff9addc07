#!/bin/bash
# One GPU call for gemm_prefetch_probe.patch (README.md here): the tensor-core GEMM's next-slice
# loads issued unconditionally (clamped to the last slice instead of branched around:
# VKX_GEMMX=same,0,u) and two slices ahead in registers (same,0,p2), against the base, per
# product alone and on ViT-B/16 / Swin-T at batch 8 and ViT-B/16 at batch 1, A B B A; the op
# tests and `check` with each. Build the patched tree and bundle it:
#   git apply bench/variants/gemm_prefetch_probe.patch && ninja -C build
#   sh scripts/gpu-bundle.sh build build/tests/op_tests build/bench/vkinfer_kernel_stats
#   mkdir -p .gpu-run && tar cJf .gpu-run/x.tar.xz --exclude=.gpu-bundle/layers .gpu-bundle
# (only the new family's variants compile: shaders depend on what they include, 49d8fc2), then
# run this with the device tool, carry [".gl", ".gpu-run"]; about 4 minutes; the log is
# $OUT/log.txt.
# VKX_GEMMX=TILE,K[,u|p2] instead puts every clamped unsplit product on gemm_cmx's TILE
# (w16_128x128, w8_128x64, w8_64x64) with K slices of K (64 or 128); same,0,d1 .. d4 are timing
# diagnostics of the base loop whose results are wrong (gemm_cmx.comp says what each leaves out).
set -u
. bench/variants/gpu_probe_setup.sh .gpu-run/x.tar.xz
for ls in 512:w16_ 256:w8_; do
  LD_LIBRARY_PATH=$B $B/vkinfer_kernel_stats --local-size ${ls%%:*} gemm_cmx_${ls#*:} 2>&1 | grep "_c |\|_c_u |\|_c_p2 |" | sed 's/ | Binary[^|]*//; s/ | Stack.*Shared/ Shared/' | cut -c1-150
done
el "op tests"
for s in same,0,u same,0,p2; do
  echo "$s: $(VKX_GEMMX=$s LD_LIBRARY_PATH=$B $B/op_tests --gtest_filter='*Gemm*:*MatMul*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
done
python3 scripts/op_probe.py /tmp/gm > /dev/null  # writes the models (matmul_MxNxK among them)
el "products alone: GEMM dispatch ms"
for m in matmul_1576x3072x768 matmul_1576x768x3072 matmul_1576x2304x768 matmul_1576x768x768 matmul_1568x1536x384 matmul_197x3072x768; do
  line="$m:"
  for s in "" same,0,u same,0,p2 w8_128x64,64,p2 ""; do
    line="$line [$s] $(VKX_GEMMX=$s LD_LIBRARY_PATH=$B $B/vkinfer --precision fp16 bench /tmp/gm/$m/model.onnx --iters 20 --profile --top 3 2>&1 | awk '$3=="MatMul" {print $5}' | head -1)"
  done
  echo "$line"
done
el "where the base loop's time goes (diagnostics, wrong results): d1 fragments loaded once, d2 no global loads, d3 no barriers, d4 no products"
for m in matmul_1576x3072x768 matmul_1576x768x3072 matmul_1576x2304x768; do
  line="$m:"
  for s in "" same,0,d1 same,0,d2 same,0,d3 same,0,d4 ""; do
    line="$line [$s] $(VKX_GEMMX=$s LD_LIBRARY_PATH=$B $B/vkinfer --precision fp16 bench /tmp/gm/$m/model.onnx --iters 20 --profile --top 3 2>&1 | awk '$3=="MatMul" {print $5}' | head -1)"
  done
  echo "$line"
done
el "models at batch 8 (and ViT-B/16 at 1), A B B A per candidate"
timeout 150 python3 scripts/export_families.py /tmp/fam8 --batch 8 --only vit_b_16,swin_t 2>&1 | grep exported
timeout 100 python3 scripts/export_families.py /tmp/fam --only vit_b_16 2>&1 | grep exported
for m in /tmp/fam8/vit_b_16_batch8 /tmp/fam8/swin_t_batch8 /tmp/fam/vit_b_16; do
  for c in same,0,u same,0,p2; do
    line="$(basename $m) $c:"
    for s in "" $c $c ""; do
      line="$line $(VKX_GEMMX=$s LD_LIBRARY_PATH=$B $B/vkinfer --precision fp16 bench $m/model.onnx --iters 20 2>&1 | awk '/GPU ms/ {print $3}')"
    done
    echo "$line"
  done
done
el "checks"
for c in same,0,u same,0,p2; do
  echo "vit_b_16_batch8 $c: $(VKX_GEMMX=$c LD_LIBRARY_PATH=$B $B/vkinfer --precision fp16 check /tmp/fam8/vit_b_16_batch8 --peer-factor 2 2>&1 | tail -2 | tr '\n' ' ')"
done
el end
