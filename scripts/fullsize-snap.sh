#!/usr/bin/env bash
# Full size: a SnapDeals update (16 partitions at 32 GiB) proven through the
# daemon on this machine from an input made without a sector, and verified
# by cuzk and by rust-fil-proofs, end to end (issue 31).
#
#   scripts/fullsize-snap.sh DIR [--sector-size 32GiB|64GiB|2KiB|8MiB|512MiB] [--partition K]
#                            [--skip-gen] [--params PDIR] [--no-rust] [--nice N]
#                            [--residency auto|mapped|resident]
#
# --sector-size 2KiB runs every step in a few minutes, to check the script
# and the daemon path before the long run. The default is 32GiB.
#
# Into DIR (outside the repository; the 32 GiB update parameters are about
# 30 GB):
#   1. cuzk snap gen: update.json (the public values, marked
#      made_without_sealing) and vproofs.json (the vanilla partition proofs
#      as Curio's Snap task sends them, with vproofs.json.MADE-WITHOUT-SEALING
#      beside it), timed with /usr/bin/time (snap-gen.time).
#   2. unless --no-rust, rust-fil-proofs' own vanilla check of them
#      (tools/rustref verify-update-vanilla: filecoin-proofs-api
#      verify_partition_proofs, and verify_single_partition_proof with
#      --partition K), and its rejection of them with comm_r_new changed.
#   3. cuzk params gen --kind snap: INSECURE test parameters under the
#      official name (params-gen.time). --skip-gen reuses them; --params PDIR
#      takes them from PDIR instead of DIR/params.
#   4. the daemon (default configuration but [srs] residency) proves the
#      update through `cuzk bench single --type snap --vanilla vproofs.json
#      --comm-r-old … --comm-r-new … --comm-d-new …`, the request Curio's
#      Snap task sends (every partition's vanilla proof, the three
#      commitments as raw bytes, no sector_size); its memory is sampled from
#      outside every 2 s (daemon-mem.tsv: RssAnon, RssFile, VmHWM); its
#      /status (daemon-status.json), timeline (daemon-timeline.txt, .svg)
#      and per-step table (steps.txt) are saved at the end.
#   5. cuzk verify-update accepts the proof (all partitions, and partition
#      0 alone with --partition 0) and rejects it with comm_r_new or one
#      proof byte changed (exit 1 each).
#   6. unless --no-rust, tools/rustref verify-update (filecoin-proofs-api
#      verify_empty_sector_update_proof; --partition 0 with upstream's
#      generate_public_inputs) does the same with the same .vk.
# --partition K proves partition K alone instead (step 4 through `cuzk
# prove-update --partition K --stage-report`, not the daemon; steps 5 and 6
# with --partition K): how one 32 or 64 GiB partition is proven and checked
# when a whole proof does not fit the session.
# It ends with a summary (summary.txt) and exits non-zero if any check
# failed.
set -euo pipefail

usage() { echo "usage: $0 DIR [--sector-size 32GiB|64GiB|2KiB|8MiB|512MiB] [--partition K] [--skip-gen] [--params PDIR] [--no-rust] [--nice N] [--residency auto|mapped|resident]" >&2; exit 2; }
[ $# -ge 1 ] || usage
DIR=$(mkdir -p "$1" && cd "$1" && pwd); shift
GEN=1; RUST=1; SIZE=32GiB; PARAMS="$DIR/params"; RESIDENCY=auto; NICE=0; PART=
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-gen) GEN=0 ;;
    --no-rust) RUST=0 ;;
    --sector-size) [ $# -ge 2 ] || usage; SIZE=$2; shift ;;
    --sector-size=*) SIZE=${1#*=} ;;
    --params) [ $# -ge 2 ] || usage; PARAMS=$(mkdir -p "$2" && cd "$2" && pwd); shift ;;
    --residency) [ $# -ge 2 ] || usage; RESIDENCY=$2; shift ;;
    --nice) [ $# -ge 2 ] || usage; NICE=$2; shift ;;
    --partition) [ $# -ge 2 ] || usage; PART=$2; shift ;;
    *) usage ;;
  esac
  shift
