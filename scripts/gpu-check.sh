#!/usr/bin/env bash
# gpu-check.sh: the GPU backend's check on a machine with a CUDA device.
#
#   scripts/gpu-check.sh prepare [CARRY]   here (no GPU needed): build what the
#                                          GPU machine needs into CARRY
#                                          (default .gpu-carry/)
#   scripts/gpu-check.sh run [CARRY]       on the GPU machine, from the
#                                          repository root: run the check and
#                                          write the report to $OUT (or CARRY)
#   scripts/gpu-check.sh run-fullsize [CARRY]
#                                          on the GPU machine: one 32 GiB PoRep
#                                          partition on the GPU and the CPU
#                                          (below; opt-in, a device session of
#                                          its own)
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
#
# `run-fullsize` (issue 30 item 7) proves ONE 32 GiB PoRep partition from an
# input made without sealing. It is opt-in and separate from `run`, which it
# would not fit beside in a 15-minute device lease (about 10 minutes of its
# own on 16 cores); each call stops starting steps by 570 s
# (CUZK_GPU_CHECK_SECONDS; a device command is limited to 600 s):
#   1. cuzk c1 gen --sector-size 32GiB (a few seconds, 37 MB),
#   2. cuzk params gen --kind porep: INSECURE test parameters, 47.4 GB at
#      32 GiB (df first: too little free disk skips the step with the
#      numbers; about 5 minutes on 16 cores),
#   3. cuzk prove-c2 --partition 0 at fixed --r/--s with --gpu (the CUDA
#      backend under the CPU re-check, which must redo nothing) and without
#      (the CPU backend), byte-compared,
#   4. cuzk verify-seal --partition 0 accepts each proof and rejects it with
#      A negated (one bit),
#   5. the generated parameters are deleted (CUZK_FULLSIZE_KEEP=1 keeps them).
# Work goes to .gpu-fullsize/SIZE/ (CUZK_FULLSIZE_DIR; ignored by git, so it
# stays on a warm device machine between calls), never to $OUT. A step whose
# estimate does not fit the time left is not started: the call exits 3 and a
# second `run-fullsize` on the same warm machine goes on from what is there
# (C1, parameters, proofs): typically the parameters in the first call, the
# proofs in the second. Without a usable device the GPU prove and the
# comparison are skipped with a message and the rest runs on the CPU.
# CUZK_FULLSIZE_SECTOR_SIZE=2KiB (or 8MiB) runs the same steps small, and
# CUZK_FULLSIZE_PARAMS=DIR takes existing parameters from DIR (never
# deleted). Report: gpu-fullsize-report.txt, gpu-fullsize.jsonl and the
# steps' logs (fullsize-*.log) in $OUT. Exit 0: passed (or skipped for
# disk), 1: a check failed, 3: time ran out (run it again).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# fullsize CARRY OUT: run-fullsize (see the header).
fullsize() {
	local carry=$1 out=$2
	local cuzk=$carry/cuzk size=${CUZK_FULLSIZE_SECTOR_SIZE:-32GiB}
	local ncpu shape need est_gen est_gpu est_cpu
	ncpu=$(nproc)
	case $size in
	# need: the .params file (32 GiB: 47,373,928,632 bytes, its size as
	# params gen allocates it), the .vk, the C1 (37 MB) and some room.
	# Estimates are seconds on ncpu cores, from the 2-core runs (params gen
	# about 80 CPU-minutes at 32 GiB; a partition's synthesis about 55 s on
	# one core, its H and MSMs about 10 CPU-minutes).
	32GiB) shape=8-8-0-sha256_hasher-82a357d2 need=48500000000
		est_gen=$(( 5000 / ncpu + 60 )) est_gpu=180 est_cpu=$(( 90 + 1500 / ncpu )) ;;
	8MiB) shape=8-0-0-sha256_hasher-ecd68364 need=3000000000 est_gen=240 est_gpu=60 est_cpu=120 ;;
	2KiB) shape=8-0-0-sha256_hasher-032d3138 need=2000000000 est_gen=120 est_gpu=60 est_cpu=60 ;;
	*) echo "CUZK_FULLSIZE_SECTOR_SIZE=$size: want 32GiB, 8MiB or 2KiB" >&2; return 2 ;;
	esac
	need=${CUZK_FULLSIZE_NEED_BYTES:-$need} # (to try the skip)
	local test=porep-${size,,}-partition0
	local pglob="v28-stacked-proof-of-replication-merkletree-poseidon_hasher-$shape*.params"
	local work=${CUZK_FULLSIZE_DIR:-$root/.gpu-fullsize}/$size
	local params=${CUZK_FULLSIZE_PARAMS:-$work/params} own=1
	[ -z "${CUZK_FULLSIZE_PARAMS:-}" ] || own=0
	# Fixed blinding (little-endian Fr: 42 and 57), so the two backends'
	# proofs compare byte for byte.
	local r=2a00000000000000000000000000000000000000000000000000000000000000
	local s=3900000000000000000000000000000000000000000000000000000000000000
	local rep=$out/gpu-fullsize-report.txt jsonl=$out/gpu-fullsize.jsonl
	local t0 deadline rc=0 incomplete=0 device=1
	t0=$(date +%s)
	deadline=$(( t0 + ${CUZK_GPU_CHECK_SECONDS:-570} ))
	mkdir -p "$work" "$params"
	: >"$jsonl"
	say() { echo "$*" | tee -a "$rep"; }
	# jline STEP MEMBERS: one JSON object per step; MEMBERS is the rest of
	# the object as JSON ("wall_s":12,"valid":true).
	jline() { echo "{\"test\":\"$test\",\"step\":\"$1\"${2:+,$2}}" >>"$jsonl"; }
	# run_step NAME ESTIMATE CMD...: CMD under the time left (its output in
	# $out/fullsize-NAME.log; wall and peak RSS in step_wall, step_rss).
	# Not started (status 125) when the estimate does not fit; 124 when
	# the time ran out.
	local step_wall step_rss
	run_step() {
		local name=$1 est=$2 l t r=0
		shift 2
		l=$(( deadline - $(date +%s) ))
		if [ "$l" -lt "$est" ]; then
			say "## $name: not started: about ${est}s needed, ${l}s left; run \`scripts/gpu-check.sh run-fullsize\` again on this machine to go on from $work"
			jline "$name" "\"started\":false,\"needed_s\":$est,\"left_s\":$l"
			return 125
		fi
		say "## $name (limit ${l}s): $*"
		t=$(date +%s)
		local timed=()
		[ ! -x /usr/bin/time ] || timed=(/usr/bin/time -v -o "$out/fullsize-$name.time")
		"${timed[@]}" timeout -k 30 "$l" "$@" >"$out/fullsize-$name.log" 2>&1 || r=$?
		step_wall=$(( $(date +%s) - t ))
		step_rss=null
		if [ -f "$out/fullsize-$name.time" ]; then
			step_rss=$(awk '/Maximum resident/ {printf "%.2f", $NF/1048576}' "$out/fullsize-$name.time")
		fi
		grep -v -e '^\[ *[0-9.]*s\]' -e '^time=' -e '^WARNING: .* INSECURE' "$out/fullsize-$name.log" | tail -5 | tee -a "$rep"
		say "$name: exit $r after ${step_wall}s, peak RSS ${step_rss} GiB"
		return "$r"
	}
	# prove NAME FLAGS...: prove-c2 --partition 0 into $work/NAME.bin
	# (kept for a second call), with its timings in the JSON line.
	prove() {
		local name=$1 e=0
		shift
		if [ -s "$work/$name.bin" ]; then
			say "## $name: $work/$name.bin from an earlier call"
			return 0
		fi
		local est=$est_cpu
		[ "$name" != prove-gpu ] || est=$est_gpu
		run_step "$name" "$est" "$cuzk" prove-c2 "$@" --c1 "$work/c1.json" --params "$params" \
			--partition 0 --r "$r" --s "$s" --out "$work/$name.tmp" || e=$?
		[ "$e" -eq 0 ] || { status "$name" "$e"; return; }
		mv "$work/$name.tmp" "$work/$name.bin"
		local l=$out/fullsize-$name.log
		local times retries
		# prove-c2's own line: params load 1.2s, synthesis 55s, prove 1m2s, total 2m
		times=$(sed -n 's/^params load \(.*\), synthesis \(.*\), prove \(.*\), total \(.*\)$/,"params_load":"\1","synthesis":"\2","prove":"\3","total":"\4"/p' "$l")
		retries=$(sed -n 's/^proved on the GPU; redone on the CPU: \([0-9]*\)$/\1/p' "$l")
		jline "$name" "\"wall_s\":$step_wall,\"peak_rss_gib\":$step_rss$times${retries:+,\"cpu_redone\":$retries}"
		if [ -n "$retries" ] && [ "$retries" != 0 ]; then
			say "FAIL $name: the CPU re-check redid $retries GPU proof(s): the proof is not the device's"
			rm -f "$work/$name.bin"
			rc=1
		fi
	}
	# finish: delete the generated parameters once nothing is left to do,
	# write the summary and return the exit status.
	finish() {
		if [ "$incomplete" -eq 0 ] && [ "$own" -eq 1 ] && [ -z "${CUZK_FULLSIZE_KEEP:-}" ]; then
			if compgen -G "$params/$pglob" >/dev/null; then
				say "## deleting the generated parameters: $(du -sh "$params" | cut -f1) in $params"
			fi
			rm -rf "$params"
		fi
		[ "$incomplete" -eq 0 ] || [ "$rc" -ne 0 ] || rc=3
		say "## exit $rc; total $(( $(date +%s) - t0 ))s"
		[ ! -s "$jsonl" ] || { echo "## results (JSON lines)"; cat "$jsonl"; } | tee -a "$rep"
		return "$rc"
	}
	# status NAME EXIT: a step that did not pass: not started or out of
	# time is incomplete, anything else a failure.
	status() {
		case $2 in
		124 | 125) incomplete=1 ;;
		*) say "FAIL $1 (exit $2): see fullsize-$1.log"; rc=1 ;;
		esac
	}

	{
		echo "# cuzk gpu-check run-fullsize $(date -u +%FT%TZ): one $size PoRep partition"
		echo "## host: $ncpu CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); work in $work, parameters in $params"
	} | tee "$rep"
	local info=0
	"$cuzk" gpu-info >"$out/fullsize-gpu-info.log" 2>&1 || info=$?
	tee -a "$rep" <"$out/fullsize-gpu-info.log"
	if [ "$info" -ne 0 ]; then
		device=0
		say "## no usable CUDA device (gpu-info exit $info): the GPU prove and the comparison are skipped; the CPU prove and verify-seal run alone"
		jline prove-gpu "\"skipped\":true,\"reason\":\"no usable CUDA device (gpu-info exit $info)\""
	fi

	# 1. The input.
	if [ -s "$work/c1.json" ] && [ -s "$work/commdr.json" ]; then
		say "## c1-gen: $work/c1.json from an earlier call"
	else
		local g=0
		run_step c1-gen 60 "$cuzk" c1 gen --sector-size "$size" --out "$work/c1.json" || g=$?
		if [ "$g" -ne 0 ]; then status c1-gen "$g"; finish; return; fi
		jline c1-gen "\"wall_s\":$step_wall,\"peak_rss_gib\":$step_rss,\"bytes\":$(stat -c %s "$work/c1.json")"
	fi

	# 2. The parameters: df first, the file is tens of GB.
	if compgen -G "$params/$pglob" >/dev/null; then
		say "## params-gen: $(basename "$(compgen -G "$params/$pglob" | head -1)") present in $params"
	else
		local free
		free=$(df -B1 --output=avail "$params" | tail -1 | tr -d ' ')
		if [ "$free" -lt "$need" ]; then
			say "## SKIP: the $size PoRep parameters need about $(( need / 1000000000 )) GB in $params ($(df --output=target "$params" | tail -1)), which has $(( free / 1000000000 )) GB free: not generated, nothing proved (CUZK_FULLSIZE_DIR or CUZK_FULLSIZE_PARAMS to put them elsewhere)"
			jline params-gen "\"skipped\":true,\"need_bytes\":$need,\"free_bytes\":$free"
			finish
			return
		fi
		local g=0
		run_step params-gen "$est_gen" "$cuzk" params gen --kind porep --sector-size "$size" --dir "$params" || g=$?
		if [ "$g" -ne 0 ] && grep -qs 'not enough free disk space' "$out/fullsize-params-gen.log"; then
			say "## SKIP: params gen found too little free disk (above): nothing proved"
			jline params-gen "\"skipped\":true,\"need_bytes\":$need,\"free_bytes\":$free"
			finish
			return
		fi
		if [ "$g" -ne 0 ]; then status params-gen "$g"; finish; return; fi
		jline params-gen "\"wall_s\":$step_wall,\"peak_rss_gib\":$step_rss,\"bytes\":$(stat -c %s "$(compgen -G "$params/$pglob" | head -1)"),\"free_bytes_before\":$free"
	fi

	# 3. One partition on each backend, the GPU first (the shorter).
	[ "$device" -eq 0 ] || prove prove-gpu --gpu
	prove prove-cpu
	if [ "$device" -eq 1 ] && [ -s "$work/prove-gpu.bin" ] && [ -s "$work/prove-cpu.bin" ]; then
		if cmp -s "$work/prove-gpu.bin" "$work/prove-cpu.bin"; then
			say "PASS compare: the GPU and CPU proofs of partition 0 are identical ($(stat -c %s "$work/prove-gpu.bin") bytes)"
			jline compare '"identical_to_cpu":true'
		else
			say "FAIL compare: the GPU proof differs from the CPU proof at the same r, s"
			jline compare '"identical_to_cpu":false'
			rc=1
		fi
	fi

	# 4. verify-seal --partition 0: valid, and invalid with -A.
	local name
	for name in prove-gpu prove-cpu; do
		[ -s "$work/$name.bin" ] || continue
		cp "$work/$name.bin" "$out/fullsize-$name.bin"
		local v=0 bad=0 t
		t=$(date +%s)
		"$cuzk" verify-seal --params "$params" --commdr "$work/commdr.json" --proof "$work/$name.bin" --partition 0 \
			>"$out/fullsize-verify-$name.log" 2>&1 || v=$?
		local vwall=$(( $(date +%s) - t ))
		# The same proof with A's y-sign flag flipped (byte 0, 0x20): -A,
		# still a point, so it decodes and must fail the pairing check (as
		# scripts/fullsize-porep.sh does; a random byte gives no point).
		local b
		b=$(od -An -tu1 -N1 "$work/$name.bin" | tr -d ' ')
		cp "$work/$name.bin" "$work/$name.bad"
		# shellcheck disable=SC2059
		printf "\\$(printf %03o $(( b ^ 0x20 )))" | dd of="$work/$name.bad" bs=1 conv=notrunc status=none
		"$cuzk" verify-seal --params "$params" --commdr "$work/commdr.json" --proof "$work/$name.bad" --partition 0 \
			>>"$out/fullsize-verify-$name.log" 2>&1 || bad=$?
		rm -f "$work/$name.bad"
		if [ "$v" -eq 0 ] && [ "$bad" -eq 1 ]; then
			say "PASS verify-seal --partition 0: $name valid (${vwall}s), -A invalid"
			jline "verify-$name" "\"valid\":true,\"negated_a_rejected\":true,\"wall_s\":$vwall"
		else
			say "FAIL verify-seal --partition 0 on $name: exit $v (want 0), with -A exit $bad (want 1): see fullsize-verify-$name.log"
			jline "verify-$name" "\"valid\":$([ "$v" -eq 0 ] && echo true || echo false),\"negated_a_rejected\":$([ "$bad" -eq 1 ] && echo true || echo false)"
			rc=1
		fi
	done
	finish
}
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
run-fullsize)
	carry=$(cd "$carry" && pwd)
	out=${OUT:-$carry}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	set +e
	fullsize "$carry" "$out"
	code=$?
	set -e
	exit "$code"
	;;
*)
	echo "usage: scripts/gpu-check.sh prepare|run|run-fullsize [CARRY]" >&2
	exit 2
	;;
esac
