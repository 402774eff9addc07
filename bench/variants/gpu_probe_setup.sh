# Sourced by the probe scripts here on the GPU machine: `. bench/variants/gpu_probe_setup.sh
# TARBALL`. Sends everything after it to the terminal and $OUT/log.txt, defines `el MESSAGE`
# (the message after the seconds so far), installs the Vulkan loader from .gl/
# (../shared/tools/gpu-prep.sh) beside NVIDIA's driver, unpacks TARBALL (a .gpu-bundle packed by
# scripts/gpu-bundle.sh and tar) and sets B to its bundle, and names the GPU and its driver.
exec > >(tee "$OUT/log.txt") 2>&1
start=$(date +%s)
el() { echo "[$(( $(date +%s) - start )) s] $*"; }
for f in .gl/*.deb; do dpkg -x "$f" / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
probe_dir=/tmp/$(basename "$1" .tar.xz)
mkdir -p "$probe_dir" && tar xJf "$1" -C "$probe_dir"
B=$probe_dir/.gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
