//! `rustref verify-update-vanilla` and `rustref verify-update`: rust-fil-proofs' own verdict on a
//! SnapDeals (EmptySectorUpdate) update, at every sector size, from the files `cuzk snap encode`,
//! `cuzk snap gen` and `rustref snap-encode` write (update.json and the vproofs.json it names).
//!
//! verify-update-vanilla: the vanilla partition proofs Curio sends.
//!   - every partition: filecoin-proofs-api `update::verify_partition_proofs` (with_shape on the
//!     sector size, then `EmptySectorUpdate::verify_all_partitions` with h = h_default);
//!   - `--partition K`: filecoin-proofs `verify_single_partition_proof::<Tree>` on entry K
//!     (`EmptySectorUpdate::verify` with k = K), the check generate_single_partition_proof's
//!     callers make.
//! verify-update: the Groth16 proof.
//!   - every partition: filecoin-proofs-api `update::verify_empty_sector_update_proof`, the
//!     verifying key placed under its official name in the private parameter cache;
//!   - `--partition K`: `EmptySectorUpdateCompound::generate_public_inputs(.., Some(K))` and
//!     bellperson `verify_proof` on partition K's 192 bytes (alone in the file, or at
//!     [192K, 192K+192) of the whole proof).
//! Upstream errors inside a vanilla verifier (a malformed proof: wrong counts, a commitment that
//! is not a field element) are an `invalid` verdict with the reason; unreadable files, and any
//! error of the Groth16 verifier (a key it cannot find), are errors (exit 2).

use std::fs;
use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, ensure, Context, Result};
use bellperson::groth16::{prepare_verifying_key, verify_proof, Proof, VerifyingKey};
use blstrs::{Bls12, Scalar as Fr};
use filecoin_hashers::Domain;
use filecoin_proofs::{with_shape, SectorUpdateConfig};
use filecoin_proofs_api::{PartitionProofBytes, RegisteredUpdateProof};
use serde_json::Value;
use storage_proofs_core::{
    compound_proof::CompoundProof,
    merkle::MerkleTreeTrait,
    parameter_cache::{parameter_cache_verifying_key_path, CacheableParameters},
};
use storage_proofs_update::{
    constants::{h_default, TreeDDomain, TreeRDomain, TreeRHasher},
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof, PublicInputs, PublicParams,
};

use crate::verify_porep::Verdict;
use crate::{b64, Args};

const PROOF_LEN: usize = 192;


/// An update's public values and where its vanilla proofs are.
pub struct Update {
    pub rp: RegisteredUpdateProof,
    pub comm_r_old: [u8; 32],
    pub comm_r_new: [u8; 32],
    pub comm_d_new: [u8; 32],
    pub vproofs: PathBuf,
}

fn from_abi(n: u64) -> Result<RegisteredUpdateProof> {
    use RegisteredUpdateProof::*;
    Ok(match n {
        0 => StackedDrg2KiBV1,
        1 => StackedDrg8MiBV1,
        2 => StackedDrg512MiBV1,
        3 => StackedDrg32GiBV1,
        4 => StackedDrg64GiBV1,
        _ => bail!("registered_proof {n}: want an update proof 0..4"),
    })
}

fn h32(v: &Value, path: &Path, key: &str) -> Result<[u8; 32]> {
    let s = v[key].as_str().ok_or_else(|| anyhow!("{}: no {key}", path.display()))?;
    let b = hex::decode(s).with_context(|| format!("{}: {key}", path.display()))?;
    b.try_into().map_err(|_| anyhow!("{}: {key}: want 32 bytes", path.display()))
}

/// Reads `--update FILE` (and `--vproofs FILE`, default: the update.json's vproofs_file or
/// vproofs.json beside it).
pub fn read_update(a: &Args) -> Result<Update> {
    let path = Path::new(a.req("update")?);
    let v: Value = serde_json::from_slice(&fs::read(path).with_context(|| format!("read --update {}", path.display()))?)
        .with_context(|| format!("{}: JSON", path.display()))?;
    let rp = from_abi(v["registered_proof"].as_u64().ok_or_else(|| anyhow!("{}: no registered_proof", path.display()))?)?;
    let vproofs = match a.get("vproofs") {
        Some(p) => PathBuf::from(p),
        None => path.with_file_name(v["vproofs_file"].as_str().unwrap_or("vproofs.json")),
    };
    if let Some(m) = v["made_without_sealing"].as_str() {
        eprintln!("note: {} says: {m}", path.display());
    }
    Ok(Update {
        rp,
        comm_r_old: h32(&v, path, "comm_r_old")?,
        comm_r_new: h32(&v, path, "comm_r_new")?,
        comm_d_new: h32(&v, path, "comm_d_new")?,
        vproofs,
    })
}

