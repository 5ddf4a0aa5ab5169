//! `rustref verify-post`: rust-fil-proofs' own verdict on a WindowPoSt or WinningPoSt Groth16
//! proof, from a verifying-key file and the public values alone (registered proof, randomness,
//! the challenged sectors' ids and comm_r, partition index).
//!
//! The verdict comes from upstream's verifiers, never from inputs derived here:
//! - WinningPoSt: filecoin-proofs-api `post::verify_winning_post` (one sector; it lists the
//!   sector `sector_count` = 66 times so that unrolled sector i gets challenge index i).
//! - WindowPoSt, a whole proof (partition index 0, one or more 192-byte partition proofs):
//!   filecoin-proofs-api `post::verify_window_post`, which splits the sectors into partitions of
//!   the PoStConfig's sector count and pads the last by repeating its last sector.
//! - WindowPoSt, one partition k > 0 on its own (what `generate_single_window_post_with_vanilla`
//!   makes for partition k): no API call takes that, so this runs the body of
//!   `CompoundProof::verify` for that one partition with the public params
//!   `generate_single_window_post_with_vanilla` builds: `FallbackPoStCompound::setup`,
//!   `satisfies_requirements`, `FallbackPoStCompound::generate_public_inputs(.., Some(k))` and
//!   bellperson's `verify_proofs_batch`, with the key loaded through
//!   `CompoundProof::verifying_key` from the parameter cache.
//!
//! In every case the key file is first copied into the private parameter cache under the
//! official name upstream computes (`RegisteredPoStProof::cache_verifying_key_path`), which is
//! where those functions load it from.

use std::collections::BTreeMap;
use std::fs;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, ensure, Context, Result};
use bellperson::groth16::{prepare_verifying_key, verify_proofs_batch, Proof, VerifyingKey};
use blstrs::{Bls12, Scalar as Fr};
use filecoin_hashers::Hasher;
use filecoin_proofs::{
    as_safe_commitment,
    parameters::{window_post_setup_params, winning_post_setup_params},
    with_shape, PoStType,
};
use filecoin_proofs_api::{post, PublicReplicaInfo, RegisteredPoStProof, SectorId};
use serde_json::{json, Value};
use storage_proofs_core::{
    compound_proof::{self, CompoundProof},
    merkle::MerkleTreeTrait,
    proof::ProofScheme,
};
use storage_proofs_post::fallback::{
    self, ChallengeRequirements, FallbackPoSt, FallbackPoStCompound, PublicSector,
};

use crate::post::{abi_number, registered_post_from_abi};
use crate::seal::make_prover_id;
use crate::Args;

/// bellperson's compressed Groth16 proof: A (G1, 48) || B (G2, 96) || C (G1, 48).
const PROOF_LEN: usize = 192;

/// What the caller asks to verify, after flags and `--public` are reconciled.
pub struct Request {
    pub rp: RegisteredPoStProof,
    pub randomness: [u8; 32],
    /// (sector id, comm_r) in the order given.
    pub sectors: Vec<(u64, [u8; 32])>,
    pub partition: usize,
    pub prover_id: [u8; 32],
    pub proof: Vec<u8>,
    pub vk: PathBuf,
}

pub enum Verdict {
    Valid,
    /// Why, for stderr.
    Invalid(String),
}

