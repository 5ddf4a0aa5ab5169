#!/usr/bin/env bash
# Full size: a whole 32 GiB PoRep C2 (ten partitions) proven through the
# daemon on this machine from an input made without sealing, and verified by
# cuzk and by rust-fil-proofs, end to end (issue 30).
#
#   scripts/fullsize-porep.sh DIR [--skip-gen] [--no-rust] [--sector-size 32GiB|64GiB|2KiB|8MiB]
#                             [--params PDIR] [--residency auto|mapped|resident] [--nice N]
#                             [--partition K]
#
# --sector-size 2KiB runs every step in about two minutes, to check the
# script and the daemon path before the long run. The default is 32GiB.
#
# Into DIR (outside the repository; about 49 GB of free disk at 32 GiB):
#   1. cuzk c1 gen --wrapped: the C1 as Curio's PoRep task sends it (in
#      Curio's envelope; c1-wrapped.json) and plain (c1.json), commdr.json
#      with the public values, each marked as made without sealing; timed
#      with /usr/bin/time (c1-gen.time).
#   2. unless --no-rust, rust-fil-proofs' own vanilla check of the plain C1
#      (tools/rustref verify-c1: StackedDrg::verify_all_partitions).
#   3. cuzk params gen --kind porep: INSECURE test parameters under the
#      official name (47.4 GB at 32 GiB; params-gen.time). --skip-gen
#      reuses them; --params PDIR takes them from PDIR instead of DIR/params.
#   4. the daemon (default configuration but [srs] residency; auto maps a
#      32 GiB file on a 24 GiB machine) proves the wrapped C1 through `cuzk
#      bench single --type porep --c1 c1-wrapped.json --verify --json`; its
#      memory is sampled from outside every 2 s (daemon-mem.tsv: RssAnon,
#      RssFile, VmHWM); its /status (daemon-status.json) and timeline
#      (daemon-timeline.txt, .svg) are saved at the end.
#   5. cuzk verify-seal accepts the proof (all partitions, and partition 0
#      alone with --partition 0) and rejects it with the seed, comm_r or
#      one proof byte changed (exit 1 each).
#   6. unless --no-rust, tools/rustref verify-seal (filecoin-proofs-api
#      verify_seal; --partition 0 with upstream's generate_public_inputs)
#      does the same with the same .vk.
# --partition K proves partition K alone instead (step 4 through `cuzk
# prove-c2 --partition K --stage-report --cpuprofile`, not the daemon; steps 5 and 6 with
# --partition K): how a 64 GiB partition is proven and checked when a whole
# proof does not fit the session.
# It ends with a summary (summary.txt) and exits non-zero if any check
# failed.
set -euo pipefail

usage() { echo "usage: $0 DIR [--skip-gen] [--no-rust] [--sector-size 32GiB|64GiB|2KiB|8MiB] [--params PDIR] [--residency auto|mapped|resident] [--nice N] [--partition K]" >&2; exit 2; }
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
case "$SIZE" in
  2KiB) SHAPE=8-0-0-sha256_hasher-032d3138 ;;
  8MiB) SHAPE=8-0-0-sha256_hasher-ecd68364 ;;
  32GiB) SHAPE=8-8-0-sha256_hasher-82a357d2 ;;
  64GiB) SHAPE=8-8-2-sha256_hasher-96f1b4a0 ;;
  *) echo "--sector-size: $SIZE: want 32GiB, 64GiB, 2KiB or 8MiB" >&2; exit 2 ;;
esac
PGLOB="v28-stacked-proof-of-replication-merkletree-poseidon_hasher-$SHAPE*.params"
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
       END {printf "wall %s, CPU %.0f s (user %.0f + system %.0f), peak RSS %.2f GiB", w, u+s, u, s, r/1048576}' "$1"
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

echo "== 1. cuzk c1 gen ($SIZE, made without sealing)"
mkdir -p "$DIR/input"
/usr/bin/time -v -o "$DIR/c1-gen.time" "$BIN" c1 gen --sector-size "$SIZE" --wrapped --out "$DIR/input/c1-wrapped.json" > "$DIR/c1-gen.out" 2>&1 \
  || { say "FAIL c1 gen: see $DIR/c1-gen.out"; exit 1; }
"$BIN" c1 gen --sector-size "$SIZE" --out "$DIR/input/c1.json" > /dev/null
say "c1 gen: $(head -1 "$DIR/c1-gen.out")"
say "c1 gen: $(timed "$DIR/c1-gen.time"); C1 $(stat -c %s "$DIR/input/c1.json") bytes, wrapped $(stat -c %s "$DIR/input/c1-wrapped.json") bytes"
COMMDR="$DIR/input/commdr.json"

if [ "$RUST" = 1 ]; then
  echo "== 2. rust-fil-proofs' vanilla check of the generated C1 (rustref verify-c1)"
  t0=$(date +%s)
  check rustref-verify-c1 0 "$RR" verify-c1 --c1 "$DIR/input/c1.json"
  say "rustref verify-c1: $(( $(date +%s) - t0 )) s"
