//! Makes storage-proofs-update's crate-private gadgets (src/gadgets.rs) callable on their own.
//!
//! The crate declares `pub(crate) mod gadgets`, so the harness cannot name `apex_por`,
//! `gen_challenge_bits`, `get_challenge_high_bits`, `label_r_new` or
//! `allocated_num_to_allocated_bits`. To golden each one alone with the real upstream code (not
//! a rewrite), this script locates the pinned crate's source through `cargo metadata`, takes
//! its gadgets.rs unchanged except for two mechanical edits (its `crate::constants` path becomes
//! `storage_proofs_update::constants`, and the `#[cfg(test)]` module is dropped), and writes it
//! to OUT_DIR, where src/upgadgets.rs `include!`s it. Nothing upstream is committed to git.

use std::{env, fs, path::PathBuf, process::Command};

const CRATE: &str = "storage-proofs-update";
const VERSION: &str = "19.0.1";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.lock");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("manifest dir")).join("Cargo.toml");
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--manifest-path"])
        .arg(&manifest)
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let pkg = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["name"] == CRATE && p["version"] == VERSION)
        .unwrap_or_else(|| panic!("{CRATE} {VERSION} not in cargo metadata"));
    let dir = PathBuf::from(pkg["manifest_path"].as_str().expect("manifest_path"))
        .parent()
        .expect("crate dir")
        .to_path_buf();
    let src_path = dir.join("src").join("gadgets.rs");
    println!("cargo:rerun-if-changed={}", src_path.display());
    let src = fs::read_to_string(&src_path).expect("read upstream gadgets.rs");
    let body = match src.find("#[cfg(test)]") {
        Some(i) => &src[..i],
        None => &src[..],
    };
    assert!(body.contains("use crate::constants::"), "upstream gadgets.rs layout changed");
    let body = body.replace("use crate::constants::", "use storage_proofs_update::constants::");
    assert!(!body.contains("crate::"), "upstream gadgets.rs has other crate paths");
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    fs::write(out_dir.join("storage_proofs_update_gadgets.rs"), body).expect("write");
}
