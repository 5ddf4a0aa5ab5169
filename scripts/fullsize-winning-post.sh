#!/usr/bin/env bash
# Full size: a 32 GiB (or 64 GiB) WinningPoSt proven through the daemon as
# Curio's WinningPoSt task sends it, its latency measured with the parameters
# resident, and the proof verified by cuzk and by rust-fil-proofs (issue 31).
#
#   scripts/fullsize-winning-post.sh DIR [--sector-size 32GiB|64GiB|2KiB]
#                                    [--skip-gen] [--no-rust] [--params PDIR] [--count N]
#                                    [--sector-set N] [--load "BENCH SINGLE ARGS"] [--load-wait S]
#
# --sector-size 2KiB runs every step in well under a minute, to check the
# script; the default is 32GiB. The WinningPoSt circuit is small at every
# size (370,590 constraints at 32 GiB, 391,314 at 64 GiB), so its parameters
# are about 200 MB and the run takes minutes, not hours.
#
# Into DIR (outside the repository):
#   1. cuzk params gen --kind winning-post: INSECURE test parameters under
#      the official name (params-gen.time: wall, CPU, peak RSS). --skip-gen
#      reuses them; --params PDIR takes them from PDIR instead of DIR/params.
#   2. cuzk post gen --kind winning-post --sectors N (default 16): the sector
#      set, the drawn sector's vanilla proof (66 challenges) and public.json,
#      made without sealing (input/); timed (post-gen.time).
#   3. unless --no-rust, rust-fil-proofs' vanilla check of it
#      (tools/rustref verify-post-vanilla).
#   4. the daemon ([srs] residency = "auto": WinningPoSt's small parameters
#      decoded in memory, as an operator keeps them, while a 32 GiB load's
#      are mapped — "resident" would refuse the load) with the parameters
#      preloaded (bench preload); one proof through `cuzk bench single --type
#      winning-post --verify` (proof.bin), then the latency: `cuzk bench
#      batch --count N` (default 10) one at a time (latency-idle.json: wall
#      median, min, max; the daemon's synthesis and prove). The target is
#      <= 3 s wall on 2 quiet cores; the summary says the load average.
#   5. with --load ARGS, the latency while a big partition proves: `cuzk
#      bench single ARGS` (e.g. --type wpost --vanilla FILE --registered-proof
#      8 --randomness HEX, a 32 GiB WindowPoSt partition whose parameters are
#      in PDIR; or --type porep --c1 FILE) is submitted, the batch waits
#      --load-wait seconds (default 60) for it to reach synthesis and the
#      prover, then runs again (latency-loaded.json); the target is <= 1.5 x
#      the idle median (the reserved urgent lane). Heavy: do not run it
#      beside other heavy work on a shared machine.
#   6. cuzk verify-post accepts the proof and rejects it with the randomness,
#      comm_r or one proof byte changed (exit 1 each).
#   7. unless --no-rust, the Rust reference (tools/rustref verify-post:
#      filecoin-proofs-api verify_winning_post) does the same with the same .vk.
# The daemon's memory is sampled from outside every second (daemon-mem.tsv).
# It ends with a summary (summary.txt) and exits non-zero if any check failed.
set -euo pipefail

usage() { echo "usage: $0 DIR [--sector-size 32GiB|64GiB|2KiB] [--skip-gen] [--no-rust] [--params PDIR] [--count N] [--sector-set N] [--load \"BENCH SINGLE ARGS\"] [--load-wait S]" >&2; exit 2; }
[ $# -ge 1 ] || usage
DIR=$(mkdir -p "$1" && cd "$1" && pwd); shift
GEN=1; RUST=1; SIZE=32GiB; PARAMS="$DIR/params"; COUNT=10; SET=16; LOAD=; LOADWAIT=60
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-gen) GEN=0 ;;
    --no-rust) RUST=0 ;;
    --sector-size) [ $# -ge 2 ] || usage; SIZE=$2; shift ;;
    --sector-size=*) SIZE=${1#*=} ;;
    --params) [ $# -ge 2 ] || usage; PARAMS=$(mkdir -p "$2" && cd "$2" && pwd); shift ;;
    --count) [ $# -ge 2 ] || usage; COUNT=$2; shift ;;
    --sector-set) [ $# -ge 2 ] || usage; SET=$2; shift ;;
    --load) [ $# -ge 2 ] || usage; LOAD=$2; shift ;;
    --load-wait) [ $# -ge 2 ] || usage; LOADWAIT=$2; shift ;;
    *) usage ;;
  esac
  shift
