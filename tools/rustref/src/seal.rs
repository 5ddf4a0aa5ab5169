//! Seals a test sector with fixed inputs (pre-commit phase 1 and 2, commit phase 1) through
//! filecoin-proofs-api, and writes the api-level C1 JSON and the commitments.

use std::fs::{self, File, OpenOptions};
use std::io::Cursor;
use std::path::Path;

use anyhow::{bail, Context, Result};
use filecoin_proofs_api::{
    seal::{
        add_piece, seal_commit_phase1, seal_pre_commit_phase1, seal_pre_commit_phase2,
    },
    RegisteredSealProof, SectorId, UnpaddedBytesAmount,
};
use serde_json::json;

use crate::stream::stream_prefix;

pub const SEAL_DATA_LABEL: &str = "cuzk-seal-data-v1";
pub const TICKET: [u8; 32] = [1u8; 32];
pub const SEED: [u8; 32] = [2u8; 32];
pub const MINER_ID: u64 = 1000;
pub const SECTOR_NUMBER: u64 = 1;

/// Filecoin's prover_id for an ID address: unsigned LEB128 of the actor id, left-aligned in 32
/// zero bytes.
pub fn make_prover_id(mut id: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut i = 0;
    loop {
        let b = (id & 0x7f) as u8;
        id >>= 7;
        if id == 0 {
            out[i] = b;
            break;
        }
        out[i] = b | 0x80;
        i += 1;
    }
    out
}

pub fn registered_proof_id(rp: RegisteredSealProof) -> u64 {
    let porep_id = rp.as_v1_config().porep_id;
    u64::from_le_bytes(porep_id[0..8].try_into().expect("8 bytes"))
}

/// The registered seal proof with the given numeric id (the porep_id's first 8 bytes).
pub fn registered_proof_from_id(id: u64) -> Result<RegisteredSealProof> {
    use RegisteredSealProof::*;
    let all = [
        StackedDrg2KiBV1,
        StackedDrg8MiBV1,
        StackedDrg512MiBV1,
        StackedDrg32GiBV1,
        StackedDrg64GiBV1,
        StackedDrg2KiBV1_1,
        StackedDrg8MiBV1_1,
        StackedDrg512MiBV1_1,
        StackedDrg32GiBV1_1,
        StackedDrg64GiBV1_1,
        StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
        StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
        StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
        StackedDrg32GiBV1_1_Feat_SyntheticPoRep,
        StackedDrg64GiBV1_1_Feat_SyntheticPoRep,
        StackedDrg2KiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg8MiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg512MiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg32GiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg64GiBV1_2_Feat_NonInteractivePoRep,
    ];
    all.into_iter()
        .find(|rp| registered_proof_id(*rp) == id)
        .ok_or_else(|| anyhow::anyhow!("unknown registered proof id {id}"))
}

pub fn parse_sector_size(s: &str) -> Result<RegisteredSealProof> {
    Ok(match s {
        "2KiB" | "2k" | "2048" => RegisteredSealProof::StackedDrg2KiBV1_1,
        "8MiB" | "8m" | "8388608" => RegisteredSealProof::StackedDrg8MiBV1_1,
        _ => bail!("unsupported --sector-size {s} (2KiB or 8MiB)"),
    })
}

