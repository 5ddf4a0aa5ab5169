#!/usr/bin/env bash
# build-gpu.sh OUT: build cuzk with the CUDA backend (-tags cuda) into OUT.
#
# Needs no GPU and nothing but the package registries: the CUDA compiler
# comes from NVIDIA's PyPI wheels, supraseal-c2/sppark/blst from crates.io
# through cargo, all into an ignored build directory ($CUZK_GPU_BUILD, default
# .gpu-build/ in the repository). Nothing fetched is committed. Every step is
# skipped when its inputs have not changed, so a second run only relinks.
#
# Also writes $CUZK_GPU_BUILD/cgo.env (CGO_CFLAGS/CGO_LDFLAGS for
# `go test -tags cuda`, sourced by .ci/cuda-build and scripts/gpu-check.sh).
set -euo pipefail

usage() { echo "usage: scripts/build-gpu.sh OUT" >&2; exit 2; }
[ $# -eq 1 ] || usage
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
case $out in /*) ;; *) out=$PWD/$out ;; esac
B=${CUZK_GPU_BUILD:-$root/.gpu-build}
mkdir -p "$B"
B=$(cd "$B" && pwd)

# --- pins -------------------------------------------------------------------
# CUDA 13.0 to match the GPU machines' driver (580). nvcc's wheel depends on
# nvvm (cicc) and crt; all are pinned and installed without dependency
# resolution so nothing floats.
CUDA_WHEELS="nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85"
# supraseal-c2 0.1.1 with sppark 0.1.11: the pair filecoin-ffi pins
# (lotus#13635, filecoin-ffi#578) after GPU out-of-memory failures with
# sppark >= 0.1.12 (lotus#13634, supranational/sppark#81: device memory not
# released between proofs). blst as the crates resolve it.
SUPRASEAL_VER=0.1.1
SPPARK_VER=0.1.11
BLST_VER=0.3.15
# sm_80 (A100, RTX 30xx) and sm_90 (H100/H200) as machine code, plus
# compute_90 PTX that newer devices (sm_100, sm_120) JIT-compile at load.
GENCODE="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]"
# blst: portable build (runtime ADX detection), as the crate's "portable"
# feature; the same define must reach the CUDA translation unit.
BLST_DEFS="-D__BLST_PORTABLE__"

log() { echo "build-gpu: $*" >&2; }
t_start=$(date +%s)

# --- 1. CUDA toolchain from PyPI ---------------------------------------------
cuda_dir=$B/cuda
if [ "$(cat "$cuda_dir/.stamp" 2>/dev/null)" != "$CUDA_WHEELS" ]; then
	log "installing $CUDA_WHEELS"
	rm -rf "$cuda_dir"
	# shellcheck disable=SC2086
	python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$cuda_dir" $CUDA_WHEELS
	echo "$CUDA_WHEELS" >"$cuda_dir/.stamp"
fi
NV=$cuda_dir/nvidia/cu13
NVCC=$NV/bin/nvcc
[ -x "$NVCC" ] || { log "no nvcc at $NVCC"; exit 1; }
[ -f "$NV/lib/libcudart_static.a" ] || { log "no libcudart_static.a in $NV/lib"; exit 1; }

# --- 2. crate sources through cargo ------------------------------------------
crates=$B/crates
want="supraseal-c2=$SUPRASEAL_VER sppark=$SPPARK_VER blst=$BLST_VER"
if [ "$(cat "$crates/.stamp" 2>/dev/null)" != "$want" ]; then
	log "fetching crates: $want"
	rm -rf "$crates"
	mkdir -p "$crates"
	cat >"$crates/Cargo.toml" <<TOML
[package]
name = "cuzk-gpu-sources"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "lib.rs"

[dependencies]
supraseal-c2 = "=$SUPRASEAL_VER"
sppark = "=$SPPARK_VER"
blst = "=$BLST_VER"
TOML
	: >"$crates/lib.rs"
	(cd "$crates" && cargo vendor --quiet --versioned-dirs vendor >/dev/null)
	echo "$want" >"$crates/.stamp"
fi
V=$crates/vendor
SUPRA=$V/supraseal-c2-$SUPRASEAL_VER
SPPARK=$V/sppark-$SPPARK_VER
BLST=$V/blst-$BLST_VER
for d in "$SUPRA/cuda" "$SPPARK/sppark" "$BLST/blst/src"; do
	[ -d "$d" ] || { log "missing $d"; exit 1; }
done

# --- 3. static library: supraseal + sppark + blst -----------------------------
# supraseal-c2's build.rs compiles cuda/groth16_cuda.cu with
# -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE -DFEATURE_BLS12_381, the blst
# feature define, -I blst/src and the sppark root, -Wno-subobject-linkage and
# -Wno-unused-function; sppark's compiles util/all_gpus.cpp with nvcc.
# cuzk_supraseal.cu includes groth16_cuda.cu and adds the C entry points.
csrc=$root/prover/gpu/csrc
NVFLAGS="-O3 -Xcompiler -fPIC -Xcompiler -Wno-subobject-linkage -Xcompiler -Wno-unused-function -t0 \
 -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE -DFEATURE_BLS12_381 $BLST_DEFS \
 -I$SUPRA/cuda -I$SPPARK/sppark -I$BLST/blst/src -I$csrc"
CFLAGS_BLST="-O2 -fPIC -fno-builtin -mno-avx -Wno-unused-function $BLST_DEFS"
key=$( { echo "$CUDA_WHEELS $want $GENCODE $NVFLAGS $CFLAGS_BLST"; cat "$csrc"/cuzk_supraseal.cu "$csrc"/cuzk_supraseal.h; } | sha256sum | cut -c1-16)
lib=$B/lib/$key/libcuzk_supraseal.a
if [ ! -f "$lib" ]; then
	obj=$B/obj/$key
	rm -rf "$obj"
	mkdir -p "$obj" "$(dirname "$lib")"
	log "compiling blst"
	gcc $CFLAGS_BLST -c "$BLST/blst/src/server.c" -o "$obj/blst_server.o"
	gcc $CFLAGS_BLST -c "$BLST/blst/build/assembly.S" -o "$obj/blst_assembly.o"
	log "compiling sppark all_gpus.cpp"
	# shellcheck disable=SC2086
	"$NVCC" $NVFLAGS -c "$SPPARK/sppark/util/all_gpus.cpp" -o "$obj/all_gpus.o"
	log "compiling supraseal groth16 (sm_80, sm_90) — minutes"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	"$NVCC" $NVFLAGS $GENCODE -c "$csrc/cuzk_supraseal.cu" -o "$obj/cuzk_supraseal.o"
	log "nvcc took $(( $(date +%s) - t0 ))s"
	ar rcs "$lib.tmp" "$obj"/*.o
	mv "$lib.tmp" "$lib"
fi
ln -sfn "$key" "$B/lib/current"

# --- 4. cgo environment --------------------------------------------------------
cat >"$B/cgo.env" <<ENV
export CGO_ENABLED=1
export CGO_CFLAGS="-I$csrc"
export CGO_LDFLAGS="-L$B/lib/current -L$NV/lib"
ENV
# shellcheck disable=SC1091
. "$B/cgo.env"

# --- 5. the binary -------------------------------------------------------------
log "go build -tags cuda -o $out ./cmd/cuzk"
# CUZK_GO_LDFLAGS: extra -ldflags (gpu-check.sh strips with "-s -w").
(cd "$root" && go build -tags cuda -ldflags "${CUZK_GO_LDFLAGS:-}" -o "$out" ./cmd/cuzk)
log "done in $(( $(date +%s) - t_start ))s: $out ($(du -h "$out" | cut -f1))"
