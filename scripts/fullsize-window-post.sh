#!/usr/bin/env bash
# Full size: a real 32 GiB WindowPoSt partition proven and verified on this
# machine, end to end (issue 20), and a 64 GiB one made without sealing
# (issue 31).
#
#   scripts/fullsize-window-post.sh DIR [--cli] [--skip-gen] [--no-rust] [--sector-size 32GiB|64GiB|2KiB]
#                                   [--params PDIR] [--residency mapped]
#
# --sector-size 64GiB proves a full partition of 2,300 made-up sectors
# (`cuzk post gen --kind window-post --sectors 2300`, tree 8-8-2; no 64 GiB
# sector exists here) with 64 GiB parameters (62.6 GB of disk, 18 min to
# make on 2 quiet cores; the prove took 16 min).
# --sector-size 2KiB runs every step below in about a minute, to check the
# script and the daemon path before the hour-long run: 2 KiB WindowPoSt
# parameters (registered proof 5, StackedDrgWindow2KiBV1), and a vanilla
# proof with its public.json made here by `cuzk seal` and `cuzk post
# vanilla` (into DIR/input). The default is 32GiB, as issue 20 asks.
#
# Into DIR (outside the repository; about 62 GB of free disk are needed):
#   1. cuzk params gen --kind window-post --sector-size 32GiB: INSECURE test
#      parameters under the official name (about 61 GB; measured with
#      /usr/bin/time -v into params-gen.time). --skip-gen reuses them.
#   2. the daemon (`cuzk daemon`, default configuration: the parameters are
#      mapped, not decoded) proves the partition from the real vanilla proof
#      of testdata/curio-32gib-window-post/ (one 32 GiB sector, padded to
#      2,349 as upstream pads) through `cuzk bench single --type wpost`; the
#      daemon's memory and CPU are sampled from outside every 2 s
#      (daemon-mem.tsv: RssAnon, RssFile, VmHWM, CPU ticks), and each prove
#      step's wall, CPU and peak memory put in steps.txt
#      (scripts/daemon-steps.py); at the end its /status is saved
#      (daemon-status.json: budget, peak reservation, parameter tier and
#      mapping, stage records) with the timeline drawn from it
#      (daemon-timeline.txt, .svg), and the summary gets the daemon's
#      per-stage timings. --params PDIR takes the parameters from PDIR
#      instead of DIR/params; --residency sets the daemon's [srs] residency
#      (default auto, which maps a 32 GiB set on a 24 GiB machine).
#   3. with --cli, the same through `cuzk prove-post` in one process, with
#      --stage-report (prove-post-stages.json: wall, CPU, peak anonymous and
#      file-backed memory per step).
#   4. cuzk verify-post accepts the proof and rejects it with the
#      randomness or comm_r changed (exit 1 each).
#   5. unless --no-rust, the Rust reference (tools/rustref verify-post:
#      storage-proofs-post 19, bellperson 0.26) accepts it with the same
#      .vk and rejects the tampered ones.
# It ends with a summary (summary.txt) and exits non-zero if any check
# failed.
set -euo pipefail

usage() { echo "usage: $0 DIR [--cli] [--skip-gen] [--no-rust] [--sector-size 32GiB|64GiB|2KiB] [--params PDIR] [--residency auto|mapped|resident]" >&2; exit 2; }
[ $# -ge 1 ] || usage
DIR=$(mkdir -p "$1" && cd "$1" && pwd); shift
CLI=0; GEN=1; RUST=1; SIZE=32GiB; PARAMS="$DIR/params"; RESIDENCY=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --cli) CLI=1 ;;
    --skip-gen) GEN=0 ;;
    --no-rust) RUST=0 ;;
    --sector-size) [ $# -ge 2 ] || usage; SIZE=$2; shift ;;
    --sector-size=*) SIZE=${1#*=} ;;
    --params) [ $# -ge 2 ] || usage; PARAMS=$(cd "$2" && pwd); shift ;;
    --residency) [ $# -ge 2 ] || usage; RESIDENCY=$2; shift ;;
    *) usage ;;
  esac
  shift
