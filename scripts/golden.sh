#!/usr/bin/env bash
# Regenerates every golden file under testdata/rustref/ with the Rust reference harness
# (tools/rustref). Needs only cargo and access to crates.io. CI never runs this.
#
# Usage: scripts/golden.sh            # build, then regenerate everything
#        SKIP_8MIB=1 scripts/golden.sh  # skip the 8 MiB seal (about 15 s of sealing)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# shellcheck source=scripts/rustref-build.sh
source scripts/rustref-build.sh

out="testdata/rustref"
mkdir -p "$out/r1cs" "$out/stacked" "$out/seal"
regenerated=()

for c in $("$bin" cases); do
  case "$c" in
    stacked_*)
      "$bin" r1cs --case "$c" --out "$out/r1cs/$c.json" --vanilla-out "$out/stacked/$c.vanilla.json"
      regenerated+=("$out/r1cs/$c.json" "$out/stacked/$c.vanilla.json")
      ;;
    *)
      "$bin" r1cs --case "$c" --out "$out/r1cs/$c.json"
      regenerated+=("$out/r1cs/$c.json")
      ;;
  esac
done

sizes=(2KiB)
if [[ -z "${SKIP_8MIB:-}" ]]; then sizes+=(8MiB); fi
for s in "${sizes[@]}"; do
  "$bin" seal --sector-size "$s" --out "$out/seal/$s"
  "$bin" r1cs --case porep --c1 "$out/seal/$s/c1.json" --out "$out/r1cs/porep_$s.json"
  regenerated+=("$out/seal/$s/c1.json" "$out/seal/$s/commdr.json" "$out/r1cs/porep_$s.json")
done

echo "== regenerated ${#regenerated[@]} files:"
for f in "${regenerated[@]}"; do
  printf '  %8d  %s\n' "$(stat -c %s "$f")" "$f"
done
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  echo "== git status of $out:"
  git -C "$root" status --short -- "$out" || true
fi
