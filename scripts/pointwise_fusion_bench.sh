#!/bin/sh
# Issue 21, "fusion for dispatch-bound graphs": each model benchmarked with the pointwise
# fusion on and off (VKINFER_FUSE_POINTWISE, docs/CLI.md), in fp32 and fp16, with the
# dispatch count of each (from bench --profile) and the GPU time (median and p90 of the
# timestamps around the dispatches). Prints one line per (model, precision, fusion) and
# writes the bench JSON beside it.
#
# Run from the checkout's root on the GPU machine, with a bundle made by scripts/gpu-bundle.sh:
#
#   sh scripts/pointwise_fusion_bench.sh [BUNDLE] MODEL.onnx...   (BUNDLE default .gpu-bundle)
#
# e.g. the exported families: sh scripts/pointwise_fusion_bench.sh .gpu-bundle fam/*/model.onnx
# POINTWISE_BENCH_OUT names the folder of the JSON files (default pointwise-bench);
# POINTWISE_BENCH_ITERS the timed iterations (default 200).
set -u
bundle=.gpu-bundle
case "${1:-}" in *.onnx) ;; "") ;; *) bundle=$1; shift ;; esac
[ $# -gt 0 ] || { echo "usage: $0 [BUNDLE] MODEL.onnx..." >&2; exit 2; }
export LD_LIBRARY_PATH="$bundle${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=${POINTWISE_BENCH_OUT:-pointwise-bench}
iters=${POINTWISE_BENCH_ITERS:-200}
mkdir -p "$out"
printf '%-40s %-5s %-4s %10s %10s %10s\n' model prec fuse dispatches gpu_median gpu_p90
for model in "$@"; do
    name=$(basename "$(dirname "$model")")
    for prec in fp32 fp16; do
        for fuse in on off; do
            json="$out/$name-$prec-$fuse.json"
            if ! VKINFER_FUSE_POINTWISE=$fuse "$bundle/vkinfer" bench "$model" --precision "$prec" --iters "$iters" \
                --profile --json > "$json" 2> "$json.err"; then
                printf '%-40s %-5s %-4s failed: see %s\n' "$name" "$prec" "$fuse" "$json.err"
                continue
            fi
            python3 - "$json" "$name" "$prec" "$fuse" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
g = j.get("gpu_ms", {})
n = len(j.get("profile", {}).get("dispatches", []))
print(f"{sys.argv[2]:<40} {sys.argv[3]:<5} {sys.argv[4]:<4} {n:>10} {g.get('median', float('nan')):>10.4f} {g.get('p90', float('nan')):>10.4f}")
PY
        done
    done
done