fi

if [ "$GEN" = 1 ]; then
  echo "== 3. params gen (porep $SIZE; at 32GiB about 40 minutes on 2 quiet cores; progress every 5 s)"
  mkdir -p "$PARAMS"
  say "free disk before params gen: $(df -h --output=avail "$PARAMS" | tail -1 | xargs)"
  /usr/bin/time -v -o "$DIR/params-gen.time" nice -n "$NICE" "$BIN" params gen --kind porep --sector-size "$SIZE" --dir "$PARAMS" 2>&1 \
    | tee "$DIR/params-gen.log" | grep --line-buffered -E '0%|5%|done|generated|error|refus' || true
  [ "${PIPESTATUS[0]}" = 0 ] || { say "FAIL params gen: see $DIR/params-gen.log"; exit 1; }
  say "params gen: $(timed "$DIR/params-gen.time")"
fi
PF=$(ls "$PARAMS"/$PGLOB)
VK=${PF%.params}.vk
say "parameters: $(basename "$PF"), $(stat -c %s "$PF") bytes; vk $(stat -c %s "$VK") bytes"

if [ -n "$PART" ]; then
  echo "== 4. prove-c2 --partition $PART (one partition, stage report)"
  check prove-c2-partition 0 /usr/bin/time -v -o "$DIR/prove-c2.time" nice -n "$NICE" "$BIN" prove-c2 --c1 "$DIR/input/c1-wrapped.json" \
    --params "$PARAMS" --partition "$PART" --stage-report "$DIR/stage-report.json" --cpuprofile "$DIR/prove-c2-cpu.pprof" --out "$DIR/proof.bin"
  say "prove-c2 --partition $PART: $(timed "$DIR/prove-c2.time")"
  grep -v '^\s*$' "$DIR/prove-c2-partition.out" | tail -20 | tee -a "$SUMMARY"
  echo "== 5. cuzk verify-seal --partition $PART"
  if [ -s "$DIR/proof.bin" ]; then
    python3 - "$COMMDR" "$DIR" "$DIR/proof.bin" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
flip = lambda h: (bytes([bytes.fromhex(h)[0] ^ 1]) + bytes.fromhex(h)[1:]).hex()
for field in ("seed", "comm_r"):
    d = dict(c); d[field] = flip(c[field])
    json.dump(d, open("%s/commdr-bad-%s.json" % (sys.argv[2], field.replace("_", "-")), "w"), indent=2)
p = bytearray(open(sys.argv[3], "rb").read())
p[0] ^= 0x20  # A's y-sign flag: -A, still decodes, must fail the pairing
open("%s/proof-bad-byte.bin" % sys.argv[2], "wb").write(p)
PY
    for v in cuzk rustref; do
      [ "$v" = rustref ] && { [ "$RUST" = 1 ] || continue; echo "== 6. the Rust reference (tools/rustref verify-seal --partition $PART)"; }
      V="$BIN"; [ "$v" = rustref ] && V="$RR"
      p=""; [ "$v" = rustref ] && p="rustref-"
      check "${p}verify-seal-partition-$PART" 0 "$V" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$COMMDR" --partition "$PART"
      check "${p}verify-seal-partition-$PART-bad-seed" 1 "$V" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$DIR/commdr-bad-seed.json" --partition "$PART"
      check "${p}verify-seal-partition-$PART-bad-comm-r" 1 "$V" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$DIR/commdr-bad-comm-r.json" --partition "$PART"
      check "${p}verify-seal-partition-$PART-bad-byte" 1 "$V" verify-seal --vk "$VK" --proof "$DIR/proof-bad-byte.bin" --commdr "$COMMDR" --partition "$PART"
    done
  else
    say "FAIL no proof to verify"; fails=$((fails+1))
  fi
  say "proof: $(xxd -p -c 192 "$DIR/proof.bin" 2>/dev/null | tr '\n' ' ' || echo none)"
  say "$fails check(s) failed"
  [ "$fails" = 0 ]
  exit
fi

echo "== 4. the daemon proves the C1 (bench single, as Curio's PoRep task sends it)"
SOCK="$DIR/cuzk.sock"; SSOCK="$DIR/cuzk-status.sock"
rm -f "$SOCK" "$SSOCK"
# Default configuration but [srs] residency and the profiler (a CPU profile
# of the first partition's prove is taken below).
printf '[daemon]\npprof = true\n\n[srs]\nresidency = "%s"\n' "$RESIDENCY" > "$DIR/daemon.toml"
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
# A CPU profile of 5 minutes from the first partition's prove on (its
# synthesis ends within a minute at 32 GiB), in the background.
( for _ in $(seq 600); do grep -q 'step="prove ' "$DIR/daemon.log" 2>/dev/null && break; sleep 1; done
  curl -s --unix-socket "$SSOCK" -o "$DIR/daemon-cpu.pprof" "http://localhost/debug/pprof/profile?seconds=300" || true ) &