pub fn seal(rp: RegisteredSealProof, out: &Path, tmp: &Path) -> Result<()> {
    fs::create_dir_all(out)?;
    let sector_size = u64::from(rp.sector_size());
    let unpadded = sector_size * 127 / 128;
    let data = stream_prefix(SEAL_DATA_LABEL, unpadded as usize);
    let work = tempfile::tempdir_in(tmp)?;
    let cache = work.path().join("cache");
    fs::create_dir_all(&cache)?;
    let staged = work.path().join("staged");
    let sealed = work.path().join("sealed");

    let mut staged_f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&staged)?;
    let (piece, written) = add_piece(
        rp,
        Cursor::new(&data),
        &mut staged_f,
        UnpaddedBytesAmount(unpadded),
        &[],
    )
    .context("add_piece")?;
    drop(staged_f);
    anyhow::ensure!(u64::from(written) == unpadded, "add_piece wrote {written:?}");
    File::create(&sealed)?;

    let prover_id = make_prover_id(MINER_ID);
    let sector = SectorId::from(SECTOR_NUMBER);
    let t0 = std::time::Instant::now();
    let p1 = seal_pre_commit_phase1(
        rp,
        &cache,
        &staged,
        &sealed,
        prover_id,
        sector,
        TICKET,
        std::slice::from_ref(&piece),
    )
    .context("seal_pre_commit_phase1")?;
    let p2 = seal_pre_commit_phase2(p1, &cache, &sealed).context("seal_pre_commit_phase2")?;
    let c1 = seal_commit_phase1(
        &cache,
        &sealed,
        prover_id,
        sector,
        TICKET,
        SEED,
        p2.clone(),
        std::slice::from_ref(&piece),
    )
    .context("seal_commit_phase1")?;
    let took = t0.elapsed();

    let c1_bytes = serde_json::to_vec(&c1)?;
    fs::write(out.join("c1.json"), &c1_bytes)?;
    let porep_id = rp.as_v1_config().porep_id;
    let commdr = json!({
        "comm_d": hex::encode(p2.comm_d),
        "comm_r": hex::encode(p2.comm_r),
        "prover_id": hex::encode(prover_id),
        "ticket": hex::encode(TICKET),
        "seed": hex::encode(SEED),
        "porep_id": hex::encode(porep_id),
        "sector": SECTOR_NUMBER,
        "miner_id": MINER_ID,
        "registered_proof": registered_proof_id(rp),
        "sector_size": sector_size,
        "piece_commitment": hex::encode(piece.commitment),
        "piece_size_unpadded": unpadded,
        "data_label": SEAL_DATA_LABEL,
        "replica_id": hex::encode(c1.replica_id.into_bytes_le()),
    });
    fs::write(
        out.join("commdr.json"),
        serde_json::to_string_pretty(&commdr)? + "\n",
    )?;
    eprintln!(
        "sealed {:?}: comm_d={} comm_r={} c1.json={} bytes ({:.1}s)",
        rp,
        hex::encode(p2.comm_d),
        hex::encode(p2.comm_r),
        c1_bytes.len(),
        took.as_secs_f64()
    );
    Ok(())
}

trait IntoBytesLe {
    fn into_bytes_le(self) -> Vec<u8>;
}

impl<D: filecoin_hashers::Domain> IntoBytesLe for D {
    fn into_bytes_le(self) -> Vec<u8> {
        self.into_bytes()
    }
}

/// A sealed sector kept on disk (replica and cache), for PoSt and SnapDeals.
pub struct Kept {
    pub sector: u64,
    pub cache: std::path::PathBuf,
    pub sealed: std::path::PathBuf,
    pub comm_r: [u8; 32],
    pub comm_d: [u8; 32],
}

/// Seals one sector (add_piece, pre-commit phase 1 and 2) through filecoin-proofs-api with the
/// harness's fixed ticket and miner, and keeps the replica and cache under `dir`.
pub fn seal_keep(rp: RegisteredSealProof, data: &[u8], sector_number: u64, dir: &Path) -> Result<Kept> {
    let sector_size = u64::from(rp.sector_size());
    let unpadded = sector_size * 127 / 128;
    anyhow::ensure!(data.len() as u64 == unpadded, "seal data must be {unpadded} bytes");
    let cache = dir.join(format!("cache-{sector_number}"));
    fs::create_dir_all(&cache)?;
    let staged = dir.join(format!("staged-{sector_number}"));
    let sealed = dir.join(format!("sealed-{sector_number}"));
    let mut staged_f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&staged)?;
    let (piece, _) = add_piece(rp, Cursor::new(data), &mut staged_f, UnpaddedBytesAmount(unpadded), &[])
        .context("add_piece")?;
    drop(staged_f);
    File::create(&sealed)?;
    let prover_id = make_prover_id(MINER_ID);
    let p1 = seal_pre_commit_phase1(
        rp,
        &cache,
        &staged,
        &sealed,
        prover_id,
        SectorId::from(sector_number),
        TICKET,
        std::slice::from_ref(&piece),
    )
    .context("seal_pre_commit_phase1")?;
    let p2 = seal_pre_commit_phase2(p1, &cache, &sealed).context("seal_pre_commit_phase2")?;
    fs::remove_file(&staged).ok();
    Ok(Kept {
        sector: sector_number,
        cache,
        sealed,
        comm_r: p2.comm_r,
        comm_d: p2.comm_d,
    })
}