/// The update's partition count (SectorUpdateConfig's, not `RegisteredUpdateProof::partitions`,
/// which is the PoRep's).
fn update_partitions(rp: RegisteredUpdateProof) -> usize {
    usize::from(SectorUpdateConfig::from_porep_config(&rp.as_v1_config()).update_partitions)
}

fn partition_arg(a: &Args) -> Result<Option<usize>> {
    a.get("partition").map(|s| s.parse::<usize>()).transpose().context("--partition")
}

/// Runs `f`, turning an upstream panic into an error, and an upstream error into an invalid
/// verdict.
fn verdict(what: &str, f: impl FnOnce() -> Result<bool>) -> Verdict {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(true)) => Verdict::Valid,
        Ok(Ok(false)) => Verdict::Invalid(format!("{what}: false")),
        Ok(Err(e)) => Verdict::Invalid(format!("{what}: {e:#}")),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic".into());
            Verdict::Invalid(format!("{what} panicked: {msg}"))
        }
    }
}

/// `rustref verify-update-vanilla --update FILE [--vproofs FILE] [--partition K]`.
pub fn verify_vanilla(a: &Args) -> Result<Verdict> {
    let u = read_update(a)?;
    let only = partition_arg(a)?;
    let t0 = Instant::now();
    let raw: Vec<String> = serde_json::from_slice(
        &fs::read(&u.vproofs).with_context(|| format!("read {}", u.vproofs.display()))?,
    )
    .with_context(|| format!("{}: want a JSON array of base64 strings", u.vproofs.display()))?;
    let proofs = raw
        .iter()
        .enumerate()
        .map(|(i, s)| Ok(PartitionProofBytes(b64::decode(s).with_context(|| format!("{}[{i}]: base64", u.vproofs.display()))?)))
        .collect::<Result<Vec<_>>>()?;
    let partitions = update_partitions(u.rp);
    eprintln!(
        "{:?}: {} partition proof(s) read ({} bytes) in {:.2}s",
        u.rp,
        proofs.len(),
        proofs.iter().map(|p| p.0.len()).sum::<usize>(),
        t0.elapsed().as_secs_f64()
    );
    let t0 = Instant::now();
    let v = match only {
        None => verdict("filecoin-proofs-api update::verify_partition_proofs", || {
            filecoin_proofs_api::update::verify_partition_proofs(u.rp, &proofs, u.comm_r_old, u.comm_r_new, u.comm_d_new)
        }),
        Some(k) => {
            ensure!(k < partitions, "--partition {k}: {:?} has partitions 0..{partitions}", u.rp);
            ensure!(
                proofs.len() == partitions,
                "{}: {} entries; --partition {k} reads entry {k} of the {partitions} partition proofs",
                u.vproofs.display(),
                proofs.len()
            );
            let size = u64::from(u.rp.sector_size());
            with_shape!(size, vanilla_partition, &u, &proofs[k].0, k)
        }
    };
    eprintln!("verdict in {:.2}s", t0.elapsed().as_secs_f64());
    Ok(v)
}

fn vanilla_partition<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(u: &Update, bytes: &[u8], k: usize) -> Verdict {
    verdict(&format!("filecoin-proofs verify_single_partition_proof (partition {k})"), || {
        let proof: PartitionProof<Tree> = bincode::deserialize(bytes).context("bincode PartitionProof")?;
        let config = SectorUpdateConfig::from_porep_config(&u.rp.as_v1_config());
        filecoin_proofs::verify_single_partition_proof::<Tree>(config, k, proof, u.comm_r_old, u.comm_r_new, u.comm_d_new)
    })
}

