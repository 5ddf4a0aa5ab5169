#!/usr/bin/env bash
# gpu-check.sh: the GPU backend's check on a machine with a CUDA device.
#
#   scripts/gpu-check.sh prepare [CARRY]   here (no GPU needed): build what the
#                                          GPU machine needs into CARRY
#                                          (default .gpu-carry/)
#   scripts/gpu-check.sh run [CARRY]       on the GPU machine, from the
#                                          repository root: run the check and
#                                          write the report to $OUT (or CARRY)
#
# CARRY holds only two static binaries (CUDA runtime linked statically: the
# machine needs its driver's libcuda.so.1 and nothing from the CUDA toolkit):
#   cuzk       cuzk built with -tags cuda (gpu-info)
#   gpu.test   the prover/gpu test binary built with -tags cuda
# The 2 KiB test parameters (about 1.8 GB for the four circuits) do not fit
# a carry; `run` generates them on the GPU machine (deterministic: the
# default seed).
#
# `run` checks, within about 8 minutes on an H200:
#   - the devices (cuzk gpu-info),
#   - layout and Montgomery agreement of Go and the C++ types,
#   - a small mixed circuit (batch of 3), a freshly sealed 2 KiB PoRep and
#     the other kinds over it (a WindowPoSt partition, a WinningPoSt, a
#     SnapDeals update) proved on the GPU, byte-identical to the CPU
#     backend at fixed r, s, and verified,
#   - MSM and NTT times at 2^24..2^27 (CUZK_GPU_BENCH_LOGS to change).
# It writes gpu-check-report.txt and gpu-check.jsonl (one JSON object per
# measurement) to $OUT. On a lent device machine: prepare here, then run
# `scripts/gpu-check.sh run` there with .gpu-carry carried (about 31 MB).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
carry=${2:-$root/.gpu-carry}

case $mode in
prepare)
	mkdir -p "$carry"
	carry=$(cd "$carry" && pwd)
	CUZK_GO_LDFLAGS="-s -w" "$root/scripts/build-gpu.sh" "$carry/cuzk"
	B=${CUZK_GPU_BUILD:-$root/.gpu-build}
	# shellcheck disable=SC1091
	. "$B/cgo.env"
	(cd "$root" && go test -c -tags cuda -ldflags "-s -w" -o "$carry/gpu.test" ./prover/gpu)
	du -sh "$carry"/* "$carry"
	;;
run)
	carry=$(cd "$carry" && pwd)
	out=${OUT:-$carry}
	mkdir -p "$out"
	rep=$out/gpu-check-report.txt
	jsonl=$out/gpu-check.jsonl
	: >"$jsonl"
	t0=$(date +%s)
	{
		echo "# cuzk gpu-check $(date -u +%FT%TZ)"
		echo "## host: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
		echo "## cuzk gpu-info"
	} | tee "$rep"
	set +e
	"$carry/cuzk" gpu-info 2>&1 | tee -a "$rep"
	info=${PIPESTATUS[0]}
	set -e
	if [ "$info" -ne 0 ]; then
		echo "## no usable CUDA device (gpu-info exit $info): nothing to check" | tee -a "$rep"
		exit "$info"
	fi
	# Everything must fit in about 8 minutes: generate the parameters (CPU)
	# while the device runs the kernel checks and timings.
	deadline=$(( t0 + ${CUZK_GPU_CHECK_SECONDS:-470} ))
	left() { local s=$(( deadline - $(date +%s) )); [ "$s" -gt 30 ] || s=30; echo "$s"; }
	params=${CUZK_TEST_PARAMS:-$out/params}
	mkdir -p "$params"
	tp=$(date +%s)
	# The 2 KiB PoRep parameters first (the bigger check), then those of the
	# other kinds (WindowPoSt 11 MB, WinningPoSt 47 MB, SnapDeals 656 MB).
	(
		"$carry/cuzk" params gen --sector-size 2KiB --dir "$params" >"$out/params-gen.log" 2>&1 || exit 1
		for k in window-post winning-post snap; do
			"$carry/cuzk" params gen --kind "$k" --sector-size 2KiB --dir "$params" >>"$out/params-gen-kinds.log" 2>&1 || exit 2
		done
	) &
	gen=$!
	gotest() { # gotest NAME REGEXP [MAX_SECONDS]
		local s
		s=$(left)
		[ -z "${3:-}" ] || [ "$s" -le "$3" ] || s=$3
		echo "## tests: $1 (limit ${s}s)" | tee -a "$rep"
		set +e
		CUZK_TEST_PARAMS=$params CUZK_GPU_REPORT=$jsonl \
			CUZK_GPU_BENCH_LOGS=${CUZK_GPU_BENCH_LOGS:-24,25,26,27} \
			timeout "$s" "$carry/gpu.test" -test.v -test.count=1 -test.timeout="$(( s - 5 ))s" -test.run "$2" 2>&1 |
			grep -v '^=== RUN' | tee -a "$rep"
		local r=${PIPESTATUS[0]}
		set -e
		[ "$r" -eq 0 ] || rc=$r
	}
	rc=0
	gotest "layout, small circuit vs CPU, MSM/NTT" 'TestLayout|TestMontgomeryAgreement|TestPointDecoding|TestDeviceProveMatchesCPU|TestDeviceMSMNTT' 240
	echo "## 2 KiB test parameters (PoRep, then the other kinds)" | tee -a "$rep"
	set +e
	wait "$gen"
	g=$?
	set -e
	tail -3 "$out/params-gen.log" | tee -a "$rep"
	echo "params gen exit $g after $(( $(date +%s) - tp ))s" | tee -a "$rep"
	if [ "$g" -ne 1 ]; then
		gotest "2 KiB PoRep vs CPU" 'TestDevicePoRep2KiB'
	else
		rc=1
	fi
	# WindowPoSt, WinningPoSt, SnapDeals (their parameters are made by the
	# test itself if the generator above stopped early).
	[ "$g" -eq 0 ] || tail -3 "$out/params-gen-kinds.log" 2>/dev/null | tee -a "$rep"
	gotest "2 KiB WindowPoSt, WinningPoSt, SnapDeals vs CPU" 'TestDeviceKinds2KiB'
	{
		echo "## results (JSON lines)"
		cat "$jsonl"
		echo "## exit $rc; total $(( $(date +%s) - t0 ))s"
	} | tee -a "$rep"
	exit "$rc"
	;;
*)
	echo "usage: scripts/gpu-check.sh prepare|run [CARRY]" >&2
	exit 2
	;;
esac
