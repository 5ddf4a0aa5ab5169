#!/usr/bin/env bash
# Regenerates the Go code for the cuzk wire contract (api/cuzk/v1/*.proto).
#
# The plugins run through `go run module@version`, so the versions below are
# the whole toolchain description and go.mod is never touched. protoc itself
# must already be installed; its version is written into the generated
# headers, so use the one named in PROTOC_WANT to reproduce the committed
# files byte for byte.
#
# Usage: scripts/genproto.sh   (from anywhere; also run by `go generate ./api/...`)
set -euo pipefail

PROTOC_GEN_GO="google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12"
PROTOC_GEN_GO_GRPC="google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.1"
PROTOC_WANT="libprotoc 3.21.12"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if ! command -v protoc >/dev/null 2>&1; then
	cat >&2 <<'EOF'
genproto: protoc not found on PATH.
Install it, for example:
  Debian/Ubuntu:  apt-get update && apt-get install -y protobuf-compiler
  macOS:          brew install protobuf
or download a release from https://github.com/protocolbuffers/protobuf/releases
EOF
	exit 1
fi

have="$(protoc --version)"
if [[ "$have" != "$PROTOC_WANT" ]]; then
	echo "genproto: warning: found '$have', committed files were made with '$PROTOC_WANT';" \
		"only the version line in the headers should differ" >&2
fi

# protoc runs plugins as executables, so wrap each `go run` in a tiny script.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\nexec go run %s "$@"\n' "$PROTOC_GEN_GO" >"$tmp/protoc-gen-go"
printf '#!/bin/sh\nexec go run %s "$@"\n' "$PROTOC_GEN_GO_GRPC" >"$tmp/protoc-gen-go-grpc"
chmod +x "$tmp/protoc-gen-go" "$tmp/protoc-gen-go-grpc"

# Build the plugins once up front so a download error shows here, not as a
# terse plugin failure inside protoc. GOFLAGS is cleared because `go run
# pkg@version` rejects flags such as -mod=vendor that a caller may export.
(cd "$tmp" && GOFLAGS= go run "$PROTOC_GEN_GO" --version >/dev/null)
(cd "$tmp" && GOFLAGS= go run "$PROTOC_GEN_GO_GRPC" --version >/dev/null)

# -I api makes the descriptor's file name "cuzk/v1/proving.proto", the same
# name Curio's generated code registers.
cd "$root"
GOFLAGS= protoc \
	-I api \
	--plugin=protoc-gen-go="$tmp/protoc-gen-go" \
	--plugin=protoc-gen-go-grpc="$tmp/protoc-gen-go-grpc" \
	--go_out=api --go_opt=paths=source_relative \
	--go-grpc_out=api --go-grpc_opt=paths=source_relative \
	cuzk/v1/proving.proto

echo "genproto: wrote api/cuzk/v1/proving.pb.go and api/cuzk/v1/proving_grpc.pb.go" >&2