done
# The official name of the update circuit of each size (testdata/upstream/parameters.json).
case "$SIZE" in
  2KiB) SHAPE=8-0-0-fb9e095b ;;
  8MiB) SHAPE=8-0-0-92180959 ;;
  512MiB) SHAPE=8-0-0-61fa69f3 ;;
  32GiB) SHAPE=8-8-0-3b7f44a9 ;;
  64GiB) SHAPE=8-8-2-102e1444 ;;
  *) echo "--sector-size: $SIZE: want 32GiB, 64GiB, 2KiB, 8MiB or 512MiB" >&2; exit 2 ;;
esac
PGLOB="v28-empty-sector-update-merkletree-poseidon_hasher-$SHAPE*.params"
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
timed() { # name: wall, CPU and peak RSS from a /usr/bin/time -v file
  awk '/Elapsed \(wall/ {w=$NF} /User time/ {u=$NF} /System time/ {s=$NF} /Maximum resident/ {r=$NF}
       END {printf "wall %s, CPU %.1f s (user %.1f + system %.1f), peak RSS %.2f GiB", w, u+s, u, s, r/1048576}' "$1"
}

echo "== building cuzk into $BIN"
(cd "$REPO" && go build -o "$BIN" ./cmd/cuzk)
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian: apt-get install time)" >&2; exit 2; }
if [ "$RUST" = 1 ] && [ ! -x "$RR" ]; then
  echo "== building tools/rustref (about 20 minutes on 2 cores)"
  (cd "$REPO/tools/rustref" && cargo build --release --locked -j 2 2>&1 | tail -2)
fi

say "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), avx512ifma: $(grep -q avx512ifma /proc/cpuinfo && echo yes || echo no)"
say "commit: $(cd "$REPO" && git rev-parse --short HEAD)$(cd "$REPO" && git diff --quiet || echo ' (modified)'); free disk in $DIR: $(df -h --output=avail "$DIR" | tail -1 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== 1. cuzk snap gen ($SIZE, made without a sector)"
IN="$DIR/input"
/usr/bin/time -v -o "$DIR/snap-gen.time" "$BIN" snap gen --sector-size "$SIZE" --out "$IN" > "$DIR/snap-gen.out" 2>&1 \
  || { say "FAIL snap gen: see $DIR/snap-gen.out"; exit 1; }
say "snap gen: $(head -1 "$DIR/snap-gen.out")"
say "snap gen: $(timed "$DIR/snap-gen.time"); vproofs.json $(stat -c %s "$IN/vproofs.json") bytes"
UPD="$IN/update.json"
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$UPD" "$1"; }
RP=$(field registered_proof); CROLD=$(field comm_r_old); CRNEW=$(field comm_r_new); CDNEW=$(field comm_d_new)
# The same public values with comm_r_new changed (its first byte's low bit:
# still a field element).
python3 - "$UPD" "$DIR/update-bad-comm-r-new.json" <<'PY'
import json, sys
u = json.load(open(sys.argv[1]))
b = bytes.fromhex(u["comm_r_new"])
u["comm_r_new"] = (bytes([b[0] ^ 1]) + b[1:]).hex()
u["vproofs_file"] = "input/vproofs.json"
json.dump(u, open(sys.argv[2], "w"), indent=2)
PY

if [ "$RUST" = 1 ]; then
  echo "== 2. rust-fil-proofs' vanilla check of the generated update (rustref verify-update-vanilla)"
  t0=$(date +%s)
  check rustref-verify-update-vanilla 0 "$RR" verify-update-vanilla --update "$UPD"
  say "rustref verify-update-vanilla: $(( $(date +%s) - t0 )) s"
  if [ -n "$PART" ]; then
    check "rustref-verify-update-vanilla-partition-$PART" 0 "$RR" verify-update-vanilla --update "$UPD" --partition "$PART"
  fi
  check rustref-verify-update-vanilla-bad-comm-r-new 1 "$RR" verify-update-vanilla --update "$DIR/update-bad-comm-r-new.json"
fi

if [ "$GEN" = 1 ]; then
  echo "== 3. params gen (snap $SIZE; progress every 5 s)"
  mkdir -p "$PARAMS"
  say "free disk before params gen: $(df -h --output=avail "$PARAMS" | tail -1 | xargs)"
  /usr/bin/time -v -o "$DIR/params-gen.time" nice -n "$NICE" "$BIN" params gen --kind snap --sector-size "$SIZE" --dir "$PARAMS" 2>&1 \
    | tee "$DIR/params-gen.log" | grep --line-buffered -E '0%|5%|done|generated|error|refus' || true
  [ "${PIPESTATUS[0]}" = 0 ] || { say "FAIL params gen: see $DIR/params-gen.log"; exit 1; }
  say "params gen: $(timed "$DIR/params-gen.time")"