done
REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN="$DIR/cuzk"
case "$SIZE" in
  32GiB)
    PUBLIC="$REPO/testdata/fullsize/window-post-32GiB/public.json"
    VANILLA="$REPO/testdata/curio-32gib-window-post/post.vproof"
    PGLOB="v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded6*.params" ;;
  64GiB)
    PUBLIC="$DIR/input/public.json"
    VANILLA="$DIR/input/vanilla.json"
    PGLOB="v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e400*.params" ;;
  2KiB)
    PUBLIC="$DIR/input/window.public.json"
    VANILLA="$DIR/input/window.json"
    PGLOB="v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f*.params" ;;
  *) echo "--sector-size: $SIZE: want 32GiB, 64GiB or 2KiB" >&2; exit 2 ;;
esac
SUMMARY="$DIR/summary.txt"
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
fails=0
check() { # name, expected exit code, command...
  local name=$1 want=$2; shift 2
  local got=0
  "$@" > "$DIR/$name.out" 2>&1 || got=$?
  if [ "$got" = "$want" ]; then say "PASS $name (exit $got)"; else say "FAIL $name (exit $got, want $want): see $DIR/$name.out"; fails=$((fails+1)); fi
}

echo "== building cuzk into $BIN"
(cd "$REPO" && go build -o "$BIN" ./cmd/cuzk)
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian: apt-get install time)" >&2; exit 2; }

say "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
say "free disk in $DIR: $(df -h --output=avail "$DIR" | tail -1 | xargs)"

if [ "$GEN" = 1 ]; then
  echo "== 1. params gen ($SIZE; at 32GiB about 1 hour on 2 cores; progress every 5 s)"
  /usr/bin/time -v -o "$DIR/params-gen.time" "$BIN" params gen --kind window-post --sector-size "$SIZE" --dir "$PARAMS" 2>&1 | tee "$DIR/params-gen.log" | grep --line-buffered -E '0%|5%|done|generated|error|refus' || true
  [ "${PIPESTATUS[0]}" = 0 ] || { say "FAIL params gen: see $DIR/params-gen.log"; exit 1; }
  say "params gen: wall $(grep 'Elapsed (wall' "$DIR/params-gen.time" | awk '{print $NF}'), peak RSS $(awk '/Maximum resident/ {printf "%.2f GiB", $NF/1048576}' "$DIR/params-gen.time")"
fi
PF=$(ls "$PARAMS"/$PGLOB)
VK=${PF%.params}.vk
say "parameters: $(basename "$PF"), $(stat -c %s "$PF") bytes"

if [ "$SIZE" = 2KiB ]; then
  echo "== the 2 KiB input: cuzk seal, cuzk post vanilla (V1, partition 0, randomness 0)"
  rm -rf "$DIR/input"; mkdir -p "$DIR/input"
  "$BIN" seal --sector-size 2KiB --sector 1 --out "$DIR/input/s1" > "$DIR/input/seal.log" 2>&1
  "$BIN" post vanilla --kind window --registered-proof 5 --sector-dir "$DIR/input/s1" \
    --randomness 0000000000000000000000000000000000000000000000000000000000000000 --out "$VANILLA" > "$DIR/input/vanilla.log" 2>&1
fi

if [ "$SIZE" = 64GiB ]; then
  echo "== the 64 GiB input: cuzk post gen --kind window-post --sectors 2300 (made without sealing)"
  rm -rf "$DIR/input"; mkdir -p "$DIR/input"
  /usr/bin/time -v -o "$DIR/post-gen.time" "$BIN" post gen --kind window-post --sector-size 64GiB --sectors 2300 --out "$DIR/input" > "$DIR/post-gen.out" 2>&1 \
    || { say "FAIL post gen: see $DIR/post-gen.out"; exit 1; }
  say "post gen: $(tail -1 "$DIR/post-gen.out"); wall $(grep 'Elapsed (wall' "$DIR/post-gen.time" | awk '{print $NF}'), peak RSS $(awk '/Maximum resident/ {printf "%.2f GiB", $NF/1048576}' "$DIR/post-gen.time")"
fi

RND=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["randomness"])' "$PUBLIC")
PROOF_ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["registered_proof"])' "$PUBLIC")