/// Reconciles the flags with `--public` (flags given as well must agree with the file, as in
/// `cuzk verify-post`) and reads the proof.
pub fn request_from_args(a: &Args) -> Result<Request> {
    let public = a
        .get("public")
        .map(|p| -> Result<Value> {
            let raw = fs::read(p).with_context(|| format!("read --public {p}"))?;
            serde_json::from_slice(&raw).with_context(|| format!("--public {p}: not JSON"))
        })
        .transpose()?;
    let pubf = a.get("public").unwrap_or("");

    let rp_id = match (a.get("registered-proof"), &public) {
        (Some(f), p) => {
            let n: u64 = f.parse().with_context(|| format!("--registered-proof {f}"))?;
            if let Some(v) = p.as_ref().and_then(|p| p.get("registered_proof")) {
                ensure!(v.as_u64() == Some(n), "--registered-proof {n} disagrees with {pubf} ({v})");
            }
            n
        }
        (None, Some(p)) => p["registered_proof"]
            .as_u64()
            .ok_or_else(|| anyhow!("{pubf}: no registered_proof (an unsigned number)"))?,
        (None, None) => bail!("missing --registered-proof (or --public FILE)"),
    };
    let rp = registered_post_from_abi(rp_id).context("--registered-proof")?;

    let randomness_hex = agree_str(a, "randomness", public.as_ref(), "randomness", pubf)?;
    let randomness = parse_hex32(&randomness_hex).context("randomness")?;

    let sectors = match (a.get("sectors"), &public) {
        (Some(f), p) => {
            let s = parse_sectors(f).context("--sectors")?;
            if let Some(p) = p {
                let from_file = sectors_of_public(p).with_context(|| pubf.to_string())?;
                ensure!(s == from_file, "--sectors disagrees with {pubf}'s sectors");
            }
            s
        }
        (None, Some(p)) => sectors_of_public(p).with_context(|| pubf.to_string())?,
        (None, None) => bail!("missing --sectors ID:COMMR[,ID:COMMR...] (or --public FILE)"),
    };

    let file_partition = public.as_ref().and_then(|p| p.get("partition_index")).filter(|v| !v.is_null());
    let partition = match (a.get("partition"), file_partition) {
        (Some(f), fp) => {
            let k: usize = f.parse().with_context(|| format!("--partition {f}"))?;
            if let Some(v) = fp {
                ensure!(v.as_u64() == Some(k as u64), "--partition {k} disagrees with {pubf} ({v})");
            }
            k
        }
        (None, Some(v)) => v
            .as_u64()
            .ok_or_else(|| anyhow!("{pubf}: partition_index {v} is not an unsigned number"))? as usize,
        (None, None) => 0,
    };

    // The public inputs do not depend on the prover id (upstream only checks that it is a field
    // element), but the verifiers take one: that of --miner, else the file's.
    let file_miner = public.as_ref().and_then(|p| p.get("miner_id")).filter(|v| !v.is_null());
    let file_prover = public.as_ref().and_then(|p| p.get("prover_id")).and_then(|v| v.as_str());
    let prover_id = match (a.get("miner"), file_miner, file_prover) {
        (Some(m), fm, fp) => {
            let id: u64 = m.parse().with_context(|| format!("--miner {m}"))?;
            if let Some(v) = fm {
                ensure!(v.as_u64() == Some(id), "--miner {id} disagrees with {pubf} (miner_id {v})");
            }
            let pid = make_prover_id(id);
            if let Some(h) = fp {
                ensure!(
                    parse_hex32(h).ok() == Some(pid),
                    "--miner {id} (prover id {}) disagrees with {pubf} (prover_id {h})",
                    hex::encode(pid)
                );
            }
            pid
        }
        (None, _, Some(h)) => parse_hex32(h).with_context(|| format!("{pubf}: prover_id"))?,
        (None, Some(v), None) => make_prover_id(
            v.as_u64()
                .ok_or_else(|| anyhow!("{pubf}: miner_id {v} is not an unsigned number"))?,
        ),
        (None, None, None) => make_prover_id(0),
    };

    let proof_path = a.req("proof")?;
    let proof = fs::read(proof_path).with_context(|| format!("read --proof {proof_path}"))?;
    let vk = PathBuf::from(a.req("vk")?);
    Ok(Request {
        rp,
        randomness,
        sectors,
        partition,
        prover_id,
        proof,
        vk,
    })
}

/// A string value given as flag `flag` and/or as field `key` of the public file; both must agree.
fn agree_str(a: &Args, flag: &str, public: Option<&Value>, key: &str, pubf: &str) -> Result<String> {
    let from_file = public.and_then(|p| p.get(key)).filter(|v| !v.is_null());
    match (a.get(flag), from_file) {
        (Some(f), Some(v)) => {
            ensure!(
                v.as_str().is_some_and(|s| s.eq_ignore_ascii_case(f)),
                "--{flag} {f} disagrees with {pubf} ({key} {v})"
            );
            Ok(f.to_string())
        }
        (Some(f), None) => Ok(f.to_string()),
        (None, Some(v)) => Ok(v
            .as_str()
            .ok_or_else(|| anyhow!("{pubf}: {key} is not a string"))?
            .to_string()),
        (None, None) => bail!("missing --{flag} (or --public FILE)"),
    }
}

