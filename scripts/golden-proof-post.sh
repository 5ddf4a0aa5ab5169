#!/usr/bin/env bash
# Writes testdata/rustref/proof/{window_post_2KiB,winning_post_2KiB,update_2KiB_p0}.json:
# the proofs bellperson makes (tools/rustref prove: create_proof_batch[_in_priority] with
# fixed r = 1, s = 2) for the real storage-proofs-post / storage-proofs-update 19.0.1
# circuits built from the committed vanilla proofs (testdata/rustref/post/2KiB,
# testdata/rustref/update/2KiB), with cuzk's INSECURE test parameters for those circuits
# (groth16.Setup over the blank circuit with testparams.ToxicWaste(DefaultSeed), written by
# `cuzk params gen --kind`, the same files the daemon's tests cache). internal/proofgolden's tests (CUZK_E2E=1) require
# cuzk to produce the same bytes. CI never runs this.
#
# Run only when the vanilla goldens, the parameter seed, the setup or a blank circuit change.
# Usage: scripts/golden-proof-post.sh   (PARAMS_DIR=DIR keeps the generated parameters there;
#        REUSE_PARAMS=1 with it reuses those listed in DIR/params.txt instead of regenerating)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# shellcheck source=scripts/rustref-build.sh
source scripts/rustref-build.sh

dir="${PARAMS_DIR:-$(mktemp -d)}"
if [[ -n "${REUSE_PARAMS:-}" && -f "$dir/params.txt" ]]; then
  echo "== reusing the test parameters listed in $dir/params.txt"
else
  echo "== test parameters in $dir (cuzk params gen --kind)"
  : > "$dir/params.txt"
  for c in "window_post_2KiB window-post" "winning_post_2KiB winning-post" "update_2KiB_p0 snap"; do
    set -- $c
    go run ./cmd/cuzk params gen --kind "$2" --sector-size 2KiB --dir "$dir" --force | tee "$dir/gen-$1.log"
  done
  # params gen names its files officially; pick each case's by its parameter-set prefix.
  for c in "window_post_2KiB proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f" \
           "winning_post_2KiB proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428" \
           "update_2KiB_p0 empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095b"; do
    set -- $c
    f=$(ls "$dir"/v28-"$2"*.params)
    echo "$1 $f $(sha256sum "$f" | cut -c1-64)" >> "$dir/params.txt"
  done
fi

r=01$(printf '0%.0s' $(seq 62))
s=02$(printf '0%.0s' $(seq 62))
out="$(mktemp -d)"
mkdir -p testdata/rustref/proof
written=()
while read -r name params sum; do
  case "$name" in
    window_post_2KiB) args=(--case window_post --vanilla testdata/rustref/post/2KiB/window.json); vanilla=post/2KiB/window.json ;;
    winning_post_2KiB) args=(--case winning_post --vanilla testdata/rustref/post/2KiB/winning.json); vanilla=post/2KiB/winning.json ;;
    update_2KiB_p0) args=(--case update --vanilla testdata/rustref/update/2KiB/update.json --partition 0); vanilla=update/2KiB/update.json ;;
    *) echo "unknown case $name" >&2; exit 1 ;;
  esac
  echo "== bellperson proof of $name"
  "$bin" prove --params "$params" "${args[@]}" --r "$r" --s "$s" --out "$out/$name.bin" > "$out/$name.json"
  dst="testdata/rustref/proof/$name.json"
  python3 - "$out/$name.json" "$dst" "$name" "$vanilla" "$(basename "$params")" "$sum" <<'PY'
import json, sys
summary, dst, name, vanilla, params_file, params_sha = sys.argv[1:]
s = json.load(open(summary))
assert s["partitions"] == 1 and all(s["verified_with_params_vk"]), s
c = s["circuits"][0]
out = {
    "description": (
        "bellperson 0.26 %s proof (tools/rustref prove, CPU) of the real %s circuit built from %s "
        "as upstream's compound proof builds it (partition %d), with cuzk's INSECURE test parameters "
        "(groth16.Setup over the blank circuit with testparams.ToxicWaste(params_seed); file params_file, "
        "SHA-256 params_sha256) and r, s as 64-hex LE Fr. public_inputs are upstream's generate_public_inputs "
        "(ONE excluded); bellperson verify_proof accepted the proof against them with the parameters' vk. "
        "circuit: the recorded circuit (rows without the prover's input rows, inputs with ONE). "
        "Made by scripts/golden-proof-post.sh; checked by internal/proofgolden (CUZK_E2E=1)."
        % (s["prover_function"], "storage-proofs-update 19.0.1 EmptySectorUpdateCircuit" if name.startswith("update")
           else "storage-proofs-post 19.0.1 FallbackPoStCircuit", "testdata/rustref/" + vanilla, s["partition"] or 0)),
    "case": name,
    "vanilla": vanilla,
    "partition": s["partition"] or 0,
    "params_seed": "cuzk-test-params-v1",
    "params_file": params_file,
    "params_sha256": params_sha,
    "r": s["r"],
    "s": s["s"],
    "prover_function": s["prover_function"],
    "proof_hex": s["proof_hex"],
    "public_inputs": s["public_inputs"][0],
    "verified_with_params_vk": True,
    "circuit": {"constraints": c["constraints"], "inputs": c["inputs"], "aux": c["aux"], "r1cs_sha256": c["r1cs_sha256"]},
}
with open(dst, "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
PY
  echo "   $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("prove %.1fs, verified %s" % (s["prove_seconds"], s["verified_with_params_vk"]))' "$out/$name.json")"
  written+=("$dst")
done < "$dir/params.txt"

echo "== wrote ${#written[@]} files:"
for f in "${written[@]}"; do printf '  %8d  %s\n' "$(stat -c %s "$f")" "$f"; done
git -C "$root" status --short -- testdata/rustref/proof || true