echo "== 2. the daemon proves the partition"
SOCK="$DIR/cuzk.sock"
rm -f "$SOCK"
SSOCK="$DIR/cuzk-status.sock"
rm -f "$SSOCK"
# Default configuration but for [srs] residency (auto maps a 32 GiB
# partition's parameters on this machine; --residency mapped makes a 2 KiB
# run take the same path).
printf '[srs]\nresidency = "%s"\n' "$RESIDENCY" > "$DIR/daemon.toml"
"$BIN" daemon --config "$DIR/daemon.toml" --params "$PARAMS" --listen "unix://$SOCK" --status-listen "unix://$SSOCK" --log-level debug > "$DIR/daemon.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.2; done
[ -S "$SOCK" ] || { say "FAIL daemon did not start: see $DIR/daemon.log"; exit 1; }
# Memory and CPU of the daemon from outside, every 2 s.
( printf 'unix_seconds\trss_anon_kib\trss_file_kib\tvm_hwm_kib\tcpu_ticks\n'
  while kill -0 $DPID 2>/dev/null; do
    ticks=$(awk '{print $14+$15}' /proc/$DPID/stat 2>/dev/null || echo 0)
    awk -v t="$(date +%s.%N)" -v c="$ticks" '/^RssAnon/ {a=$2} /^RssFile/ {f=$2} /^VmHWM/ {h=$2} END {printf "%.2f\t%d\t%d\t%d\t%d\n", t, a, f, h, c}' /proc/$DPID/status 2>/dev/null || true
    sleep 2
  done ) > "$DIR/daemon-mem.tsv" &
SAMPLER=$!
t0=$(date +%s)
check bench-single 0 "$BIN" bench single --addr "unix://$SOCK" --type wpost --vanilla "$VANILLA" --registered-proof "$PROOF_ID" \
  --randomness "$RND" --miner 1000 --params "$PARAMS" --verify --json --out "$DIR/proof.bin"
say "daemon prove: $(( $(date +%s) - t0 )) s wall"
# The daemon's own account: per-stage timings of the job (bench single's
# report), its /status (budget, reservation, stage records) and the timeline
# drawn from them.
python3 - "$DIR/bench-single.out" <<'PY' | tee -a "$SUMMARY" || true
import json, sys
t = open(sys.argv[1]).read()
# stderr's progress lines ("waiting for the proof; ...") come before the report.
r = json.JSONDecoder().raw_decode(t[t.index("\n{") + 1 if not t.startswith("{") else 0:])[0]["result"]
ms = lambda k: "%.1f s" % (r.get(k, 0) / 1e9)
print("daemon stages: status %s, queue %s, srs load %s, synthesis %s, prove %s, total %s" % (
    r.get("status"), ms("queue_wait_ns"), ms("srs_load_ns"), ms("synthesis_ns"), ms("prove_ns"), ms("total_ns")))
PY
"$BIN" bench status --addr "unix://$SOCK" --status-addr "unix://$SSOCK" --json > "$DIR/daemon-status.json" 2>&1 || say "note: bench status failed: see $DIR/daemon-status.json"
"$BIN" bench timeline --status-addr "unix://$SSOCK" --svg "$DIR/daemon-timeline.svg" > "$DIR/daemon-timeline.txt" 2>&1 || say "note: bench timeline failed: see $DIR/daemon-timeline.txt"
python3 - "$DIR/daemon-status.json" <<'PY' | tee -a "$SUMMARY" || true
import json, sys
e = json.load(open(sys.argv[1]))["engine"]
m = e["memory"]
g = lambda n: "%.2f GiB" % (n / 2**30)
print("daemon budget %s, engine peak reservation %s (urgent lane %s held back), process anon %s now" % (
    g(m["total_bytes"]), g(m["peak_bytes"]), g(m.get("reserved_bytes", 0)), g(m.get("process_anon_bytes", 0))))
for p in e.get("params", []):
    print("daemon params %s: tier %s, mapped %s (%s file-backed), %s counted" % (p["circuit_id"], p["tier"], p.get("mapped", False), g(p.get("mapped_bytes", 0)), g(p.get("bytes", 0))))