fn parse_hex32(s: &str) -> Result<[u8; 32]> {
    let b = hex::decode(s.trim_start_matches("0x")).map_err(|e| anyhow!("{s:?}: {e}"))?;
    let n = b.len();
    b.try_into()
        .map_err(|_| anyhow!("want 64 hex characters (32 bytes), got {n} bytes"))
}

/// "ID:COMMR[,ID:COMMR...]".
fn parse_sectors(s: &str) -> Result<Vec<(u64, [u8; 32])>> {
    s.split(',')
        .enumerate()
        .map(|(i, e)| {
            let e = e.trim();
            let (id, comm_r) = e
                .split_once(':')
                .ok_or_else(|| anyhow!("entry {i} {e:?}: want ID:COMMR"))?;
            let id: u64 = id
                .parse()
                .with_context(|| format!("entry {i} {e:?}: sector id"))?;
            let comm_r = parse_hex32(comm_r).with_context(|| format!("entry {i} (sector {id}): comm_r"))?;
            Ok((id, comm_r))
        })
        .collect()
}

/// `sectors[i] = {sector_id, comm_r}` of a `cuzk post vanilla` public file or a rustref PoSt JSON.
fn sectors_of_public(p: &Value) -> Result<Vec<(u64, [u8; 32])>> {
    let arr = p["sectors"]
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| anyhow!("no sectors"))?;
    arr.iter()
        .enumerate()
        .map(|(i, s)| {
            let id = s["sector_id"]
                .as_u64()
                .ok_or_else(|| anyhow!("sectors[{i}].sector_id: want an unsigned number"))?;
            let c = s["comm_r"]
                .as_str()
                .ok_or_else(|| anyhow!("sectors[{i}].comm_r: want 64 hex characters"))?;
            Ok((id, parse_hex32(c).with_context(|| format!("sectors[{i}].comm_r"))?))
        })
        .collect()
}

/// Runs the request through the verifier of its sector size's tree shape.
pub fn verify(req: &Request, tmp: &Path) -> Result<Verdict> {
    let size = u64::from(req.rp.sector_size());
    with_shape!(size, verify_shape, req, tmp)
}