/// `rustref verify-update --vk FILE --update FILE --proof FILE [--partition K]`.
pub fn verify_groth16(a: &Args, tmp: &Path) -> Result<Verdict> {
    let u = read_update(a)?;
    let only = partition_arg(a)?;
    let vk_path = a.req("vk")?;
    let proof_path = a.req("proof")?;
    let proof = fs::read(proof_path).with_context(|| format!("read --proof {proof_path}"))?;
    let partitions = update_partitions(u.rp);
    let Some(k) = only else {
        // RegisteredUpdateProof::cache_verifying_key_path names the PoRep's key (it goes
        // through as_v1_config, a PoRepConfig); verify_empty_sector_update_proof reads the
        // key of the update circuit's own cache identifier.
        let size = u64::from(u.rp.sector_size());
        let target = with_shape!(size, update_vk_path, size);
        ensure!(target.starts_with(tmp), "parameter cache {} is not the private temp dir", target.display());
        fs::create_dir_all(target.parent().expect("parent"))?;
        fs::copy(vk_path, &target).with_context(|| format!("copy --vk {vk_path} to {}", target.display()))?;
        eprintln!("vk placed as {}", target.display());
        let t0 = Instant::now();
        let ok = filecoin_proofs_api::update::verify_empty_sector_update_proof(u.rp, &proof, u.comm_r_old, u.comm_r_new, u.comm_d_new)
            .context("filecoin-proofs-api update::verify_empty_sector_update_proof")?;
        eprintln!("{:?}, {partitions} partition(s): verify_empty_sector_update_proof: {ok} ({:.2}s)", u.rp, t0.elapsed().as_secs_f64());
        return Ok(if ok {
            Verdict::Valid
        } else {
            Verdict::Invalid("verify_empty_sector_update_proof: false".into())
        });
    };
    ensure!(k < partitions, "--partition {k}: {:?} has partitions 0..{partitions}", u.rp);
    let bytes = if proof.len() == PROOF_LEN {
        &proof[..]
    } else if proof.len() == PROOF_LEN * partitions {
        &proof[PROOF_LEN * k..PROOF_LEN * (k + 1)]
    } else {
        bail!(
            "--proof: {} bytes; want {PROOF_LEN} (partition {k} alone) or {} ({partitions} partitions of {:?})",
            proof.len(),
            PROOF_LEN * partitions,
            u.rp
        )
    };
    let vk_bytes = fs::read(vk_path).with_context(|| format!("read --vk {vk_path}"))?;
    let mut cur = Cursor::new(&vk_bytes[..]);
    let vk = VerifyingKey::<Bls12>::read(&mut cur).with_context(|| format!("--vk {vk_path}: not a bellperson verifying key"))?;
    ensure!(
        cur.position() as usize == vk_bytes.len(),
        "--vk {vk_path}: {} trailing bytes after the verifying key",
        vk_bytes.len() - cur.position() as usize
    );
    let size = u64::from(u.rp.sector_size());
    let inputs = with_shape!(size, partition_inputs, &u, k)?;
    ensure!(
        vk.ic.len() == inputs.len() + 1,
        "--vk {vk_path} takes {} public inputs, an update partition has {} (a key for another circuit?)",
        vk.ic.len().saturating_sub(1),
        inputs.len()
    );
    let proof = match Proof::<Bls12>::read(bytes) {
        Ok(p) => p,
        Err(e) => return Ok(Verdict::Invalid(format!("partition {k}'s proof does not decode: {e}"))),
    };
    let t0 = Instant::now();
    let ok = verify_proof(&prepare_verifying_key(&vk), &proof, &inputs).map_err(|e| anyhow!("verify_proof: {e}"))?;
    eprintln!(
        "{:?} partition {k} of {partitions}: EmptySectorUpdateCompound::generate_public_inputs(Some({k})) + bellperson verify_proof: {ok} ({:.2}s)",
        u.rp,
        t0.elapsed().as_secs_f64()
    );
    Ok(if ok {
        Verdict::Valid
    } else {
        Verdict::Invalid(format!("bellperson verify_proof rejects partition {k}'s proof"))
    })
}

