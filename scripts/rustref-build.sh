# Sourced (not run) by the golden scripts from the repository root: builds
# tools/rustref (cargo build --release --locked, CARGO_BUILD_JOBS jobs,
# default 2) and sets bin to the binary, so that every golden is made by
# the same build of the reference tool.
jobs="${CARGO_BUILD_JOBS:-2}"
echo "== building tools/rustref (cargo build --release -j $jobs)"
(cd tools/rustref && cargo build --release --locked -j "$jobs")
bin="$PWD/tools/rustref/target/release/rustref"
