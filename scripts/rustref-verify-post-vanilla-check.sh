#!/usr/bin/env bash
# Checks `cuzk post gen` against rust-fil-proofs' own PoSt vanilla verification
# (`tools/rustref verify-post-vanilla`: filecoin-proofs 19 single_partition_vanilla_proofs /
# partition_vanilla_proofs, FallbackPoSt::verify with upstream's public params), at 2 KiB,
# 8 MiB, 32 GiB and 64 GiB (issue 31 item 2), and that the check can fail:
#
#   1. real vanilla proofs are accepted: the 2 KiB sectors rust-fil-proofs sealed
#      (testdata/rustref/post/2KiB) and Curio's 32 GiB sector (testdata/curio-32gib-window-post);
#   2. made-up ones are accepted: WindowPoSt of 1 sector, of several partitions, and of a full
#      partition (2,349 sectors at 32 GiB, 2,300 at 64 GiB), WinningPoSt from a sector set;
#   3. each is rejected (exit 1) with the randomness changed, a path hash changed, comm_r changed
#      (in the vanilla proof and the public values alike), the sector id changed likewise, and
#      (trees 8-8-0, 8-8-2) the leaf of the last inclusion proof changed: in a WinningPoSt that is
#      challenge 66, which upstream's partition_vanilla_proofs does not open (it zips the one
#      public sector with the 66 unrolled ones) and verify_winning_post's listing does.
#
# Prints PASS/FAIL per case (with wall time and peak RSS of the 32/64 GiB generations) and
# exits 1 if any case fails. CI never builds Rust: run by hand (about 5 minutes on 2 cores).
#
# Usage: scripts/rustref-verify-post-vanilla-check.sh [WORKDIR]   (default /tmp/rustref-post-vanilla;
#        SKIP_FULL=1 skips the full 32/64 GiB partitions, 2/3 of the run)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
work="${1:-/tmp/rustref-post-vanilla}"
rm -rf "$work/run"
mkdir -p "$work/run"
rustref="$root/tools/rustref/target/release/rustref"
# A built (or copied-in) binary is used as it is; cargo builds it only when missing.
[ -x "$rustref" ] || (cd tools/rustref && cargo build --release --locked -j "${CARGO_BUILD_JOBS:-2}" 2>&1 | tail -1)
go build -o "$work/cuzk" ./cmd/cuzk
cuzk="$work/cuzk"
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian: apt-get install time)" >&2; exit 2; }

fails=0
check() { # name, expected exit, vanilla, public
  local name=$1 want=$2 got=0
  "$rustref" verify-post-vanilla --vanilla "$3" --public "$4" > "$work/run/$name.out" 2>&1 || got=$?
  if [ "$got" = "$want" ]; then echo "PASS $name (exit $got)"; else echo "FAIL $name (exit $got, want $want): see $work/run/$name.out"; fails=$((fails+1)); fi
}

# tamper DIR VANILLA PUBLIC: four damaged copies of a made-up partition, each rejected.
tamper() {
  local name=$1 v=$2 p=$3 t
  for t in randomness path-hash comm-r sector-id last-leaf; do
    local rc=0
    python3 - "$v" "$p" "$work/run/$name-$t" "$t" <<'PY' || rc=$?
import base64, json, struct, sys
v, p, out, what = sys.argv[1:]
raw = open(v, "rb").read()
try:
    entries = [bytearray(base64.b64decode(s)) for s in json.loads(raw)]
except ValueError:
    entries = [bytearray(raw)]
pub = json.load(open(p))
e = entries[0]
if what == "randomness":
    r = bytearray.fromhex(pub["randomness"]); r[0] ^= 1; pub["randomness"] = r.hex()
elif what == "path-hash":
    # bincode FallbackPoStSectorProof: sector_id u64, comm_r, sectors len, inclusion_proofs len,
    # then the first MerkleProof's u32 variant: Single {root, leaf, path} (0) puts the first path
    # hash after root, leaf and two lengths; Sub/Top start with the base path.
    tag = struct.unpack_from("<I", e, 56)[0]
    e[60 + (64 if tag == 0 else 0) + 16] ^= 1
elif what == "comm-r":
    e[8] ^= 1
    pub["sectors"][0]["comm_r"] = bytes(e[8:40]).hex()
elif what == "last-leaf":
    # The leaf of the last inclusion proof, just before comm_c and comm_r_last, where the
    # variant (Sub, Top) ends with it: in a WinningPoSt, a challenge other than the first.
    if struct.unpack_from("<I", e, 56)[0] == 0:
        sys.exit(3)
    e[len(e) - 96] ^= 1
elif what == "sector-id":
    sid = struct.unpack_from("<Q", e, 0)[0] + 1000000
    struct.pack_into("<Q", e, 0, sid)
    pub["sectors"][0]["sector_id"] = sid
open(out + ".vanilla.json", "w").write(json.dumps([base64.b64encode(bytes(x)).decode() for x in entries]))
json.dump(pub, open(out + ".public.json", "w"))
PY
    [ "$rc" = 3 ] && continue
    [ "$rc" = 0 ] || { echo "FAIL tamper $name-$t"; fails=$((fails+1)); continue; }
    check "$name-$t" 1 "$work/run/$name-$t.vanilla.json" "$work/run/$name-$t.public.json"
  done
}

echo "== 1. real vanilla proofs"
check real-window-2KiB 0 testdata/rustref/post/2KiB/window.vanilla.json testdata/rustref/post/2KiB/window.json
check real-winning-2KiB 0 testdata/rustref/post/2KiB/winning.vanilla.json testdata/rustref/post/2KiB/winning.json
check real-window-32GiB 0 testdata/curio-32gib-window-post/post.vproof testdata/fullsize/window-post-32GiB/public.json
tamper real-window-32GiB testdata/curio-32gib-window-post/post.vproof testdata/fullsize/window-post-32GiB/public.json

echo "== 2. made-up vanilla proofs (cuzk post gen), and 3. damaged copies"
cases="window 2KiB 3|winning 2KiB 5|window 8MiB 1|winning 8MiB 2|window 32GiB 1|winning 32GiB 1000|window 64GiB 1|winning 64GiB 3"
[ "${SKIP_FULL:-0}" = 1 ] || cases="$cases|window 32GiB 2349|window 64GiB 2300"
IFS='|'
for c in $cases; do
  IFS=' ' read -r kind size n <<< "$c"
  name="$kind-$size-$n"
  d="$work/run/$name"
  /usr/bin/time -f "%e %M" -o "$d.time" "$cuzk" post gen --kind "$kind" --sector-size "$size" --sectors "$n" --out "$d" > "$d.gen.out" 2>&1 \
    || { echo "FAIL gen $name: see $d.gen.out"; fails=$((fails+1)); continue; }
  IFS=" " read -r wall rss < "$d.time"
  echo "     gen $name: ${wall} s wall, peak RSS $((rss / 1024)) MiB, $(du -sh "$d" | cut -f1)"
  for v in "$d"/vanilla*.json; do
    p=$(dirname "$v")/$(basename "$v" | sed 's/^vanilla/public/')
    check "$name-$(basename "$v" .json)" 0 "$v" "$p"
  done
  first=$(ls "$d"/vanilla*.json | head -1)
  tamper "$name" "$first" "$(dirname "$first")/$(basename "$first" | sed 's/^vanilla/public/')"
done
unset IFS
echo "$fails check(s) failed"
[ "$fails" = 0 ]