/// Where upstream looks for the update circuit's verifying key.
fn update_vk_path<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(size: u64) -> PathBuf {
    let pp = PublicParams::from_sector_size(size);
    let id = <EmptySectorUpdateCompound<Tree> as CacheableParameters<EmptySectorUpdateCircuit<Tree>, PublicParams>>::cache_identifier(&pp);
    parameter_cache_verifying_key_path(&id)
}

/// Partition k's public inputs as verify_empty_sector_update_proof computes them (h = h_default).
fn partition_inputs<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(u: &Update, k: usize) -> Result<Vec<Fr>> {
    let size = u64::from(u.rp.sector_size());
    let pp = PublicParams::from_sector_size(size);
    let pub_inputs = PublicInputs {
        k: pp.partition_count,
        comm_r_old: TreeRDomain::try_from_bytes(&u.comm_r_old).context("comm_r_old")?,
        comm_d_new: TreeDDomain::try_from_bytes(&u.comm_d_new).context("comm_d_new")?,
        comm_r_new: TreeRDomain::try_from_bytes(&u.comm_r_new).context("comm_r_new")?,
        h: h_default(pp.sector_nodes),
    };
    <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::generate_public_inputs(&pub_inputs, &pp, Some(k))
}

/// `rustref update-counts --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB`: the constraint and input
/// counts of upstream's blank EmptySectorUpdateCircuit of that size (bellperson's BenchCS, the
/// count-only system; ONE among the inputs), for the sizes whose circuit is too big to record.
pub fn counts(a: &Args) -> Result<serde_json::Value> {
    let size: u64 = match a.req("sector-size")? {
        "2KiB" => 2 << 10,
        "8MiB" => 8 << 20,
        "512MiB" => 512 << 20,
        "32GiB" => 32 << 30,
        "64GiB" => 64 << 30,
        s => bail!("--sector-size {s}: want 2KiB, 8MiB, 512MiB, 32GiB or 64GiB"),
    };
    let t0 = Instant::now();
    let mut v = with_shape!(size, blank_counts_of, size)?;
    let pp = PublicParams::from_sector_size(size);
    v["sector_size"] = serde_json::json!(size);
    v["tree_r"] = serde_json::json!(with_shape!(size, tree_display));
    v["partitions"] = serde_json::json!(pp.partition_count);
    v["challenge_count"] = serde_json::json!(pp.challenge_count);
    v["h"] = serde_json::json!(h_default(pp.sector_nodes));
    v["seconds"] = serde_json::json!(t0.elapsed().as_secs_f64());
    v["source"] = serde_json::json!("storage-proofs-update 19.0.1 EmptySectorUpdateCompound::blank_circuit(PublicParams::from_sector_size) into bellperson BenchCS");
    Ok(v)
}

fn blank_counts_of<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(size: u64) -> Result<serde_json::Value> {
    let pp = PublicParams::from_sector_size(size);
    let blank = <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::blank_circuit(&pp);
    crate::blank_counts(blank)
}

fn tree_display<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>() -> String {
    Tree::display()
}