done
# The circuit id and the official file name of its parameters (filecoin-proofs' identifier hash).
P=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher
case "$SIZE" in
  2KiB) CID=winning-2k; PGLOB="$P-8-0-0-3ea05428*.params" ;;
  32GiB) CID=winning-32g; PGLOB="$P-8-8-0-559e581f*.params" ;;
  64GiB) CID=winning-64g; PGLOB="$P-8-8-2-b6209862*.params" ;;
  *) echo "--sector-size: $SIZE: want 32GiB, 64GiB or 2KiB" >&2; exit 2 ;;
esac
REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN="$DIR/cuzk"
RR="$REPO/tools/rustref/target/release/rustref"
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
timed() { # file: wall, CPU, peak RSS of a /usr/bin/time -v output
  awk -F': ' '/Elapsed \(wall/ {w=$2} /User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {r=$2}
    END {printf "wall %s, CPU %.1f s (user %s + sys %s), peak RSS %.0f MiB", w, u+s, u, s, r/1024}' "$1"
}
load() { echo "$(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min)"; }

echo "== building cuzk into $BIN"
(cd "$REPO" && go build -o "$BIN" ./cmd/cuzk)
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian: apt-get install time)" >&2; exit 2; }
if [ "$RUST" = 1 ] && [ ! -x "$RR" ]; then
  # A built (or copied-in) binary is used as it is; cargo builds it only when missing.
  (cd "$REPO/tools/rustref" && cargo build --release --locked -j 2 2>&1 | tail -2)
fi

say "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(load)"
say "free disk in $DIR: $(df -h --output=avail "$DIR" | tail -1 | xargs)"

if [ "$GEN" = 1 ]; then
  echo "== 1. params gen ($SIZE)"
  /usr/bin/time -v -o "$DIR/params-gen.time" "$BIN" params gen --kind winning-post --sector-size "$SIZE" --dir "$PARAMS" --force > "$DIR/params-gen.log" 2>&1 \
    || { say "FAIL params gen: see $DIR/params-gen.log"; exit 1; }
  say "params gen: $(timed "$DIR/params-gen.time"); load $(load)"
fi
PF=$(ls "$PARAMS"/$PGLOB 2>/dev/null | head -1 || true)
[ -n "$PF" ] && [ -f "$PF" ] || { say "FAIL no parameters for $CID in $PARAMS"; exit 1; }
VK=${PF%.params}.vk
say "parameters: $(basename "$PF"), $(stat -c %s "$PF") bytes; .vk $(stat -c %s "$VK") bytes"

echo "== 2. post gen: a WinningPoSt of a made-up sector set of $SET"
rm -rf "$DIR/input"
/usr/bin/time -v -o "$DIR/post-gen.time" "$BIN" post gen --kind winning-post --sector-size "$SIZE" --sectors "$SET" --out "$DIR/input" > "$DIR/post-gen.out" 2>&1 \
  || { say "FAIL post gen: see $DIR/post-gen.out"; exit 1; }
say "post gen: $(timed "$DIR/post-gen.time")"
VANILLA="$DIR/input/vanilla.json"
PUBLIC="$DIR/input/public.json"
RND=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["randomness"])' "$PUBLIC")
SECTORS=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(",".join("%d:%s" % (s["sector_id"], s["comm_r"]) for s in p["sectors"]))' "$PUBLIC")
PROOF_ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["registered_proof"])' "$PUBLIC")
if [ "$RUST" = 1 ]; then
  echo "== 3. rust-fil-proofs' vanilla check"
  check rustref-verify-post-vanilla 0 "$RR" verify-post-vanilla --vanilla "$VANILLA" --public "$PUBLIC"
fi

