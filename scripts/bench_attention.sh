#!/bin/sh
# Issue 21, "attention": each model benchmarked with the attention fusion on and off
# (VKINFER_FUSE_ATTENTION, docs/CLI.md), in fp32 and fp16, with the dispatch count of each
# (from bench --profile), the GPU time (median and p90 of the timestamps around the
# dispatches) and the GPU time of the attention kernels alone (profile entries whose kernel
# starts with "attention"). Prints one line per (model, precision, fusion) and writes the
# bench JSON beside it.
#
# Run from the checkout's root on the GPU machine, with a bundle made by scripts/gpu-bundle.sh:
#
#   sh scripts/bench_attention.sh [BUNDLE] MODEL.onnx...   (BUNDLE default .gpu-bundle)
#
# e.g. the exported families: sh scripts/bench_attention.sh .gpu-bundle fam/vit_b_16/model.onnx fam/swin_t/model.onnx
# ATTENTION_BENCH_OUT names the folder of the JSON files (default attention-bench);
# ATTENTION_BENCH_ITERS the timed iterations (default 200). Extra bench options (e.g.
# "--batch 8" where bench takes it) go in ATTENTION_BENCH_ARGS.
set -u
bundle=.gpu-bundle
case "${1:-}" in *.onnx) ;; "") ;; *) bundle=$1; shift ;; esac
[ $# -gt 0 ] || { echo "usage: $0 [BUNDLE] MODEL.onnx..." >&2; exit 2; }
export LD_LIBRARY_PATH="$bundle${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=${ATTENTION_BENCH_OUT:-attention-bench}
iters=${ATTENTION_BENCH_ITERS:-200}
extra=${ATTENTION_BENCH_ARGS:-}
mkdir -p "$out"
printf '%-40s %-5s %-4s %10s %10s %10s %12s\n' model prec fuse dispatches gpu_median gpu_p90 attention_ms
for model in "$@"; do
    name=$(basename "$(dirname "$model")")-$(basename "$model" .onnx)
    for prec in fp32 fp16; do
        for fuse in on off; do
            json="$out/$name-$prec-$fuse.json"
            # shellcheck disable=SC2086  # (extra: words meant to split)
            if ! VKINFER_FUSE_ATTENTION=$fuse "$bundle/vkinfer" bench "$model" --precision "$prec" --iters "$iters" \
                --profile --json $extra > "$json" 2> "$json.err"; then
                printf '%-40s %-5s %-4s failed: see %s\n' "$name" "$prec" "$fuse" "$json.err"
                continue
            fi
            python3 - "$json" "$name" "$prec" "$fuse" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
g = j.get("gpu_ms", {})
d = j.get("profile", {}).get("dispatches", [])
att = sum(float(e.get("ms", e.get("gpu_ms", 0.0)) or 0.0) for e in d if str(e.get("kernel", "")).startswith("attention"))
print(f"{sys.argv[2]:<40} {sys.argv[3]:<5} {sys.argv[4]:<4} {len(d):>10} {g.get('median', float('nan')):>10.4f} "
      f"{g.get('p90', float('nan')):>10.4f} {att:>12.4f}")
PY
        done
    done
done