PY
kill -INT $DPID; wait $DPID 2>/dev/null || true
wait $SAMPLER 2>/dev/null || true
trap - EXIT
awk -F'\t' -v hz="$(getconf CLK_TCK)" 'NR>1 { if ($2>a) a=$2; if ($3>f) f=$3; if ($4>h) h=$4; c=$5 } END { printf "daemon peak RssAnon %.2f GiB, peak RssFile %.2f GiB, VmHWM %.2f GiB, CPU %.0f s (sampled every 2 s)\n", a/1048576, f/1048576, h/1048576, c/hz }' "$DIR/daemon-mem.tsv" | tee -a "$SUMMARY"
# The partition's steps, from the daemon's debug lines ("partition step"),
# lined up with the memory and CPU sampled from outside (steps.txt).
python3 "$REPO/scripts/daemon-steps.py" "$DIR/daemon.log" "$DIR/daemon-mem.tsv" | tee "$DIR/steps.txt" | tee -a "$SUMMARY" || true

if [ "$CLI" = 1 ]; then
  echo "== 3. prove-post in one process, with a stage report"
  check prove-post 0 /usr/bin/time -v -o "$DIR/prove-post.time" "$BIN" prove-post --vanilla "$VANILLA" --public "$PUBLIC" \
    --params "$PARAMS" --stage-report "$DIR/prove-post-stages.json" --out "$DIR/proof-cli.bin"
  grep -A20 '^step' "$DIR/prove-post.out" | tee -a "$SUMMARY" || true
  say "prove-post: wall $(grep 'Elapsed (wall' "$DIR/prove-post.time" | awk '{print $NF}'), peak RSS $(awk '/Maximum resident/ {printf "%.2f GiB", $NF/1048576}' "$DIR/prove-post.time")"
fi

echo "== 4. cuzk verify-post"
if [ -s "$DIR/proof.bin" ]; then
  # The tampered public values as files: 2,300 sectors do not fit one
  # command-line argument.
  python3 - "$PUBLIC" "$DIR" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.pop("vanilla_proofs_file", None)  # relative to the original; not read to verify
flip = lambda h: (bytes([bytes.fromhex(h)[0] ^ 1]) + bytes.fromhex(h)[1:]).hex()
r = dict(p); r["randomness"] = flip(p["randomness"])
json.dump(r, open(sys.argv[2] + "/public-bad-randomness.json", "w"), indent=1)
c = json.loads(json.dumps(p)); c["sectors"][0]["comm_r"] = flip(p["sectors"][0]["comm_r"])
json.dump(c, open(sys.argv[2] + "/public-bad-comm-r.json", "w"), indent=1)
PY
  check verify-post 0 "$BIN" verify-post --vk "$VK" --proof "$DIR/proof.bin" --public "$PUBLIC"
  if [ "$CLI" = 1 ]; then
    check verify-post-cli 0 "$BIN" verify-post --vk "$VK" --proof "$DIR/proof-cli.bin" --public "$PUBLIC"
  fi
  check verify-post-bad-randomness 1 "$BIN" verify-post --vk "$VK" --proof "$DIR/proof.bin" --public "$DIR/public-bad-randomness.json"
  check verify-post-bad-comm-r 1 "$BIN" verify-post --vk "$VK" --proof "$DIR/proof.bin" --public "$DIR/public-bad-comm-r.json"
  if [ "$RUST" = 1 ]; then
    echo "== 5. the Rust reference (tools/rustref verify-post)"
    RR="$REPO/tools/rustref/target/release/rustref"
    # A built (or copied-in) binary is used as it is; cargo builds it only
    # when it is missing (about 20 minutes on 2 cores).
    [ -x "$RR" ] || (cd "$REPO/tools/rustref" && cargo build --release --locked -j 2 2>&1 | tail -2)
    check rustref-verify-post 0 "$RR" verify-post --vk "$VK" --proof "$DIR/proof.bin" --public "$PUBLIC"
    check rustref-verify-post-bad-randomness 1 "$RR" verify-post --vk "$VK" --proof "$DIR/proof.bin" --public "$DIR/public-bad-randomness.json"
    check rustref-verify-post-bad-comm-r 1 "$RR" verify-post --vk "$VK" --proof "$DIR/proof.bin" --public "$DIR/public-bad-comm-r.json"
  fi
else
  say "FAIL no proof to verify"; fails=$((fails+1))
fi

say "proof: $(xxd -p -c 192 "$DIR/proof.bin" 2>/dev/null || echo none)"
say "$fails check(s) failed"
[ "$fails" = 0 ]