echo "== 4. the daemon: one proof, then $COUNT for the latency"
SOCK="$DIR/cuzk.sock"; SSOCK="$DIR/cuzk-status.sock"
rm -f "$SOCK" "$SSOCK"
printf '[srs]\nresidency = "auto"\n' > "$DIR/daemon.toml"
"$BIN" daemon --config "$DIR/daemon.toml" --params "$PARAMS" --listen "unix://$SOCK" --status-listen "unix://$SSOCK" --log-level info > "$DIR/daemon.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.2; done
[ -S "$SOCK" ] || { say "FAIL daemon did not start: see $DIR/daemon.log"; exit 1; }
( printf 'seconds\trss_anon_kib\trss_file_kib\tvm_hwm_kib\n'
  start=$(date +%s)
  while kill -0 $DPID 2>/dev/null; do
    awk -v t=$(( $(date +%s) - start )) '/^RssAnon/ {a=$2} /^RssFile/ {f=$2} /^VmHWM/ {h=$2} END {printf "%d\t%d\t%d\t%d\n", t, a, f, h}' /proc/$DPID/status 2>/dev/null || true
    sleep 1
  done ) > "$DIR/daemon-mem.tsv" &
SAMPLER=$!
ADDR="unix://$SOCK"
POST=(--vanilla "$VANILLA" --registered-proof "$PROOF_ID" --randomness "$RND" --miner 1000)
check bench-preload 0 "$BIN" bench preload --addr "$ADDR" --circuit-id "$CID"
check bench-single 0 "$BIN" bench single --addr "$ADDR" --type winning-post "${POST[@]}" --params "$PARAMS" --verify --json --out "$DIR/proof.bin"
cpu() { # the daemon's CPU seconds so far (user + system)
  awk -v t="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / t}' /proc/$DPID/stat
}
latency() { # name: a batch of COUNT one at a time, its summary line
  local name=$1 c0 c1
  c0=$(cpu)
  check "$name" 0 "$BIN" bench batch --addr "$ADDR" --type winning-post "${POST[@]}" --count "$COUNT" --concurrency 1 --json --progress 0
  c1=$(cpu)
  # The daemon's CPU time per proof: what a quiet machine's wall time scales from
  # (a loaded one stretches the wall, not the CPU).
  python3 - "$DIR/$name.out" "$name" "$(load)" "$(python3 -c "print(($c1 - $c0) / $COUNT)")" <<'PY' | tee -a "$SUMMARY" || true
import json, sys
t = open(sys.argv[1]).read()
r = json.JSONDecoder().raw_decode(t[t.index("{"):])[0]
json.dump(r, open(sys.argv[1].replace(".out", ".json"), "w"), indent=1)
s = r["summary"]
d = lambda k, f: "%.2f s" % (s[k][f] / 1e9)
print("%s: %d of %d proofs, wall median %s (min %s, max %s); daemon total median %s, synthesis %s, prove %s; daemon CPU %.2f s per proof; load %s" % (
    sys.argv[2], s["completed"], s["requested"], d("wall", "median_ns"), d("wall", "min_ns"), d("wall", "max_ns"),
    d("total", "median_ns"), d("synthesis", "median_ns"), d("prove", "median_ns"), float(sys.argv[4]), sys.argv[3]))
PY
}
latency latency-idle
if [ -n "$LOAD" ]; then
  echo "== 5. latency while a big partition proves: bench single $LOAD"
  # shellcheck disable=SC2086 # LOAD is a list of arguments
  "$BIN" bench single --addr "$ADDR" $LOAD --json > "$DIR/load-job.out" 2>&1 &
  LPID=$!
  sleep "$LOADWAIT"
  kill -0 $LPID 2>/dev/null || say "note: the load job ended before the loaded batch: see $DIR/load-job.out"
  loadstate() { # what the daemon's other jobs were doing (from /status)
    curl -s --unix-socket "$SSOCK" http://localhost/status > "$DIR/$1.json" || true
    python3 - "$DIR/$1.json" "$1" <<'PY' | tee -a "$SUMMARY" || true
import json, sys
d = json.load(open(sys.argv[1]))
jobs = d.get("engine", d).get("jobs") or d.get("jobs") or []
big = [j for j in jobs if j.get("proof_kind") != "winning-post"]
print("%s: %s" % (sys.argv[2], "; ".join("%s %s %s, partitions %s" % (j.get("proof_kind"), j.get("circuit_id"), j.get("state"),
      ", ".join("%s" % {k: v for k, v in p.items() if k in ("index", "stage", "state")} for p in j.get("partitions") or [])) for j in big) or "no other job"))
PY
  }
  loadstate load-before
  latency latency-loaded
  loadstate load-after
  if kill -0 $LPID 2>/dev/null; then
    # The load has served its purpose: cancel it (the client's interrupt
    # cancels its job) rather than wait for a whole big proof.
    kill -INT $LPID 2>/dev/null || true
    wait $LPID 2>/dev/null || true
    say "load job: cancelled after the loaded batch (it was still proving)"
  else
    wait $LPID && say "load job: done" || say "note: the load job failed: see $DIR/load-job.out"
  fi
  python3 - "$DIR/latency-idle.json" "$DIR/latency-loaded.json" <<'PY' | tee -a "$SUMMARY" || true
