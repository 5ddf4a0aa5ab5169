//! EmptySectorUpdate (SnapDeals) goldens: seals a CC sector with filecoin-proofs-api, encodes
//! deterministic new data into it (empty_sector_update_encode_into), makes the vanilla
//! PartitionProofs Curio sends (generate_partition_proofs, bincode), and rebuilds the real
//! EmptySectorUpdateCircuit per partition from those bytes, as
//! generate_empty_sector_update_proof_with_vanilla does.

use std::fs::{self, File, OpenOptions};
use std::io::Cursor;
use std::path::Path;

use anyhow::{anyhow, bail, ensure, Context, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::Domain;
use filecoin_proofs::SectorShapeBase;
use filecoin_proofs_api::{
    seal::add_piece,
    update::{empty_sector_update_encode_into, generate_partition_proofs, verify_partition_proofs},
    PartitionProofBytes, RegisteredSealProof, RegisteredUpdateProof, UnpaddedBytesAmount,
};
use serde_json::{json, Map, Value};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_update::{
    constants::{h_default, TreeDDomain, TreeRDomain},
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof,
    PublicInputs, PublicParams,
};

use crate::b64;
use crate::seal::{make_prover_id, seal_keep, MINER_ID, TICKET};
use crate::stream::stream_prefix;

pub type Tree = SectorShapeBase;
pub type UpdateCircuit = EmptySectorUpdateCircuit<Tree>;

pub const SNAP_DATA_LABEL: &str = "cuzk-snap-data-v1";
pub const SECTOR_KEY_NUMBER: u64 = 1;

pub fn parse(size: &str) -> Result<(RegisteredSealProof, RegisteredUpdateProof, &'static str)> {
    Ok(match size {
        "2KiB" => (RegisteredSealProof::StackedDrg2KiBV1_1, RegisteredUpdateProof::StackedDrg2KiBV1, "2KiB"),
        "8MiB" => (RegisteredSealProof::StackedDrg8MiBV1_1, RegisteredUpdateProof::StackedDrg8MiBV1, "8MiB"),
        _ => bail!("unsupported --sector-size {size} (2KiB or 8MiB)"),
    })
}

/// Curio's (abi) registered update number.
pub fn abi_number(rp: RegisteredUpdateProof) -> u64 {
    use RegisteredUpdateProof::*;
    match rp {
        StackedDrg2KiBV1 => 0,
        StackedDrg8MiBV1 => 1,
        StackedDrg512MiBV1 => 2,
        StackedDrg32GiBV1 => 3,
        StackedDrg64GiBV1 => 4,
    }
}

fn from_abi(n: u64) -> Result<RegisteredUpdateProof> {
    use RegisteredUpdateProof::*;
    Ok(match n {
        0 => StackedDrg2KiBV1,
        1 => StackedDrg8MiBV1,
        2 => StackedDrg512MiBV1,
        3 => StackedDrg32GiBV1,
        4 => StackedDrg64GiBV1,
        _ => bail!("unknown update proof {n}"),
    })
}

/// Seals a CC sector (all-zero piece), encodes the new data and writes update.json and
/// vproofs.json into `out`.
pub fn encode(size: &str, out: &Path, tmp: &Path) -> Result<()> {
    let (seal_rp, rp, _) = parse(size)?;
    fs::create_dir_all(out)?;
    let sector_size = u64::from(seal_rp.sector_size());
    let unpadded = sector_size * 127 / 128;
    let work = tempfile::tempdir_in(tmp)?;
    let t0 = std::time::Instant::now();
    let key = seal_keep(seal_rp, &vec![0u8; unpadded as usize], SECTOR_KEY_NUMBER, work.path())?;
    let seal_s = t0.elapsed().as_secs_f64();

    let new_data = stream_prefix(SNAP_DATA_LABEL, unpadded as usize);
    let staged = work.path().join("staged-new");
    let mut f = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged)?;
    let (piece, _) = add_piece(seal_rp, Cursor::new(&new_data), &mut f, UnpaddedBytesAmount(unpadded), &[])
        .context("add_piece (new data)")?;
    drop(f);
    let new_replica = work.path().join("update");
    let new_cache = work.path().join("update-cache");
    fs::create_dir_all(&new_cache)?;
    // The new replica file must exist with the sector key's size (EmptySectorUpdate::encode_into).
    File::create(&new_replica)?.set_len(fs::metadata(&key.sealed)?.len())?;
    let t0 = std::time::Instant::now();
    let enc = empty_sector_update_encode_into(
        rp,
        &new_replica,
        &new_cache,
        &key.sealed,
        &key.cache,
        &staged,
        std::slice::from_ref(&piece),
    )
    .context("empty_sector_update_encode_into")?;
    let encode_s = t0.elapsed().as_secs_f64();
    let t0 = std::time::Instant::now();
    let proofs = generate_partition_proofs(
        rp,
        key.comm_r,
        enc.comm_r_new,
        enc.comm_d_new,
        &key.sealed,
        &key.cache,
        &new_replica,
        &new_cache,
    )
    .context("generate_partition_proofs")?;
    let prove_s = t0.elapsed().as_secs_f64();
    ensure!(
        verify_partition_proofs(rp, &proofs, key.comm_r, enc.comm_r_new, enc.comm_d_new)?,
        "vanilla partition proofs do not verify"
    );
    let nodes = (sector_size / 32) as usize;
    let pp = PublicParams::from_sector_size(sector_size);
    ensure!(proofs.len() == pp.partition_count, "{} partition proofs", proofs.len());
    let mut comm_c = None;
    let mut sizes = Vec::new();
    for p in &proofs {
        let d: PartitionProof<Tree> = bincode::deserialize(&p.0)?;
        ensure!(bincode::serialize(&d)? == p.0, "bincode round trip differs");
        comm_c = Some(hex::encode(d.comm_c.into_bytes()));
        sizes.push(p.0.len());
    }
    let update = json!({
        "description": format!(
            "EmptySectorUpdate ({rp:?}, Curio/abi update number {}) made by filecoin-proofs-api 19.0.0. Sector key: a CC sector \
             sealed by rustref ({seal_rp:?}, one all-zero piece of {unpadded} unpadded bytes, ticket 32x0x01, miner {MINER_ID}, \
             sector {SECTOR_KEY_NUMBER}); comm_r_old is its comm_r. New data: the first {unpadded} bytes of stream(\"{SNAP_DATA_LABEL}\") \
             as one piece (add_piece), encoded with empty_sector_update_encode_into; vproofs.json holds generate_partition_proofs' \
             PartitionProofBytes, one standard-base64 string per partition (bincode of storage_proofs_update::PartitionProof<LCTree<Poseidon,8,0,0>>), \
             checked with verify_partition_proofs. Commitments are the 32 raw bytes in hex (Fr LE repr).",
            abi_number(rp)
        ),
        "registered_proof": abi_number(rp),
        "registered_proof_api": format!("{rp:?}"),
        "seal_registered_proof": crate::seal::registered_proof_id(seal_rp),
        "sector_size": sector_size,
        "comm_r_old": hex::encode(key.comm_r),
        "comm_d_old": hex::encode(key.comm_d),
        "comm_c": comm_c,
        "comm_r_new": hex::encode(enc.comm_r_new),
        "comm_r_last_new": hex::encode(enc.comm_r_last_new),
        "comm_d_new": hex::encode(enc.comm_d_new),
        "piece_commitment_new": hex::encode(piece.commitment),
        "new_data_label": SNAP_DATA_LABEL,
        "sector_key_data": "zeros",
        "sector_number": SECTOR_KEY_NUMBER,
        "miner_id": MINER_ID,
        "prover_id": hex::encode(make_prover_id(MINER_ID)),
        "ticket": hex::encode(TICKET),
        "h": h_default(nodes),
        "partitions": pp.partition_count,
        "challenge_count": pp.challenge_count,
        "apex_leaf_count": pp.apex_leaf_count,
        "partition_proof_bytes": sizes,
        "vproofs_file": "vproofs.json",
    });
    fs::write(out.join("update.json"), serde_json::to_string_pretty(&update)? + "\n")?;
    let vp: Vec<String> = proofs.iter().map(|p| b64::encode(&p.0)).collect();
    fs::write(out.join("vproofs.json"), serde_json::to_string(&vp)? + "\n")?;
    eprintln!(
        "snap {size}: comm_r_old={} comm_r_new={} comm_d_new={} ({} partitions; seal {seal_s:.1}s, encode {encode_s:.1}s, vanilla {prove_s:.1}s)",
        hex::encode(key.comm_r),
        hex::encode(enc.comm_r_new),
        hex::encode(enc.comm_d_new),
        proofs.len()
    );
    Ok(())
}

