# Sourced by the scripts that batch commands on the GPU machine (async_bench.sh,
# interop_images_bench.sh, cross_process_example.sh): `run CMD...` prints the command, runs
# it, and on a failure says its exit status and counts it in $failures instead of stopping the
# batch; with $start set (date +%s) it also prints the seconds elapsed since.
failures=0

run() {
    echo
    echo "\$ $*"
    "$@"
    rc=$?
    [ $rc -eq 0 ] || { echo "(exit status $rc)"; failures=$((failures + 1)); }
    [ -z "${start:-}" ] || echo "[$(( $(date +%s) - start )) s so far]"
}