import json, sys
i, l = (json.load(open(f))["summary"]["wall"]["median_ns"] for f in sys.argv[1:])
print("loaded / idle wall median: %.2f (target <= 1.5)" % (l / i))
PY
fi
"$BIN" bench status --addr "$ADDR" --status-addr "unix://$SSOCK" --json > "$DIR/daemon-status.json" 2>&1 || say "note: bench status failed: see $DIR/daemon-status.json"
kill -INT $DPID
for _ in $(seq 60); do kill -0 $DPID 2>/dev/null || break; sleep 1; done
kill -KILL $DPID 2>/dev/null && say "note: the daemon did not stop within 60 s of SIGINT; killed" || true
wait $DPID 2>/dev/null || true
wait $SAMPLER 2>/dev/null || true
trap - EXIT
awk -F'\t' 'NR>1 { if ($2>a) a=$2; if ($3>f) f=$3; if ($4>h) h=$4 } END { printf "daemon peak RssAnon %.0f MiB, peak RssFile %.0f MiB, VmHWM %.0f MiB (sampled every 1 s)\n", a/1024, f/1024, h/1024 }' "$DIR/daemon-mem.tsv" | tee -a "$SUMMARY"

echo "== 6. cuzk verify-post, 7. rustref verify-post"
if [ -s "$DIR/proof.bin" ]; then
  BADR=$(python3 -c 'import sys; r=bytes.fromhex(sys.argv[1]); print((bytes([r[0]^1])+r[1:]).hex())' "$RND")
  BADS=$(python3 -c 'import sys; i,c=sys.argv[1].split(":"); b=bytes.fromhex(c); print(i+":"+(bytes([b[0]^1])+b[1:]).hex())' "$SECTORS")
  # A's y-sign flag: -A, which still decodes and must fail the pairing.
  python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[0]^=0x20; open(sys.argv[2],"wb").write(b)' "$DIR/proof.bin" "$DIR/proof-bad.bin"
  for v in cuzk rustref; do
    [ "$v" = rustref ] && [ "$RUST" = 0 ] && continue
    if [ "$v" = cuzk ]; then V=("$BIN" verify-post); else V=("$RR" verify-post); fi
    check "$v-verify-post" 0 "${V[@]}" --vk "$VK" --proof "$DIR/proof.bin" --public "$PUBLIC"
    check "$v-verify-post-bad-randomness" 1 "${V[@]}" --vk "$VK" --proof "$DIR/proof.bin" --registered-proof "$PROOF_ID" --randomness "$BADR" --sectors "$SECTORS" --miner 1000
    check "$v-verify-post-bad-comm-r" 1 "${V[@]}" --vk "$VK" --proof "$DIR/proof.bin" --registered-proof "$PROOF_ID" --randomness "$RND" --sectors "$BADS" --miner 1000
    check "$v-verify-post-bad-proof-byte" 1 "${V[@]}" --vk "$VK" --proof "$DIR/proof-bad.bin" --public "$PUBLIC"
  done
else
  say "FAIL no proof to verify"; fails=$((fails+1))
fi
say "proof: $(xxd -p -c 192 "$DIR/proof.bin" 2>/dev/null || echo none)"
say "$fails check(s) failed"
[ "$fails" = 0 ]