pub struct BuiltPart {
    pub circuit: UpdateCircuit,
    pub public_inputs: Vec<Fr>,
}

pub struct Built {
    pub parts: Vec<BuiltPart>,
    pub extra: Map<String, Value>,
    pub description: String,
    pub sector_size: u64,
    pub rp: RegisteredUpdateProof,
}

fn h32(v: &Value, key: &str) -> Result<[u8; 32]> {
    let s = v[key].as_str().ok_or_else(|| anyhow!("missing {key}"))?;
    hex::decode(s)?.try_into().map_err(|_| anyhow!("{key}: want 32 bytes"))
}

/// Every partition's circuit from an update.json (and the vproofs.json next to it).
pub fn build(path: &Path) -> Result<Built> {
    let v: Value = serde_json::from_slice(&fs::read(path).with_context(|| format!("read {}", path.display()))?)?;
    let rp = from_abi(v["registered_proof"].as_u64().ok_or_else(|| anyhow!("registered_proof"))?)?;
    let sector_size = u64::from(rp.sector_size());
    let vp_path = path.with_file_name(v["vproofs_file"].as_str().unwrap_or("vproofs.json"));
    let vp: Vec<String> = serde_json::from_slice(&fs::read(&vp_path).with_context(|| format!("read {}", vp_path.display()))?)?;
    let proofs = vp
        .iter()
        .map(|s| Ok(PartitionProofBytes(b64::decode(s)?)))
        .collect::<Result<Vec<_>>>()?;
    let comm_r_old = h32(&v, "comm_r_old")?;
    let comm_r_new = h32(&v, "comm_r_new")?;
    let comm_d_new = h32(&v, "comm_d_new")?;
    ensure!(
        verify_partition_proofs(rp, &proofs, comm_r_old, comm_r_new, comm_d_new)?,
        "vanilla partition proofs do not verify"
    );
    let pp = PublicParams::from_sector_size(sector_size);
    let nodes = pp.sector_nodes;
    let pub_inputs = PublicInputs {
        k: pp.partition_count,
        comm_r_old: TreeRDomain::try_from_bytes(&comm_r_old)?,
        comm_d_new: TreeDDomain::try_from_bytes(&comm_d_new)?,
        comm_r_new: TreeRDomain::try_from_bytes(&comm_r_new)?,
        h: h_default(nodes),
    };
    let mut parts = Vec::new();
    for (k, p) in proofs.iter().enumerate() {
        let proof: PartitionProof<Tree> = bincode::deserialize(&p.0)?;
        let circuit = <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::circuit(
            &pub_inputs,
            (),
            &proof,
            &pp,
            Some(k),
        )?;
        let public_inputs = <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::generate_public_inputs(
            &pub_inputs,
            &pp,
            Some(k),
        )?;
        parts.push(BuiltPart { circuit, public_inputs });
    }
    let blank = <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::blank_circuit(&pp);
    let mut extra = Map::new();
    extra.insert("blank_circuit_bench_cs".into(), crate::blank_counts(blank)?);
    for key in ["registered_proof", "registered_proof_api", "sector_size", "comm_r_old", "comm_r_new", "comm_d_new", "h", "partitions"] {
        extra.insert(key.into(), v[key].clone());
    }
    extra.insert("challenge_count".into(), json!(pp.challenge_count));
    extra.insert("apex_leaf_count".into(), json!(pp.apex_leaf_count));
    extra.insert("h_select".into(), json!(storage_proofs_update::constants::h_select(nodes, h_default(nodes))));
    let size_name = if sector_size == 2048 { "2KiB" } else { "8MiB" };
    extra.insert("vanilla_file".into(), json!(format!("testdata/rustref/update/{size_name}/vproofs.json")));
    let description = format!(
        "Real storage-proofs-update 19.0.1 EmptySectorUpdateCircuit<LCTree<Poseidon,8,0,0>> for partition extra.partition of \
         update/{size_name} ({rp:?}), built as filecoin-proofs 19.0.1 generate_empty_sector_update_proof_with_vanilla: \
         PublicInputs{{k: partition_count, comm_r_old, comm_d_new, comm_r_new, h: h_default = {}}}, PublicParams::from_sector_size({sector_size}), \
         then EmptySectorUpdateCompound::circuit(pub_inputs, (), &vproofs[k], pub_params, Some(k)) as compound_proof::circuit_proofs does. \
         Public inputs ([k_and_h_select, comm_r_old, comm_d_new, comm_r_new]) checked against generate_public_inputs(.., Some(k)). No stream draws.",
        h_default(nodes)
    );
    Ok(Built { parts, extra, description, sector_size, rp })
}