/// `rustref update-r1cs --update FILE [--vproofs FILE] --partition K --out FILE`: upstream's
/// circuit of partition K of an update of any size, built as filecoin-proofs'
/// generate_empty_sector_update_proof_with_vanilla builds it (PublicInputs { k: partition_count,
/// h: h_default }, EmptySectorUpdateCompound::circuit(.., Some(K))), synthesised into the
/// recording system: every row checked, the synthesised inputs against generate_public_inputs,
/// and the golden JSON of `rustref r1cs` (row, witness and input digests) written to --out.
/// `r1cs --case update` builds the 8-0-0 shape only; this one takes 8-8-0 and 8-8-2 too.
pub fn r1cs(a: &Args) -> Result<()> {
    let u = read_update(a)?;
    let k = partition_arg(a)?.unwrap_or(0);
    let out = PathBuf::from(a.req("out")?);
    let size = u64::from(u.rp.sector_size());
    let golden = with_shape!(size, record_update, &u, k)?;
    crate::write_json(&out, &golden, true)?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

fn record_update<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(u: &Update, k: usize) -> Result<Value> {
    use bellpepper_core::Circuit;
    let raw: Vec<String> = serde_json::from_slice(&fs::read(&u.vproofs).with_context(|| format!("read {}", u.vproofs.display()))?)?;
    let partitions = update_partitions(u.rp);
    ensure!(raw.len() == partitions, "{}: {} entries, {:?} has {partitions}", u.vproofs.display(), raw.len(), u.rp);
    ensure!(k < partitions, "--partition {k}: {:?} has partitions 0..{partitions}", u.rp);
    let proof: PartitionProof<Tree> = bincode::deserialize(&b64::decode(&raw[k])?).context("bincode PartitionProof")?;
    let size = u64::from(u.rp.sector_size());
    let pp = PublicParams::from_sector_size(size);
    let h = h_default(pp.sector_nodes);
    let pub_inputs = PublicInputs {
        k: pp.partition_count,
        comm_r_old: TreeRDomain::try_from_bytes(&u.comm_r_old)?,
        comm_d_new: TreeDDomain::try_from_bytes(&u.comm_d_new)?,
        comm_r_new: TreeRDomain::try_from_bytes(&u.comm_r_new)?,
        h,
    };
    type C<T> = EmptySectorUpdateCompound<T>;
    let circuit = <C<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::circuit(&pub_inputs, (), &proof, &pp, Some(k))?;
    let generated = <C<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::generate_public_inputs(&pub_inputs, &pp, Some(k))?;
    let mut cs = crate::recorder::RecordingCS::new();
    let t0 = Instant::now();
    circuit.synthesize(&mut cs)?;
    let took = t0.elapsed().as_secs_f64();
    let rec = cs.finish();
    ensure!(rec.unsatisfied == 0, "{} unsatisfied rows, first at {:?}", rec.unsatisfied, rec.first_unsatisfied);
    ensure!(rec.inputs[1..] == generated[..], "synthesised inputs differ from generate_public_inputs");
    let name = format!("update_{}_p{k}", size_name(size));
    eprintln!(
        "{name}: {} constraints, {} inputs, {} aux, r1cs {} ({took:.1}s)",
        rec.constraints,
        rec.inputs.len(),
        rec.aux_count,
        &rec.r1cs_sha256[..16]
    );
    let mut extra = serde_json::Map::new();
    extra.insert("registered_proof".into(), serde_json::json!(format!("{:?}", u.rp)));
    extra.insert("sector_size".into(), serde_json::json!(size));
    extra.insert("tree_r".into(), serde_json::json!(Tree::display()));
    extra.insert("partition".into(), serde_json::json!(k));
    extra.insert("partitions".into(), serde_json::json!(partitions));
    extra.insert("h".into(), serde_json::json!(h));
    for (key, v) in [("comm_r_old", &u.comm_r_old), ("comm_r_new", &u.comm_r_new), ("comm_d_new", &u.comm_d_new)] {
        extra.insert(key.into(), serde_json::json!(hex::encode(v)));
    }
    extra.insert("satisfied".into(), serde_json::json!(true));
    extra.insert("generated_public_inputs_match".into(), serde_json::json!(true));
    extra.insert("synthesis_seconds".into(), serde_json::json!(took));
    let description = format!(
        "Real storage-proofs-update 19.0.1 EmptySectorUpdateCircuit<{}> for partition {k} of an update of {:?} read from \
         update.json and its vproofs.json (entry {k}), built as filecoin-proofs 19.0.1 generate_empty_sector_update_proof_with_vanilla: \
         PublicInputs{{k: partition_count, comm_r_old, comm_d_new, comm_r_new, h: h_default = {h}}}, PublicParams::from_sector_size({size}), \
         EmptySectorUpdateCompound::circuit(pub_inputs, (), &vproofs[{k}], pub_params, Some({k})); every row satisfied and the \
         synthesised public inputs equal to generate_public_inputs(.., Some({k})).",
        Tree::display(),
        u.rp
    );
    Ok(rec.golden(&name, &description, extra))
}

fn size_name(size: u64) -> String {
    match size {
        s if s >= 1 << 30 => format!("{}GiB", s >> 30),
        s if s >= 1 << 20 => format!("{}MiB", s >> 20),
        s => format!("{}KiB", s >> 10),
    }
}
