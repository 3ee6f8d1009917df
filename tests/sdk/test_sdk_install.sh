#!/bin/bash
# test_sdk_install.sh BUILD_DIR [SANITIZE_FLAGS] (run from the source root;
# see CMakeLists.txt). SANITIZE_FLAGS: what a sanitizer build of libmgrt
# needs its users to compile and link with ("-fsanitize=address,undefined").
# Installs BUILD_DIR to a staging prefix, moves it (the package must be
# relocatable), checks what was installed and that libmgrt needs none of the
# compiler's libraries, then builds examples/c_app against the prefix only
# and checks its output on a bundle compiled by the installed mgc.
set -euo pipefail
build=$(cd "$1" && pwd)
sanitize=${2:-}
src=$(pwd)
work=$build/sdk-test
rm -rf "$work"
mkdir -p "$work"
fail() { echo "sdk_install: FAILED: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/stage" >"$work/install.log"
mv "$work/stage" "$work/prefix"
P=$work/prefix
lib=$(cd "$P" && dirname "$(find . -name libmgrt.so -path '*/lib*')" | sed 's|^\./||')
[[ -n $lib ]] || fail "no libmgrt.so under $P"
for f in "$lib/libmgrt.so" "$lib/libmgrt.a" include/mgrt.h bin/mgc "$lib/pkgconfig/mgrt.pc" \
         "$lib/cmake/mgrt/mgrtConfig.cmake" "$lib/cmake/mgrt/mgrtConfigVersion.cmake" \
         "$lib/cmake/mgrt/mgrtTargets.cmake"; do
  [[ -e $P/$f ]] || fail "not installed: $f"
done

# The runtime needs only the C/C++ runtime: no compiler library (protobuf,
# onnx, shaderc, SPIRV-Cross, spdlog), not even the Vulkan loader (volk
# opens it at run time).
# (LD_PRELOAD cleared: a preloaded shim such as tools/ci_sanitize.sh's is no
# dependency of the library.)
deps=$(LD_PRELOAD= ldd "$P/$lib/libmgrt.so" | awk '{print $1}' | sed 's|.*/||' | sort -u | tr '\n' ' ')
for d in $deps; do
  case $d in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | libstdc++.so.* | libgcc_s.so.*) ;;
    libasan.so.* | libubsan.so.*) [[ -n $sanitize ]] || fail "libmgrt.so needs $d in a build without sanitizers" ;;
    *) fail "libmgrt.so needs $d (all: $deps)" ;;
  esac
done
links=$(grep -h 'INTERFACE_LINK_LIBRARIES' "$P/$lib"/cmake/mgrt/mgrtTargets*.cmake | tr -d ' ' || true)
[[ $links == *'"dl;stdc++;m"'* ]] || fail "mgrt::mgrt_static links more than dl, stdc++, m: $links"
grep -q 'Libs: -L${libdir} -lmgrt$' "$P/$lib/pkgconfig/mgrt.pc" || fail "mgrt.pc Libs line"

"$P/bin/mgc" compile examples/c_app/model.mgir -o "$work/model.mgb" -q
# z = relu(x * w + b) for x[i] = 0.5 i - 1 (examples/c_app/model.mgir).
expected='output z [2,4] = 0 0 1 1 1 0 1.5 0'
check_app() {  # check_app BINARY [ARGS...]
  local out
  out=$("$@") || fail "$* exited with $?"
  grep -qxF "$expected" <<<"$out" || fail "$1 printed:
$out
expected a line: $expected"
}

# find_package(mgrt): only the prefix is searched, never this source tree.
cmake -S examples/c_app -B "$work/app-cmake" -G Ninja -DCMAKE_PREFIX_PATH="$P" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_C_FLAGS="$sanitize" >"$work/app-cmake.log"
cmake --build "$work/app-cmake" >>"$work/app-cmake.log"
check_app "$work/app-cmake/c_app" "$work/model.mgb"
check_app "$work/app-cmake/c_app_static" "$work/model.mgb"
# (ldd's output is captured first: `ldd | grep -q` under pipefail fails
# whenever grep exits before ldd has written everything.)
static_deps=$(ldd "$work/app-cmake/c_app_static")
[[ $static_deps != *libmgrt* ]] || fail "c_app_static is linked to libmgrt.so: $static_deps"
shared_deps=$(ldd "$work/app-cmake/c_app")
[[ $shared_deps == *"$P/$lib/libmgrt.so"* ]] || fail "c_app does not use the installed libmgrt.so: $shared_deps"

# pkg-config (mgrt.pc).
PKG_CONFIG_PATH=$P/$lib/pkgconfig cmake -S examples/c_app -B "$work/app-pc" -G Ninja \
  -DC_APP_USE_PKGCONFIG=ON -DCMAKE_C_FLAGS="$sanitize" >"$work/app-pc.log"
cmake --build "$work/app-pc" >>"$work/app-pc.log"
LD_LIBRARY_PATH=$P/$lib check_app "$work/app-pc/c_app" "$work/model.mgb"

# The pipeline cache through the app: written by the first launch, loaded
# by the second; a damaged file is noted on stderr and the app still runs.
cache=$work/pipelines.mgpc
check_app "$work/app-cmake/c_app" "$work/model.mgb" "$cache"
[[ -s $cache ]] || fail "the pipeline cache file was not written"
check_app "$work/app-cmake/c_app" "$work/model.mgb" "$cache"
printf 'garbage' >"$cache"
"$work/app-cmake/c_app" "$work/model.mgb" "$cache" 2>"$work/note.txt" >/dev/null || fail "c_app failed on a damaged cache"
grep -q "ignored" "$work/note.txt" || fail "no note about the damaged cache: $(cat "$work/note.txt")"
# Generation through the C API alone (examples/c_generate): the installed
# mgc compiles the Llama test checkpoint (tests/compiler/hf/make_checkpoints.py)
# into prefill + decode; the app's greedy ids must be PyTorch's.
hf=$build/fixtures/hf/llama
[[ -f $hf/gen_ids.npy ]] || fail "no $hf/gen_ids.npy (the gen_hf_checkpoints fixture)"
"$P/bin/mgc" compile "$hf" --max-seq 48 --prefill-chunk 16 -o "$work/gen.mgb" -q
ids() { /usr/bin/python3 -c "import numpy, sys; print(','.join(str(int(v)) for v in numpy.load(sys.argv[1])))" "$1"; }
prompt=$(ids "$hf/gen_prompt.npy")
want=$(ids "$hf/gen_ids.npy")
cmake -S examples/c_generate -B "$work/gen-app" -G Ninja -DCMAKE_PREFIX_PATH="$P" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_C_FLAGS="$sanitize" >"$work/gen-app.log"
cmake --build "$work/gen-app" >>"$work/gen-app.log"
got=$("$work/gen-app/c_generate" "$work/gen.mgb" "$prompt" 24 | tail -1) || fail "c_generate exited with $?"
[[ $got == "$want" ]] || fail "c_generate printed $got, PyTorch chose $want"
"$work/gen-app/c_generate" "$work/gen.mgb" "$prompt" 40 2>"$work/gen-err.txt" >/dev/null && fail "c_generate ran past --max-seq"
grep -q "need more than the bundle's 48 positions" "$work/gen-err.txt" || fail "c_generate's error: $(cat "$work/gen-err.txt")"

echo "sdk_install: ok ($P)"
