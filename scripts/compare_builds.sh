#!/bin/bash
# Two builds of vkinfer side by side, for changes that must not change behaviour or speed.
#
#   compare_builds.sh outputs BASE NEW MODEL_DIR...   outputs of test_data_set_0 in fp32/fp16,
#                                                     both sync modes and the direct-conv
#                                                     policies, compared byte for byte
#   compare_builds.sh bench ITERS BASE NEW MODEL_DIR[:NAME=DIMS]...
#                                                     GPU median ms, run base new new base
#                                                     (PRECISIONS="fp16" for one precision)
#
# BASE and NEW are folders holding a `vkinfer` binary and the libraries it needs (as
# scripts/gpu-bundle.sh packs them; NEW's libraries serve BASE too where BASE lacks one, and
# the folder above either serves both: a variant in .gpu-bundle/NAME from scripts/gpu-variant.sh
# finds the bundle's libraries whichever side it is on).
# Exit 1 if any output differs or any run fails.
set -u
mode=${1:-}; shift || true
run() {  # run BUNDLE OTHER ARGS...: the bundle's CLI with its own libvkinfer first
    local b=$1 o=$2; shift 2
    LD_LIBRARY_PATH=$b:$o:$(dirname "$b"):$(dirname "$o") "$b/vkinfer" "$@"
}
case "$mode" in
outputs)
    base=$(realpath "$1"); new=$(realpath "$2"); shift 2
    tmp=$(mktemp -d); same=0; differ=0; failed=0
    for m in "$@"; do
        name=$(basename "$m"); inputs=()
        for f in "$m"/test_data_set_0/input_*.pb; do inputs+=(-i "$f"); done
        for cfg in "fp32 minimal auto" "fp32 conservative auto" "fp16 minimal auto" "fp16 conservative auto" \
                   "fp16 minimal off" "fp16 minimal always" "fp32 minimal always"; do
            set -- $cfg
            for who in base new; do
                rm -rf "$tmp/$who"
                b=$base; [ $who = new ] && b=$new
                if ! VKINFER_DIRECT_CONV=$3 run "$b" "$new" run "$m/model.onnx" "${inputs[@]}" -o "$tmp/$who" \
                        --precision "$1" --sync "$2" >"$tmp/$who.log" 2>&1; then
                    echo "FAIL $who $name $cfg: $(tail -1 "$tmp/$who.log")"; failed=$((failed + 1)); continue 2
                fi
            done
            for f in "$tmp"/base/*.npy; do
                if cmp -s "$f" "$tmp/new/$(basename "$f")"; then same=$((same + 1))
                else differ=$((differ + 1)); echo "DIFFERS $name ($cfg) $(basename "$f")"; fi
            done
        done
    done
    rm -rf "$tmp"
    echo "outputs byte-identical: $same, differing: $differ, failed runs: $failed"
    [ $differ -eq 0 ] && [ $failed -eq 0 ]
    ;;
bench)
    iters=$1; base=$(realpath "$2"); new=$(realpath "$3"); shift 3
    printf "%-28s %-5s %10s %10s %10s %10s %8s\n" model prec base new new base new/base
    for spec in "$@"; do
        m=${spec%%:*}; shape=(); [ "$spec" != "$m" ] && shape=(--shape "${spec#*:}")
        for p in ${PRECISIONS:-fp32 fp16}; do
            r=()
            for who in base new new base; do
                b=$base; [ $who = new ] && b=$new
                r+=("$(run "$b" "$new" bench "$m/model.onnx" --precision $p "${shape[@]}" --iters "$iters" --json 2>/dev/null |
                    python3 -c 'import json,sys; print(json.load(sys.stdin)["gpu_ms"]["median"])' 2>/dev/null || echo nan)")
            done
            python3 -c '
import sys
n, p, *v = sys.argv[1:]
try: ratio = "%.3f" % ((float(v[1]) + float(v[2])) / (float(v[0]) + float(v[3])))
except ValueError: ratio = "-"
print("%-28s %-5s %s %8s" % (n, p, " ".join("%10.4f" % float(x) for x in v), ratio))' "$(basename "$m")" $p "${r[@]}"
        done
    done
    ;;
*)
    sed -n '2,12p' "$0"; exit 2 ;;
esac
