#!/usr/bin/env bash
# Full size: a real 32 GiB WindowPoSt partition proven and verified on this
# machine, end to end (issue 20).
#
#   scripts/fullsize-window-post.sh DIR [--cli] [--skip-gen] [--no-rust]
#
# Into DIR (outside the repository; about 62 GB of free disk are needed):
#   1. cuzk params gen --kind window-post --sector-size 32GiB: INSECURE test
#      parameters under the official name (about 61 GB; measured with
#      /usr/bin/time -v into params-gen.time). --skip-gen reuses them.
#   2. the daemon (`cuzk daemon`, default configuration: the parameters are
#      mapped, not decoded) proves the partition from the real vanilla proof
#      of testdata/curio-32gib-window-post/ (one 32 GiB sector, padded to
#      2,349 as upstream pads) through `cuzk bench single --type wpost`; the
#      daemon's memory is sampled from outside every 2 s (daemon-mem.tsv:
#      RssAnon, RssFile, VmHWM) and its /status saved at the end.
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

usage() { echo "usage: $0 DIR [--cli] [--skip-gen] [--no-rust]" >&2; exit 2; }
[ $# -ge 1 ] || usage
DIR=$(mkdir -p "$1" && cd "$1" && pwd); shift
CLI=0; GEN=1; RUST=1
for a in "$@"; do
  case "$a" in
    --cli) CLI=1 ;;
    --skip-gen) GEN=0 ;;
    --no-rust) RUST=0 ;;
    *) usage ;;
  esac
done
REPO=$(cd "$(dirname "$0")/.." && pwd)
GOLD="$REPO/testdata/fullsize/window-post-32GiB"
VANILLA="$REPO/testdata/curio-32gib-window-post/post.vproof"
PARAMS="$DIR/params"
BIN="$DIR/cuzk"
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
  echo "== 1. params gen (about 1 hour on 2 cores; progress every 5 s)"
  /usr/bin/time -v -o "$DIR/params-gen.time" "$BIN" params gen --kind window-post --sector-size 32GiB --dir "$PARAMS" 2>&1 | tee "$DIR/params-gen.log" | grep --line-buffered -E '0%|5%|done|generated|error|refus' || true
  [ "${PIPESTATUS[0]}" = 0 ] || { say "FAIL params gen: see $DIR/params-gen.log"; exit 1; }
  say "params gen: wall $(grep 'Elapsed (wall' "$DIR/params-gen.time" | awk '{print $NF}'), peak RSS $(awk '/Maximum resident/ {printf "%.2f GiB", $NF/1048576}' "$DIR/params-gen.time")"
fi
PF=$(ls "$PARAMS"/v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded6*.params)
VK=${PF%.params}.vk
say "parameters: $(basename "$PF"), $(stat -c %s "$PF") bytes"

RND=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["randomness"])' "$GOLD/public.json")
SECTORS=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(",".join("%d:%s" % (s["sector_id"], s["comm_r"]) for s in p["sectors"]))' "$GOLD/public.json")
PROOF_ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["registered_proof"])' "$GOLD/public.json")

echo "== 2. the daemon proves the partition"
SOCK="$DIR/cuzk.sock"
rm -f "$SOCK"
"$BIN" daemon --param-cache "$PARAMS" --listen "unix://$SOCK" --log-level info > "$DIR/daemon.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.2; done
[ -S "$SOCK" ] || { say "FAIL daemon did not start: see $DIR/daemon.log"; exit 1; }
# Memory of the daemon from outside, every 2 s.
( printf 'seconds\trss_anon_kib\trss_file_kib\tvm_hwm_kib\n'
  start=$(date +%s)
  while kill -0 $DPID 2>/dev/null; do
    awk -v t=$(( $(date +%s) - start )) '/^RssAnon/ {a=$2} /^RssFile/ {f=$2} /^VmHWM/ {h=$2} END {printf "%d\t%d\t%d\t%d\n", t, a, f, h}' /proc/$DPID/status 2>/dev/null || true
    sleep 2
  done ) > "$DIR/daemon-mem.tsv" &
