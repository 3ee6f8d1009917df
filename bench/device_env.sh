# Sourced on the GPU machine at the start of a device run (shared/GPU.md):
# unpacks the Vulkan loader (.gl/, ../shared/tools/get-vulkan-loader.sh)
# and bench/bin/'s compressed binaries (bench/pack.sh), points the loader
# at NVIDIA's driver and libmgrt's users at bench/bin.
for f in .gl/*.deb; do dpkg -x "$f" / > /dev/null 2>&1; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/bench/bin:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
python3 - <<'PY'
import glob, lzma, os
for f in glob.glob("bench/bin/*.xz"):
    out = f[:-3]
    with lzma.open(f) as src, open(out, "wb") as dst:
        dst.write(src.read())
    os.chmod(out, 0o755)
PY
