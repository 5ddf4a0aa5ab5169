#!/usr/bin/env bash
# Cross-checks cuzk against the real rust-fil-proofs / bellperson on this
# machine (needs cargo; CI never runs this — its golden outputs are tested
# instead):
#   1. rust-fil-proofs' verify_seal accepts a proof cuzk made (fresh r, s)
#      with cuzk's test parameters, and rejects it for another seed;
#   2. bellperson and cuzk give byte-identical proofs at fixed r, s.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

(cd tools/rustref && cargo build --release --locked -j "${CARGO_BUILD_JOBS:-2}" >/dev/null)
rustref=tools/rustref/target/release/rustref
work="$(mktemp -d)"
params="${CUZK_TEST_PARAMS:-$work/params}"
go build -o "$work/cuzk" ./cmd/cuzk
cuzk="$work/cuzk"

echo "== seal (cuzk) and test parameters"
"$cuzk" seal --sector-size 2KiB --out "$work/sector"
"$cuzk" params gen --sector-size 2KiB --dir "$params"
vk=$(ls "$params"/*8-0-0-sha256_hasher-*.vk)
p=$(ls "$params"/*8-0-0-sha256_hasher-*.params)

echo "== 1. cuzk proof, verified by rust-fil-proofs verify_seal"
"$cuzk" prove-c2 --c1 "$work/sector/c1-wrapped.json" --params "$params" --out "$work/proof.bin"
echo -n "rust verify_seal: "; "$rustref" verify-seal --vk "$vk" --commdr "$work/sector/commdr.json" --proof "$work/proof.bin"
sed 's/"seed": "02/"seed": "03/' "$work/sector/commdr.json" > "$work/other-seed.json"
echo -n "rust verify_seal, another seed: "; "$rustref" verify-seal --vk "$vk" --commdr "$work/other-seed.json" --proof "$work/proof.bin" || true

echo "== 2. fixed r, s: cuzk vs bellperson"
r=01$(printf '0%.0s' $(seq 62)); s=02$(printf '0%.0s' $(seq 62))
"$cuzk" prove-c2 --c1 "$work/sector/c1.json" --params "$params" --out "$work/cuzk-fixed.bin" --r "$r" --s "$s" >/dev/null
"$rustref" prove --params "$p" --c1 "$work/sector/c1.json" --r "$r" --s "$s" --out "$work/bellperson-fixed.bin" >/dev/null
if cmp -s "$work/cuzk-fixed.bin" "$work/bellperson-fixed.bin"; then
  echo "byte-identical: $(xxd -p -c 200 "$work/cuzk-fixed.bin")"
else
  echo "PROOFS DIFFER"; exit 1
fi