fi
PF=$(ls "$PARAMS"/$PGLOB)
VK=${PF%.params}.vk
say "parameters: $(basename "$PF"), $(stat -c %s "$PF") bytes; vk $(stat -c %s "$VK") bytes"

badproof() { # the proof with A's y-sign flag flipped in partition $1: -A is still a point of the group,
             # so the proof decodes and must fail the pairing check
  python3 - "$DIR/proof.bin" "$DIR/proof-bad-byte.bin" "$1" <<'PY'
import sys
p = bytearray(open(sys.argv[1], "rb").read())
k = int(sys.argv[3])
p[192 * k if len(p) > 192 else 0] ^= 0x20
open(sys.argv[2], "wb").write(p)
PY
}

verify_all() { # $1: partition to check alone ("" for the whole proof and partition 0)
  local k=$1 pflag=() sfx=
  [ -n "$k" ] && { pflag=(--partition "$k"); sfx="-partition-$k"; }
  for v in cuzk rustref; do
    [ "$v" = rustref ] && { [ "$RUST" = 1 ] || continue; echo "== 6. the Rust reference (tools/rustref verify-update)"; }
    V="$BIN"; p=""; [ "$v" = rustref ] && { V="$RR"; p="rustref-"; }
    check "${p}verify-update$sfx" 0 "$V" verify-update --vk "$VK" --proof "$DIR/proof.bin" --update "$UPD" "${pflag[@]}"
    [ -z "$k" ] && check "${p}verify-update-partition-0" 0 "$V" verify-update --vk "$VK" --proof "$DIR/proof.bin" --update "$UPD" --partition 0
    check "${p}verify-update$sfx-bad-comm-r-new" 1 "$V" verify-update --vk "$VK" --proof "$DIR/proof.bin" --update "$DIR/update-bad-comm-r-new.json" "${pflag[@]}"
    check "${p}verify-update$sfx-bad-byte" 1 "$V" verify-update --vk "$VK" --proof "$DIR/proof-bad-byte.bin" --update "$UPD" "${pflag[@]}"
  done
}

if [ -n "$PART" ]; then
  echo "== 4. prove-update --partition $PART (one partition, stage report)"
  check prove-update-partition 0 /usr/bin/time -v -o "$DIR/prove-update.time" nice -n "$NICE" "$BIN" prove-update --update "$UPD" \
    --vanilla "$IN/vproofs.json" --params "$PARAMS" --residency "$RESIDENCY" --partition "$PART" --stage-report "$DIR/stage-report.json" --out "$DIR/proof.bin"
  say "prove-update --partition $PART: $(timed "$DIR/prove-update.time")"
  grep -v '^\s*$' "$DIR/prove-update-partition.out" | tail -20 | tee -a "$SUMMARY"
  echo "== 5. cuzk verify-update --partition $PART"
  if [ -s "$DIR/proof.bin" ]; then
    badproof 0
    verify_all "$PART"
  else
    say "FAIL no proof to verify"; fails=$((fails+1))
  fi
  say "proof: $(xxd -p -c 192 "$DIR/proof.bin" 2>/dev/null | tr '\n' ' ' || echo none)"
  say "$fails check(s) failed"
  [ "$fails" = 0 ]
  exit
fi

echo "== 4. the daemon proves the update (bench single, as Curio's Snap task sends it)"
SOCK="$DIR/cuzk.sock"; SSOCK="$DIR/cuzk-status.sock"
rm -f "$SOCK" "$SSOCK"
printf '[srs]\nresidency = "%s"\n' "$RESIDENCY" > "$DIR/daemon.toml"
nice -n "$NICE" "$BIN" daemon --config "$DIR/daemon.toml" --params "$PARAMS" --listen "unix://$SOCK" --status-listen "unix://$SSOCK" --log-level debug > "$DIR/daemon.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.2; done
[ -S "$SOCK" ] || { say "FAIL daemon did not start: see $DIR/daemon.log"; exit 1; }
( printf 'unix_seconds\trss_anon_kib\trss_file_kib\tvm_hwm_kib\tcpu_ticks\n'
  while kill -0 $DPID 2>/dev/null; do
    ticks=$(awk '{print $14+$15}' /proc/$DPID/stat 2>/dev/null || echo 0)
    awk -v t="$(date +%s.%N)" -v c="$ticks" '/^RssAnon/ {a=$2} /^RssFile/ {f=$2} /^VmHWM/ {h=$2} END {printf "%.2f\t%d\t%d\t%d\t%d\n", t, a, f, h, c}' /proc/$DPID/status 2>/dev/null || true
    sleep 2
  done ) > "$DIR/daemon-mem.tsv" &