PROF=$!
t0=$(date +%s)
check bench-single 0 "$BIN" bench single --addr "unix://$SOCK" --type porep --c1 "$DIR/input/c1-wrapped.json" \
  --params "$PARAMS" --verify --json --out "$DIR/proof.bin"
say "daemon prove: $(( $(date +%s) - t0 )) s wall, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$DIR/bench-single.out" <<'PY' | tee -a "$SUMMARY" || true
import json, sys
t = open(sys.argv[1]).read()
r = json.JSONDecoder().raw_decode(t[t.index("\n{") + 1 if not t.startswith("{") else 0:])[0]
res = r["result"]
s = lambda k: "%.1f s" % (res.get(k, 0) / 1e9)
print("daemon stages: status %s, queue %s, srs load %s, synthesis %s, prove %s, total %s" % (
    res.get("status"), s("queue_wait_ns"), s("srs_load_ns"), s("synthesis_ns"), s("prove_ns"), s("total_ns")))
for k, v in sorted(res.items()):
    if isinstance(v, (dict, list)) and v:
        print("daemon %s: %s" % (k, json.dumps(v)[:2000]))
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
kill $PROF 2>/dev/null || true
kill -INT $DPID; wait $DPID 2>/dev/null || true
wait $SAMPLER 2>/dev/null || true
trap - EXIT
awk -F'\t' -v hz="$(getconf CLK_TCK)" 'NR>1 { if ($2>a) a=$2; if ($3>f) f=$3; if ($4>h) h=$4; c=$5 } END { printf "daemon peak RssAnon %.2f GiB, peak RssFile %.2f GiB, VmHWM %.2f GiB, CPU %.0f s (sampled every 2 s)\n", a/1048576, f/1048576, h/1048576, c/hz }' "$DIR/daemon-mem.tsv" | tee -a "$SUMMARY"

# Every partition step, from the daemon's debug lines ("partition step"),
# lined up with the memory and CPU sampled from outside (steps.txt).
python3 "$REPO/scripts/daemon-steps.py" "$DIR/daemon.log" "$DIR/daemon-mem.tsv" | tee "$DIR/steps.txt" | tee -a "$SUMMARY" || true

echo "== 5. cuzk verify-seal"
if [ -s "$DIR/proof.bin" ]; then
  python3 - "$COMMDR" "$DIR" "$DIR/proof.bin" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
flip = lambda h: (bytes([bytes.fromhex(h)[0] ^ 1]) + bytes.fromhex(h)[1:]).hex()
for field in ("seed", "comm_r"):
    d = dict(c); d[field] = flip(c[field])
    json.dump(d, open("%s/commdr-bad-%s.json" % (sys.argv[2], field.replace("_", "-")), "w"), indent=2)
p = bytearray(open(sys.argv[3], "rb").read())
# The last partition's A with its y-sign flag flipped: -A, still a point of
# the group, so the proof decodes and must fail the pairing check (a random
# byte change gives bytes no point has, which verifiers refuse to decode).
p[len(p) - 192] ^= 0x20
open("%s/proof-bad-byte.bin" % sys.argv[2], "wb").write(p)
PY
  check verify-seal 0 "$BIN" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$COMMDR"
  check verify-seal-partition-0 0 "$BIN" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$COMMDR" --partition 0
  check verify-seal-bad-seed 1 "$BIN" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$DIR/commdr-bad-seed.json"
  check verify-seal-bad-comm-r 1 "$BIN" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$DIR/commdr-bad-comm-r.json"
  check verify-seal-bad-byte 1 "$BIN" verify-seal --vk "$VK" --proof "$DIR/proof-bad-byte.bin" --commdr "$COMMDR"
  if [ "$RUST" = 1 ]; then
    echo "== 6. the Rust reference (tools/rustref verify-seal)"
    check rustref-verify-seal 0 "$RR" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$COMMDR"
    check rustref-verify-seal-partition-0 0 "$RR" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$COMMDR" --partition 0
    check rustref-verify-seal-bad-seed 1 "$RR" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$DIR/commdr-bad-seed.json"
    check rustref-verify-seal-bad-comm-r 1 "$RR" verify-seal --vk "$VK" --proof "$DIR/proof.bin" --commdr "$DIR/commdr-bad-comm-r.json"
    check rustref-verify-seal-bad-byte 1 "$RR" verify-seal --vk "$VK" --proof "$DIR/proof-bad-byte.bin" --commdr "$COMMDR"
  fi
else
  say "FAIL no proof to verify"; fails=$((fails+1))
fi

say "proof: $(xxd -p -c 192 "$DIR/proof.bin" 2>/dev/null | tr '\n' ' ' || echo none)"
say "$fails check(s) failed"
[ "$fails" = 0 ]
