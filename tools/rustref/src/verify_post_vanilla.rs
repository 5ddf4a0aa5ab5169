//! `rustref verify-post-vanilla`: rust-fil-proofs' own check of WindowPoSt / WinningPoSt vanilla
//! proofs (what Curio sends in `vanilla_proofs`) against their public values, with the public
//! params upstream builds from the registered proof. No parameters and no SNARK: only the vanilla
//! checks filecoin-proofs runs before proving.
//!
//! - WindowPoSt partition k: `single_partition_vanilla_proofs` with `PublicInputs { sectors = the
//!   public file's, k: Some(k) }`, as `generate_single_window_post_with_vanilla` runs it (it ends
//!   in `FallbackPoSt::verify` of the padded partition); for k = 0 also `partition_vanilla_proofs`
//!   (`FallbackPoSt::verify_all_partitions`), as `generate_window_post_with_vanilla` runs it.
//! - WinningPoSt: `partition_vanilla_proofs` as `generate_winning_post_with_vanilla` runs it.
//!   Upstream's check there zips the one public sector with the 66 unrolled sector proofs, so it
//!   opens only the first challenge; this then runs `FallbackPoSt::verify` again with the sector
//!   listed `sector_count` (66) times, as `verify_winning_post` lists it, which checks every
//!   inclusion proof against its own challenge.
//!
//! Every entry must decode as bincode `FallbackPoStSectorProof<Tree>` of the registered proof's
//! tree shape and re-encode to the same bytes, and the entries' (sector_id, comm_r) must be the
//! public file's sectors in order.

use std::fs;
use std::process::ExitCode;

use anyhow::{anyhow, ensure, Context, Result};
use filecoin_hashers::Hasher;
use filecoin_proofs::{
    as_safe_commitment,
    parameters::{window_post_setup_params, winning_post_setup_params},
    partition_vanilla_proofs, single_partition_vanilla_proofs, with_shape, FallbackPoStSectorProof,
    PoStConfig, PoStType,
};
use serde_json::Value;
use storage_proofs_core::{merkle::MerkleTreeTrait, proof::ProofScheme};
use storage_proofs_post::fallback::{self, FallbackPoSt, PublicSector};

use crate::b64;
use crate::post::registered_post_from_abi;
use crate::seal::make_prover_id;
use crate::Args;

/// What the public-values file and the vanilla file say.
struct Input {
    cfg: PoStConfig,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    partition: usize,
    sectors: Vec<(u64, [u8; 32])>,
    entries: Vec<Vec<u8>>,
}

fn hex32(v: &Value, what: &str) -> Result<[u8; 32]> {
    let s = v
        .as_str()
        .ok_or_else(|| anyhow!("{what}: want 64 hex characters"))?;
    let b = hex::decode(s.trim_start_matches("0x")).with_context(|| format!("{what}: {s:?}"))?;
    let n = b.len();
    b.try_into()
        .map_err(|_| anyhow!("{what}: want 32 bytes, got {n}"))
}