SAMPLER=$!
t0=$(date +%s)
check bench-single 0 "$BIN" bench single --addr "unix://$SOCK" --type snap --vanilla "$IN/vproofs.json" --registered-proof "$RP" \
  --comm-r-old "$CROLD" --comm-r-new "$CRNEW" --comm-d-new "$CDNEW" --params "$PARAMS" --verify --json --out "$DIR/proof.bin"
say "daemon prove: $(( $(date +%s) - t0 )) s wall, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$DIR/bench-single.out" <<'PY' | tee -a "$SUMMARY" || true
import json, sys
t = open(sys.argv[1]).read()
r = json.JSONDecoder().raw_decode(t[t.index("\n{") + 1 if not t.startswith("{") else 0:])[0]
res = r["result"]
s = lambda k: "%.1f s" % (res.get(k, 0) / 1e9)
print("daemon stages: status %s, queue %s, srs load %s, synthesis %s, prove %s, total %s" % (
    res.get("status"), s("queue_wait_ns"), s("srs_load_ns"), s("synthesis_ns"), s("prove_ns"), s("total_ns")))
if r.get("verify"):
    print("bench single --verify: %s" % json.dumps(r["verify"]))
PY
"$BIN" bench status --addr "unix://$SOCK" --status-addr "unix://$SSOCK" --json > "$DIR/daemon-status.json" 2>&1 || say "note: bench status failed: see $DIR/daemon-status.json"
"$BIN" bench timeline --status-addr "unix://$SSOCK" --svg "$DIR/daemon-timeline.svg" > "$DIR/daemon-timeline.txt" 2>&1 || say "note: bench timeline failed: see $DIR/daemon-timeline.txt"
python3 - "$DIR/daemon-status.json" <<'PY' | tee -a "$SUMMARY" || true
import json, sys
e = json.load(open(sys.argv[1]))["engine"]
m = e["memory"]
g = lambda n: "%.2f GiB" % (n / 2**30)
print("daemon budget %s, engine peak reservation %s (urgent lane %s held back)" % (
    g(m["total_bytes"]), g(m["peak_bytes"]), g(m.get("reserved_bytes", 0))))
for p in e.get("params", []):
    print("daemon params %s: tier %s, mapped %s (%s file-backed), %s counted" % (p["circuit_id"], p["tier"], p.get("mapped", False), g(p.get("mapped_bytes", 0)), g(p.get("bytes", 0))))
PY
kill -INT $DPID; wait $DPID 2>/dev/null || true
wait $SAMPLER 2>/dev/null || true
trap - EXIT
awk -F'\t' -v hz="$(getconf CLK_TCK)" 'NR>1 { if ($2>a) a=$2; if ($3>f) f=$3; if ($4>h) h=$4; c=$5 } END { printf "daemon peak RssAnon %.2f GiB, peak RssFile %.2f GiB, VmHWM %.2f GiB, CPU %.0f s (sampled every 2 s)\n", a/1048576, f/1048576, h/1048576, c/hz }' "$DIR/daemon-mem.tsv" | tee -a "$SUMMARY"

# Every partition step, from the daemon's debug lines ("partition step"),
# lined up with the memory and CPU sampled from outside (steps.txt).
python3 "$REPO/scripts/daemon-steps.py" "$DIR/daemon.log" "$DIR/daemon-mem.tsv" | tee "$DIR/steps.txt" | tee -a "$SUMMARY" || true

echo "== 5. cuzk verify-update"
if [ -s "$DIR/proof.bin" ]; then
  # The last partition's A flipped, so --partition 0 alone is not what catches it.
  badproof $(( $(stat -c %s "$DIR/proof.bin") / 192 - 1 ))
  verify_all ""
else
  say "FAIL no proof to verify"; fails=$((fails+1))
fi

say "proof: $(xxd -p -c 192 "$DIR/proof.bin" 2>/dev/null | tr '\n' ' ' || echo none)"
say "$fails check(s) failed"
[ "$fails" = 0 ]