SAMPLER=$!
t0=$(date +%s)
check bench-single 0 "$BIN" bench single --addr "unix://$SOCK" --type wpost --vanilla "$VANILLA" --registered-proof "$PROOF_ID" \
  --randomness "$RND" --miner-id 1000 --params "$PARAMS" --verify --json --out "$DIR/proof.bin"
say "daemon prove: $(( $(date +%s) - t0 )) s wall"
kill -INT $DPID; wait $DPID 2>/dev/null || true
wait $SAMPLER 2>/dev/null || true
trap - EXIT
awk -F'\t' 'NR>1 { if ($2>a) a=$2; if ($3>f) f=$3; if ($4>h) h=$4 } END { printf "daemon peak RssAnon %.2f GiB, peak RssFile %.2f GiB, VmHWM %.2f GiB (sampled every 2 s)\n", a/1048576, f/1048576, h/1048576 }' "$DIR/daemon-mem.tsv" | tee -a "$SUMMARY"

if [ "$CLI" = 1 ]; then
  echo "== 3. prove-post in one process, with a stage report"
  check prove-post 0 /usr/bin/time -v -o "$DIR/prove-post.time" "$BIN" prove-post --vanilla "$VANILLA" --public "$GOLD/public.json" \
    --params "$PARAMS" --stage-report "$DIR/prove-post-stages.json" --out "$DIR/proof-cli.bin"
  grep -A20 '^step' "$DIR/prove-post.out" | tee -a "$SUMMARY" || true
fi

echo "== 4. cuzk verify-post"
if [ -s "$DIR/proof.bin" ]; then
  BADR=$(python3 -c 'import sys; r=bytes.fromhex(sys.argv[1]); print((bytes([r[0]^1])+r[1:]).hex())' "$RND")
  BADS=$(python3 -c 'import sys; i,c=sys.argv[1].split(":"); b=bytes.fromhex(c); print(i+":"+(bytes([b[0]^1])+b[1:]).hex())' "$SECTORS")
  check verify-post 0 "$BIN" verify-post --vk "$VK" --proof "$DIR/proof.bin" --public "$GOLD/public.json"
  check verify-post-bad-randomness 1 "$BIN" verify-post --vk "$VK" --proof "$DIR/proof.bin" --registered-proof "$PROOF_ID" --randomness "$BADR" --sectors "$SECTORS"
  check verify-post-bad-comm-r 1 "$BIN" verify-post --vk "$VK" --proof "$DIR/proof.bin" --registered-proof "$PROOF_ID" --randomness "$RND" --sectors "$BADS"
  if [ "$RUST" = 1 ]; then
    echo "== 5. the Rust reference (tools/rustref verify-post)"
    (cd "$REPO/tools/rustref" && cargo build --release -j 2 2>&1 | tail -2)
    RR="$REPO/tools/rustref/target/release/rustref"
    check rustref-verify-post 0 "$RR" verify-post --vk "$VK" --proof "$DIR/proof.bin" --public "$GOLD/public.json"
    check rustref-verify-post-bad-randomness 1 "$RR" verify-post --vk "$VK" --proof "$DIR/proof.bin" --registered-proof "$PROOF_ID" --randomness "$BADR" --sectors "$SECTORS" --miner 1000
    check rustref-verify-post-bad-comm-r 1 "$RR" verify-post --vk "$VK" --proof "$DIR/proof.bin" --registered-proof "$PROOF_ID" --randomness "$RND" --sectors "$BADS" --miner 1000
  fi
else
  say "FAIL no proof to verify"; fails=$((fails+1))
fi

say "proof: $(xxd -p -c 192 "$DIR/proof.bin" 2>/dev/null || echo none)"
say "$fails check(s) failed"
[ "$fails" = 0 ]