fn verify_shape<Tree: 'static + MerkleTreeTrait>(req: &Request, tmp: &Path) -> Result<Verdict> {
    let rp = req.rp;
    let cfg = rp.as_v1_config();
    let n = req.sectors.len();
    let k = req.partition;
    let winning = cfg.typ == PoStType::Winning;

    // Shape of the request: what upstream would reject with a less precise error.
    ensure!(
        !req.proof.is_empty() && req.proof.len() % PROOF_LEN == 0,
        "--proof: {} bytes is not a whole number of {PROOF_LEN}-byte Groth16 proofs",
        req.proof.len()
    );
    let n_proofs = req.proof.len() / PROOF_LEN;
    let per = cfg.sector_count;
    if winning {
        ensure!(k == 0, "--partition {k}: {rp:?} has partition 0 only");
        ensure!(
            n == per && n_proofs == 1,
            "{rp:?} proves {per} sector in one {PROOF_LEN}-byte proof; got {n} sector(s) and {n_proofs} proof(s)"
        );
    } else {
        let parts = n.div_ceil(per);
        ensure!(
            parts == n_proofs,
            "{n} sector(s) make {parts} partition(s) of up to {per} for {rp:?}; the proof has {n_proofs} partition proof(s)"
        );
        ensure!(
            k == 0 || n_proofs == 1,
            "--partition {k} with a {n_proofs}-partition proof: a whole proof numbers its partitions from 0"
        );
        if k == 0 {
            // verify_window_post takes the sectors as a BTreeMap: it checks them in ascending id
            // order, once each. A list in another order would be silently reordered.
            for w in req.sectors.windows(2) {
                ensure!(
                    w[0].0 < w[1].0,
                    "sectors: sector {} follows sector {}; verify_window_post checks the sectors in ascending id order, \
                     each once (as the chain lists a partition's sectors), so give them in that order",
                    w[1].0,
                    w[0].0
                );
            }
        }
    }

    // The key: read fully with bellperson's own reader, so that upstream's cache read of the
    // same bytes cannot fail (it would otherwise look for a .params file to derive one from).
    let vk_bytes = fs::read(&req.vk).with_context(|| format!("read --vk {}", req.vk.display()))?;
    let mut cur = Cursor::new(&vk_bytes[..]);
    let vk = VerifyingKey::<Bls12>::read(&mut cur)
        .with_context(|| format!("--vk {}: not a bellperson verifying key", req.vk.display()))?;
    ensure!(
        cur.position() as usize == vk_bytes.len(),
        "--vk {}: {} trailing bytes after the verifying key ({} bytes, {} IC points)",
        req.vk.display(),
        vk_bytes.len() - cur.position() as usize,
        cur.position(),
        vk.ic.len()
    );

    // The public params and public inputs exactly as the upstream verifier of this request
    // builds them; used here to check the key's input count (and for the k > 0 route).
    let randomness_safe = as_safe_commitment::<<Tree::Hasher as Hasher>::Domain, _>(&req.randomness, "randomness")?;
    let prover_id_safe = as_safe_commitment::<<Tree::Hasher as Hasher>::Domain, _>(&req.prover_id, "prover_id")?;
    let comm_rs = req
        .sectors
        .iter()
        .map(|(id, c)| {
            as_safe_commitment::<<Tree::Hasher as Hasher>::Domain, _>(c, "comm_r")
                .with_context(|| format!("sector {id}"))
                .map(|c| PublicSector { id: SectorId::from(*id), comm_r: c })
        })
        .collect::<Result<Vec<_>>>()?;
    let vanilla_params = if winning {
        winning_post_setup_params(&cfg)?
    } else {
        window_post_setup_params(&cfg)
    };
    let pub_params: compound_proof::PublicParams<'_, FallbackPoSt<'_, Tree>> =
        FallbackPoStCompound::setup(&compound_proof::SetupParams {
            vanilla_params,
            partitions: None,
            priority: false,
        })?;
    let circuit_sectors = pub_params.vanilla_params.sector_count;
    let sectors_listed: Vec<PublicSector<_>> = if winning {
        // As verify_winning_post lists them.
        (0..circuit_sectors).map(|_| comm_rs[0].clone()).collect()
    } else {
        // generate_public_inputs takes partition k as chunk k of this list; the k·sector_count
        // entries before it only position the chunk (they are never read).
        std::iter::repeat_n(comm_rs[0].clone(), k * circuit_sectors)
            .chain(comm_rs.iter().cloned())
            .collect()
    };
    let pub_inputs = fallback::PublicInputs {
        randomness: randomness_safe,
        prover_id: prover_id_safe,
        sectors: sectors_listed,
        k: None,
    };
    let inputs: Vec<Fr> =
        <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::generate_public_inputs(
            &pub_inputs,
            &pub_params.vanilla_params,
            Some(k),
        )?;
    ensure!(
        vk.ic.len() == inputs.len() + 1,
        "--vk {} takes {} public inputs, a {rp:?} partition has {} ({} sectors x {} challenges; a key for another circuit?)",
        req.vk.display(),
        vk.ic.len().saturating_sub(1),
        inputs.len(),
        circuit_sectors,
        pub_params.vanilla_params.challenge_count
    );

    let target = rp.cache_verifying_key_path()?;
    ensure!(
        target.starts_with(tmp),
        "parameter cache {} is not the private temp dir",
        target.display()
    );
    fs::create_dir_all(target.parent().expect("parent"))?;
    fs::write(&target, &vk_bytes).with_context(|| format!("write {}", target.display()))?;
    let official = target.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let given = req.vk.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    if given.starts_with("v28-") && given != official {
        eprintln!("warning: --vk is named {given}, but the key of {rp:?} is {official}");
    }
    eprintln!("vk placed as {official}");
    eprintln!(
        "{rp:?} (abi {}): {} sector(s), partition {k}, {n_proofs} partition proof(s); circuit of {circuit_sectors} sector(s) x {} challenge(s), {} public inputs",
        abi_number(rp),
        n,
        pub_params.vanilla_params.challenge_count,
        inputs.len()
    );

    // A proof whose points do not decode is a proof that does not verify: say where.
    let mut proofs = Vec::with_capacity(n_proofs);
    for (j, chunk) in req.proof.chunks(PROOF_LEN).enumerate() {
        match Proof::<Bls12>::read(chunk) {
            Ok(p) => proofs.push(p),
            Err(e) => {
                return Ok(Verdict::Invalid(format!(
                    "partition proof {j} (bytes {}..{}) does not decode: {e}",
                    j * PROOF_LEN,
                    (j + 1) * PROOF_LEN
                )))
            }
        }
    }

    let (ok, how) = if winning {
        let replicas: BTreeMap<SectorId, PublicReplicaInfo> = req
            .sectors
            .iter()
            .map(|(id, c)| (SectorId::from(*id), PublicReplicaInfo::new(rp, *c)))
            .collect();
        (
            post::verify_winning_post(&req.randomness, &req.proof, &replicas, req.prover_id)?,
            "filecoin-proofs-api verify_winning_post",
        )
    } else if k == 0 {
        let replicas: BTreeMap<SectorId, PublicReplicaInfo> = req
            .sectors
            .iter()
            .map(|(id, c)| (SectorId::from(*id), PublicReplicaInfo::new(rp, *c)))
            .collect();
        ensure!(replicas.len() == n, "sectors: a sector id is listed twice");
        (
            post::verify_window_post(&req.randomness, &[(rp, &req.proof[..])], &replicas, req.prover_id)?,
            "filecoin-proofs-api verify_window_post",
        )
    } else {
        // CompoundProof::verify's body for the one partition k.
        let vk = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::verifying_key::<
            rand::rngs::OsRng,
        >(None, &pub_params.vanilla_params)?;
        let pvk = prepare_verifying_key(&vk);
        let meets = <FallbackPoSt<'_, Tree> as ProofScheme<'_>>::satisfies_requirements(
            &pub_params.vanilla_params,
            &ChallengeRequirements {
                minimum_challenge_count: cfg.challenge_count * cfg.sector_count,
            },
            1,
        );
        let ok = meets
            && verify_proofs_batch(&pvk, &mut rand::rngs::OsRng, &[&proofs[0]], &[inputs])
                .map_err(|e| anyhow!("verify_proofs_batch: {e}"))?;
        (
            ok,
            "FallbackPoStCompound::generate_public_inputs(partition k) + bellperson verify_proofs_batch (CompoundProof::verify for one partition)",
        )
    };
    eprintln!("verdict of {how}");
    Ok(if ok {
        Verdict::Valid
    } else {
        Verdict::Invalid(format!("{how} rejects the proof"))
    })
}