fn read_input(a: &Args) -> Result<Input> {
    let pubf = a.req("public")?;
    let p: Value =
        serde_json::from_slice(&fs::read(pubf).with_context(|| format!("read --public {pubf}"))?)
            .with_context(|| format!("--public {pubf}: not JSON"))?;
    let rp_id = p["registered_proof"]
        .as_u64()
        .ok_or_else(|| anyhow!("{pubf}: no registered_proof (an unsigned number)"))?;
    let rp = registered_post_from_abi(rp_id).with_context(|| pubf.to_string())?;
    let randomness = hex32(&p["randomness"], "randomness").with_context(|| pubf.to_string())?;
    let prover_id = match (&p["prover_id"], &p["miner_id"]) {
        (Value::String(_), _) => {
            hex32(&p["prover_id"], "prover_id").with_context(|| pubf.to_string())?
        }
        (_, m) if m.is_u64() => make_prover_id(m.as_u64().expect("checked")),
        _ => return Err(anyhow!("{pubf}: neither prover_id nor miner_id")),
    };
    let file_k = p["partition_index"].as_u64().unwrap_or(0) as usize;
    let partition = match a.get("partition") {
        Some(f) => {
            let k: usize = f.parse().with_context(|| format!("--partition {f}"))?;
            ensure!(
                k == file_k,
                "--partition {k} disagrees with {pubf} (partition_index {file_k})"
            );
            k
        }
        None => file_k,
    };
    let sectors = p["sectors"]
        .as_array()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| anyhow!("{pubf}: no sectors"))?
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let id = s["sector_id"].as_u64().ok_or_else(|| {
                anyhow!("{pubf}: sectors[{i}].sector_id: want an unsigned number")
            })?;
            Ok((
                id,
                hex32(&s["comm_r"], &format!("{pubf}: sectors[{i}].comm_r"))?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let vf = a.req("vanilla")?;
    let raw = fs::read(vf).with_context(|| format!("read --vanilla {vf}"))?;
    // A JSON array of base64 strings (Curio's vanilla_proofs), else one raw bincode proof.
    let entries = match serde_json::from_slice::<Vec<String>>(&raw) {
        Ok(list) => list
            .iter()
            .enumerate()
            .map(|(i, s)| b64::decode(s).with_context(|| format!("{vf}: entry {i}")))
            .collect::<Result<Vec<_>>>()?,
        Err(_) => vec![raw],
    };
    Ok(Input {
        cfg: rp.as_v1_config(),
        randomness,
        prover_id,
        partition,
        sectors,
        entries,
    })
}

/// `rustref verify-post-vanilla --vanilla FILE --public FILE [--partition K]`: prints `valid`
/// (exit 0) or `invalid` (exit 1, the reason on stderr); malformed input is an error (exit 2).
pub fn run(a: &Args) -> Result<ExitCode> {
    let input = read_input(a)?;
    let size = u64::from(input.cfg.sector_size);
    let verdict: std::result::Result<String, String> = with_shape!(size, verify_shape, &input)?;
    Ok(match verdict {
        Ok(how) => {
            eprintln!("{how}");
            println!("valid");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{why}");
            println!("invalid");
            ExitCode::from(1)
        }
    })
}

/// Ok(Ok(how)) when upstream accepts, Ok(Err(why)) when it rejects, Err for malformed input.
fn verify_shape<Tree: 'static + MerkleTreeTrait>(
    input: &Input,
) -> Result<std::result::Result<String, String>> {
    let cfg = &input.cfg;
    let winning = cfg.typ == PoStType::Winning;
    let proofs = input
        .entries
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let p: FallbackPoStSectorProof<Tree> = bincode::deserialize(b)
                .with_context(|| format!("vanilla_proofs[{i}]: not a bincode FallbackPoStSectorProof<{}>", Tree::display()))?;
            ensure!(
                bincode::serialize(&p)? == *b,
                "vanilla_proofs[{i}]: {} bytes do not re-encode to themselves (trailing or non-canonical bytes)",
                b.len()
            );
            Ok(p)
        })
        .collect::<Result<Vec<_>>>()?;

    // The entries must prove the public file's sectors, in order.
    let listed: Vec<(u64, [u8; 32])> = proofs
        .iter()
        .map(|p| {
            let mut c = [0u8; 32];
            c.copy_from_slice(AsRef::<[u8]>::as_ref(&p.comm_r));
            (u64::from(p.sector_id), c)
        })
        .collect();
    if listed != input.sectors {
        return Ok(Err(format!(
            "the vanilla proofs are of sectors {:?}, the public values list {:?} (ids; comm_r compared too)",
            listed.iter().map(|s| s.0).collect::<Vec<_>>(),
            input.sectors.iter().map(|s| s.0).collect::<Vec<_>>()
        )));
    }

    type Domain<T> = <<T as MerkleTreeTrait>::Hasher as Hasher>::Domain;
    let randomness = as_safe_commitment::<Domain<Tree>, _>(&input.randomness, "randomness")?;
    let prover_id = as_safe_commitment::<Domain<Tree>, _>(&input.prover_id, "prover_id")?;
    let sectors = input
        .sectors
        .iter()
        .map(|(id, c)| {
            Ok(PublicSector {
                id: (*id).into(),
                comm_r: as_safe_commitment::<Domain<Tree>, _>(c, "comm_r")
                    .with_context(|| format!("sector {id}"))?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let k = input.partition;
    let mut how = Vec::new();
    if winning {
        ensure!(k == 0, "partition {k}: a WinningPoSt has partition 0 only");
        let pp = FallbackPoSt::<Tree>::setup(&winning_post_setup_params(cfg)?)?;
        let pi = fallback::PublicInputs {
            randomness,
            prover_id,
            sectors: sectors.clone(),
            k: None,
        };
        let parts = match partition_vanilla_proofs(cfg, &pp, &pi, 1, &proofs) {
            Ok(parts) => parts,
            Err(e) => {
                return Ok(Err(format!(
                    "partition_vanilla_proofs (generate_winning_post_with_vanilla's check): {e:#}"
                )))
            }
        };
        how.push(
            "partition_vanilla_proofs (generate_winning_post_with_vanilla's check)".to_string(),
        );
        ensure!(parts.len() == 1, "winning: {} partitions", parts.len());
        let every = fallback::PublicInputs {
            randomness,
            prover_id,
            sectors: (0..pp.sector_count).map(|_| sectors[0].clone()).collect(),
            k: Some(0),
        };
        match FallbackPoSt::<Tree>::verify(&pp, &every, &parts[0]) {
            Ok(true) => how.push(format!(
                "FallbackPoSt::verify with the sector listed {} times as verify_winning_post lists it (every challenge)",
                pp.sector_count
            )),
            Ok(false) => return Ok(Err("FallbackPoSt::verify of all 66 unrolled challenges rejects the proofs".into())),
            Err(e) => return Ok(Err(format!("FallbackPoSt::verify of all 66 unrolled challenges: {e:#}"))),
        }
    } else {
        let pp = FallbackPoSt::<Tree>::setup(&window_post_setup_params(cfg))?;
        ensure!(
            sectors.len() <= pp.sector_count,
            "{} sectors: a partition holds at most {}",
            sectors.len(),
            pp.sector_count
        );
        let pi = fallback::PublicInputs {
            randomness,
            prover_id,
            sectors: sectors.clone(),
            k: Some(k),
        };
        if let Err(e) = single_partition_vanilla_proofs(cfg, &pp, &pi, &proofs) {
            return Ok(Err(format!(
                "single_partition_vanilla_proofs, partition {k} (generate_single_window_post_with_vanilla's check): {e:#}"
            )));
        }
        how.push(format!("single_partition_vanilla_proofs, partition {k} (generate_single_window_post_with_vanilla's check)"));
        if k == 0 {
            let pi = fallback::PublicInputs { k: None, ..pi };
            if let Err(e) = partition_vanilla_proofs(cfg, &pp, &pi, 1, &proofs) {
                return Ok(Err(format!(
                    "partition_vanilla_proofs / verify_all_partitions: {e:#}"
                )));
            }
            how.push("partition_vanilla_proofs + FallbackPoSt::verify_all_partitions (generate_window_post_with_vanilla's check)".into());
        }
    }
    Ok(Ok(format!(
        "{:?} {} sector(s), tree {}: accepted by {}",
        cfg.typ,
        proofs.len(),
        Tree::display(),
        how.join("; ")
    )))
}
