#!/usr/bin/env bash
# Regenerates the WindowPoSt / WinningPoSt / EmptySectorUpdate goldens under testdata/rustref/
# (issue 13) with the Rust reference harness (tools/rustref): the real storage-proofs-post and
# storage-proofs-update 19.0.1 circuits and filecoin-proofs-api 19.0.0. Needs only cargo and
# crates.io. CI never runs this.
#
# Usage: scripts/golden-post.sh             # everything
#        SKIP_8MIB=1 scripts/golden-post.sh # skip the 8 MiB SnapDeals sector (seal + 4 partitions of ~10M rows)
#        SKIP_PROOF=1 scripts/golden-post.sh # skip the outside 2 KiB WindowPoSt Groth16 proof
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# shellcheck source=scripts/rustref-build.sh
source scripts/rustref-build.sh

out="testdata/rustref"
mkdir -p "$out/r1cs" "$out/post/2KiB" "$out/update"
regenerated=()

# 3. Each new gadget alone, on the shared deterministic stream.
for c in $("$bin" up-cases); do
  "$bin" r1cs --case "$c" --out "$out/r1cs/$c.json"
  regenerated+=("$out/r1cs/$c.json")
done

# 1. PoSt at 2 KiB: seal sectors 1 and 2, vanilla proofs, then the real circuits.
"$bin" post-vanilla --out "$out/post/2KiB"
regenerated+=("$out/post/2KiB/window.json" "$out/post/2KiB/window.vanilla.json"
              "$out/post/2KiB/winning.json" "$out/post/2KiB/winning.vanilla.json")
for k in window winning; do
  "$bin" r1cs --case "${k}_post" --vanilla "$out/post/2KiB/$k.json" --out "$out/r1cs/${k}_post_2KiB.json"
  regenerated+=("$out/r1cs/${k}_post_2KiB.json")
done

# 2. EmptySectorUpdate: 2 KiB (1 partition) and 8 MiB (4 partitions).
sizes=(2KiB)
if [[ -z "${SKIP_8MIB:-}" ]]; then sizes+=(8MiB); fi
for s in "${sizes[@]}"; do
  "$bin" snap-encode --sector-size "$s" --out "$out/update/$s"
  regenerated+=("$out/update/$s/update.json" "$out/update/$s/vproofs.json")
  parts=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["partitions"])' "$out/update/$s/update.json")
  for ((k = 0; k < parts; k++)); do
    "$bin" r1cs --case update --vanilla "$out/update/$s/update.json" --partition "$k" --out "$out/r1cs/update_${s}_p$k.json"
    regenerated+=("$out/r1cs/update_${s}_p$k.json")
  done
done

# 4. An outside 2 KiB WindowPoSt Groth16 proof (random parameters, seed 42).
if [[ -z "${SKIP_PROOF:-}" ]]; then
  "$bin" post-proof --vanilla "$out/post/2KiB/window.json" --out "$out/post/outside-window-2k" --seed 42
  regenerated+=("$out/post/outside-window-2k/vk.bin" "$out/post/outside-window-2k/proof.bin"
                "$out/post/outside-window-2k/public.json")
fi

echo "== regenerated ${#regenerated[@]} files:"
for f in "${regenerated[@]}"; do
  printf '  %8d  %s\n' "$(stat -c %s "$f")" "$f"
done
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  echo "== git status of $out:"
  git -C "$root" status --short -- "$out" || true
fi