/// `rustref post-config --registered-proof N`: what upstream derives for a registered PoSt
/// proof (PoStConfig, tree shape, the circuit's sector and challenge counts, the official
/// parameter and key file names), so a full-size run can be checked without its files.
pub fn config(a: &Args) -> Result<Value> {
    let n: u64 = a.req("registered-proof")?.parse().context("--registered-proof")?;
    let rp = registered_post_from_abi(n)?;
    let size = u64::from(rp.sector_size());
    with_shape!(size, config_shape, rp)
}

fn config_shape<Tree: 'static + MerkleTreeTrait>(rp: RegisteredPoStProof) -> Result<Value> {
    let cfg = rp.as_v1_config();
    let vanilla = if cfg.typ == PoStType::Winning {
        winning_post_setup_params(&cfg)?
    } else {
        window_post_setup_params(&cfg)
    };
    let name = |p: PathBuf| p.file_name().map(|s| s.to_string_lossy().to_string());
    Ok(json!({
        "registered_proof": abi_number(rp),
        "registered_proof_api": format!("{rp:?}"),
        "sector_size": u64::from(cfg.sector_size),
        "api_version": format!("{}", cfg.api_version),
        "post_config": {"sector_count": cfg.sector_count, "challenge_count": cfg.challenge_count},
        "circuit": {"sector_count": vanilla.sector_count, "challenge_count": vanilla.challenge_count},
        "tree": Tree::display(),
        "circuit_identifier": rp.circuit_identifier()?,
        "vk_file": name(rp.cache_verifying_key_path()?),
        "params_file": name(rp.cache_params_path()?),
    }))
}
