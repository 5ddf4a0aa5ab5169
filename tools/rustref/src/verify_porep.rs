//! `rustref verify-c1` and `rustref verify-seal --partition K`: rust-fil-proofs' own verdict on
//! a commit-phase-1 output (the vanilla proofs) and on one partition's Groth16 PoRep proof.
//!
//! verify-c1 builds what filecoin-proofs' `seal_commit_phase2` builds before proving (the C1's
//! zero checks, `as_safe_commitment(comm_r)`, `DefaultPieceDomain::try_from_bytes(comm_d)`,
//! `stacked::PublicInputs { replica_id, tau: Some(Tau { comm_d, comm_r }), k: None,
//! seed: Some(seed) }`, `StackedCompound::setup` over `setup_params(porep_config)` with
//! `partitions = porep_config.partitions`) and calls
//! `StackedDrg::<Tree, Sha256Hasher>::verify_all_partitions`, the check `seal_commit_phase1`
//! runs on the proofs it has just made ("Invalid vanilla proof generated") and
//! `CompoundProof::prove` runs before proving. `seal_commit_phase2` itself does not verify the
//! vanilla proofs.
//!
//! One partition (`--partition K`): StackedDrg does not implement `ProofScheme::verify` (the
//! trait default is `unimplemented!()`, a panic), and `verify_all_partitions` numbers the
//! partitions by their position in the slice it is given. So the per-partition body of
//! `StackedDrg::verify_all_partitions` (storage-proofs-porep 19.0.1,
//! src/stacked/vanilla/proof_scheme.rs) is transcribed for partition K, calling the same
//! upstream functions: comm_r = Poseidon hash2(comm_c, comm_r_last) of the first proof,
//! `PublicInputs::challenges(.., Some(K))`, the proof count, equal comm_c / comm_r_last, and
//! `stacked::Proof::verify` for every challenge.
//!
//! Neither path touches the SDR parent cache: `StackedDrg::setup` only builds
//! `StackedBucketGraph::new_stacked` (seeds, feistel keys), `Proof::verify` computes the
//! challenge's parents with `StackedGraph::parents` (`base_parents` / `expanded_parents`, "No
//! cache usage, generate on demand"), and `generate_public_inputs` uses `base_graph().parents`
//! and `expanded_parents`. Only `StackedGraph::parent_cache()` builds the cache, and upstream
//! calls it from labelling (`generate_labels*`, `create_label::multi`) alone.

use std::fs;
use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, bail, ensure, Context, Result};
use bellperson::groth16::{prepare_verifying_key, verify_proof, Proof, VerifyingKey};
use blstrs::{Bls12, Scalar as Fr};
use filecoin_hashers::{sha256::Sha256Hasher, Domain, HashFunction, Hasher};
use filecoin_proofs::{
    as_safe_commitment, parameters::setup_params, with_shape, DefaultPieceDomain, PoRepConfig,
};
use filecoin_proofs_api::{seal::SealCommitPhase1Output, RegisteredSealProof};
use serde_json::Value;
use storage_proofs_core::{
    api_version::ApiFeature,
    compound_proof::{self, CompoundProof},
    drgraph::Graph,
    merkle::MerkleTreeTrait,
    proof::ProofScheme,
};
use storage_proofs_porep::stacked::{
    self, generate_replica_id, ChallengeRequirements, Challenges, StackedCompound, StackedDrg, Tau,
};

use crate::{b64, hex32, seal, Args};

/// bellperson's compressed Groth16 proof: A (G1, 48) || B (G2, 96) || C (G1, 48).
const PROOF_LEN: usize = 192;

pub enum Verdict {
    Valid,
    /// Why, for stderr.
    Invalid(String),
}

/// Curio's envelope around a C1 (its Go `json.Marshal` of a struct with a `[]byte` field).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CurioC1 {
    #[serde(rename = "SectorNum")]
    sector_num: Option<u64>,
    #[serde(rename = "Phase1Out")]
    phase1_out: String,
    #[serde(rename = "SectorSize")]
    sector_size: Option<u64>,
}

/// Reads a C1: the api-level `SealCommitPhase1Output` as serde_json writes it, or Curio's
/// wrapper `{"SectorNum":n,"Phase1Out":"<base64 of that JSON>","SectorSize":n}`. Typed parses
/// only (no intermediate `serde_json::Value`, which would cost ~10x the memory at 32 GiB).
pub fn read_c1_any(path: &Path) -> Result<(SealCommitPhase1Output, Option<u64>)> {
    let bytes = fs::read(path).with_context(|| format!("read {}", path.display()))?;
    let plain_err = match serde_json::from_slice::<SealCommitPhase1Output>(&bytes) {
        Ok(c1) => return Ok((c1, None)),
        Err(e) => e,
    };
    let w: CurioC1 = match serde_json::from_slice(&bytes) {
        Ok(w) => w,
        Err(e) => bail!(
            "{}: neither an api-level C1 ({plain_err}) nor Curio's wrapper ({e})",
            path.display()
        ),
    };
    let raw = b64::decode(&w.phase1_out).with_context(|| format!("{}: Phase1Out base64", path.display()))?;
    let c1: SealCommitPhase1Output = serde_json::from_slice(&raw)
        .with_context(|| format!("parse C1 JSON inside {}'s Phase1Out", path.display()))?;
    if let Some(size) = w.sector_size {
        let want = u64::from(c1.registered_proof.sector_size());
        ensure!(
            size == want,
            "{}: wrapper SectorSize {size} but the C1's registered proof {:?} is {want} bytes",
            path.display(),
            c1.registered_proof
        );
    }
    eprintln!("read Curio's wrapper (SectorNum {:?}) around the C1", w.sector_num);
    Ok((c1, w.sector_num))
}

/// Runs `f`, turning an upstream panic (an `expect` inside a verifier) into an error.
fn no_panic<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic".into());
            bail!("{what} panicked: {msg}")
        }
    }
}

/// `rustref verify-c1 --c1 FILE [--partition K]`.
pub fn verify_c1(a: &Args) -> Result<Verdict> {
    let path = Path::new(a.req("c1")?);
    let only: Option<usize> = a.get("partition").map(|s| s.parse()).transpose().context("--partition")?;
    let t0 = Instant::now();
    let (c1, _) = read_c1_any(path)?;
    eprintln!("parsed {} in {:.2}s", path.display(), t0.elapsed().as_secs_f64());
    let rp = c1.registered_proof;
    ensure!(rp.major_version() == 1, "unsupported registered proof {rp:?}");
    let size = u64::from(rp.sector_size());
    with_shape!(size, verify_c1_shape, c1, only)
}

fn verify_c1_shape<Tree: 'static + MerkleTreeTrait>(
    c1: SealCommitPhase1Output,
    only: Option<usize>,
) -> Result<Verdict> {
    let rp: RegisteredSealProof = c1.registered_proof;
    let config: PoRepConfig = rp.as_v1_config();
    let SealCommitPhase1Output {
        vanilla_proofs,
        comm_r,
        comm_d,
        replica_id,
        seed,
        ticket: _,
        registered_proof: _,
    } = c1;
    let t0 = Instant::now();
    // filecoin-proofs-api seal_commit_phase2_inner: VanillaSealProof -> the rfp-level proofs.
    let proofs: Vec<Vec<stacked::Proof<Tree, Sha256Hasher>>> = vanilla_proofs.try_into()?;
    // filecoin-proofs seal_commit_phase2_circuit_proofs' checks, in its order.
    ensure!(comm_d != [0; 32], "Invalid all zero commitment (comm_d)");
    ensure!(comm_r != [0; 32], "Invalid all zero commitment (comm_r)");
    ensure!(seed != [0; 32], "Invalid porep challenge seed");
    ensure!(
        !proofs.is_empty() && proofs.iter().all(|p| !p.is_empty()),
        "C1 output contains no vanilla proofs"
    );
    let comm_r_safe = as_safe_commitment::<<Tree::Hasher as Hasher>::Domain, _>(&comm_r, "comm_r")?;
    let comm_d_safe = DefaultPieceDomain::try_from_bytes(&comm_d)?;
    // As seal_commit_phase2_inner: the api's Poseidon domain through Fr into Tree's domain.
    let replica_id: Fr = replica_id.into();
    let pub_inputs = stacked::PublicInputs {
        replica_id: replica_id.into(),
        tau: Some(Tau { comm_d: comm_d_safe, comm_r: comm_r_safe }),
        k: None,
        seed: Some(seed),
    };
    let csp = compound_proof::SetupParams {
        vanilla_params: setup_params(&config)?,
        partitions: Some(usize::from(config.partitions)),
        priority: false,
    };
    let cpp = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<StackedDrg<'_, Tree, Sha256Hasher>, _>>::setup(&csp)?;
    let pp = &cpp.vanilla_params;
    let partitions = usize::from(config.partitions);
    let per = pp.challenges.num_challenges_per_partition();
    // Not an upstream check (verify_all_partitions checks whatever partitions it is given):
    // a C1 with another partition count could never become a proof of this registered proof.
    ensure!(
        proofs.len() == partitions,
        "the C1 holds {} partition(s); {rp:?} has {partitions}",
        proofs.len()
    );
    eprintln!(
        "{rp:?}: {partitions} partition(s) x {per} challenge(s), {} nodes, {} layers; setup {:.2}s",
        pp.graph.size(),
        pp.num_layers,
        t0.elapsed().as_secs_f64()
    );
    let t1 = Instant::now();
    let (ok, how) = match only {
        None => (
            no_panic("verify_all_partitions", || {
                Ok(StackedDrg::<Tree, Sha256Hasher>::verify_all_partitions(pp, &pub_inputs, &proofs)?)
            })?,
            "StackedDrg::verify_all_partitions".to_string(),
        ),
        Some(k) => {
            ensure!(k < partitions, "--partition {k}: {rp:?} has partitions 0..{partitions}");
            (
                no_panic("partition verification", || verify_one_partition(pp, &pub_inputs, &proofs[k], k))?,
                format!("StackedDrg::verify_all_partitions' body for partition {k} (stacked::Proof::verify per challenge)"),
            )
        }
    };
    eprintln!("verdict of {how}: {ok} ({:.2}s)", t1.elapsed().as_secs_f64());
    Ok(if ok {
        Verdict::Valid
    } else {
        Verdict::Invalid(format!("{how} rejects the vanilla proofs"))
    })
}

/// The body of `StackedDrg::verify_all_partitions` (storage-proofs-porep 19.0.1) for the one
/// partition `k`, statement for statement.
fn verify_one_partition<Tree: 'static + MerkleTreeTrait>(
    pub_params: &stacked::PublicParams<Tree>,
    pub_inputs: &stacked::PublicInputs<<Tree::Hasher as Hasher>::Domain, <Sha256Hasher as Hasher>::Domain>,
    proofs: &[stacked::Proof<Tree, Sha256Hasher>],
    k: usize,
) -> Result<bool> {
    use rayon::prelude::*;
    let graph = &pub_params.graph;
    let expected_comm_r = if let Some(ref tau) = pub_inputs.tau {
        &tau.comm_r
    } else {
        return Ok(false);
    };
    let skip_synth_verification = matches!(pub_params.challenges, Challenges::Synth(_)) && pub_inputs.seed.is_none();
    if skip_synth_verification {
        return Ok(true);
    }
    ensure!(
        pub_inputs.seed.is_some(),
        "porep challenge seed must be set to verify vanilla proofs",
    );
    let actual_comm_r: <Tree::Hasher as Hasher>::Domain = {
        let comm_c = proofs[0].comm_c();
        let comm_r_last = proofs[0].comm_r_last();
        <Tree::Hasher as Hasher>::Function::hash2(&comm_c, &comm_r_last)
    };
    if expected_comm_r != &actual_comm_r {
        eprintln!("partition {k}: comm_r != H(comm_c, comm_r_last)");
        return Ok(false);
    }
    let challenges = pub_inputs.challenges(&pub_params.challenges, graph.size(), Some(k));
    if proofs.len() != challenges.len() {
        eprintln!(
            "partition {k}: {} challenge proofs, {} challenges",
            proofs.len(),
            challenges.len()
        );
        return Ok(false);
    }
    Ok(proofs.par_iter().enumerate().all(|(i, proof)| {
        let challenge = challenges[i];
        if proof.comm_c() != proofs[0].comm_c() {
            return false;
        }
        if proof.comm_r_last() != proofs[0].comm_r_last() {
            return false;
        }
        proof.verify(pub_params, pub_inputs, challenge, graph)
    }))
}

/// `rustref verify-seal --vk FILE --commdr FILE --proof FILE --partition K`: partition K's
/// Groth16 proof against upstream's public inputs for partition K.
pub fn verify_seal_partition(a: &Args, k: usize) -> Result<Verdict> {
    let commdr: Value = serde_json::from_slice(&fs::read(a.req("commdr")?)?).context("--commdr JSON")?;
    let rp_id = commdr["registered_proof"]
        .as_u64()
        .ok_or_else(|| anyhow!("commdr: registered_proof"))?;
    let rp = seal::registered_proof_from_id(rp_id)?;
    let size = u64::from(rp.sector_size());
    with_shape!(size, verify_seal_shape, a, &commdr, rp, k)
}

fn verify_seal_shape<Tree: 'static + MerkleTreeTrait>(
    a: &Args,
    commdr: &Value,
    rp: RegisteredSealProof,
    k: usize,
) -> Result<Verdict> {
    let config = rp.as_v1_config();
    ensure!(
        !config.feature_enabled(ApiFeature::NonInteractivePoRep),
        "{rp:?}: a non-interactive PoRep proof is an aggregate; it has no per-partition Groth16 proof"
    );
    let partitions = usize::from(config.partitions);
    ensure!(k < partitions, "--partition {k}: {rp:?} has partitions 0..{partitions}");
    let proof_path = a.req("proof")?;
    let all = fs::read(proof_path).with_context(|| format!("read --proof {proof_path}"))?;
    let bytes = if all.len() == PROOF_LEN {
        &all[..]
    } else if all.len() == PROOF_LEN * partitions {
        &all[PROOF_LEN * k..PROOF_LEN * (k + 1)]
    } else {
        bail!(
            "--proof: {} bytes; want {PROOF_LEN} (partition {k} alone) or {} ({partitions} partitions of {rp:?})",
            all.len(),
            PROOF_LEN * partitions
        )
    };
    let sector = commdr["sector"].as_u64().ok_or_else(|| anyhow!("commdr: sector"))?;
    let comm_r_in = hex32(commdr, "comm_r")?;
    let comm_d_in = hex32(commdr, "comm_d")?;
    let prover_id = hex32(commdr, "prover_id")?;
    let ticket = hex32(commdr, "ticket")?;
    let seed = hex32(commdr, "seed")?;

    // The key, read whole with bellperson's reader.
    let vk_path = a.req("vk")?;
    let vk_bytes = fs::read(vk_path).with_context(|| format!("read --vk {vk_path}"))?;
    let mut cur = Cursor::new(&vk_bytes[..]);
    let vk = VerifyingKey::<Bls12>::read(&mut cur).with_context(|| format!("--vk {vk_path}: not a bellperson verifying key"))?;
    ensure!(
        cur.position() as usize == vk_bytes.len(),
        "--vk {vk_path}: {} trailing bytes after the verifying key",
        vk_bytes.len() - cur.position() as usize
    );

    // filecoin-proofs verify_seal, up to the Groth16 check.
    ensure!(comm_d_in != [0; 32], "Invalid all zero commitment (comm_d)");
    ensure!(comm_r_in != [0; 32], "Invalid all zero commitment (comm_r)");
    let comm_r: <Tree::Hasher as Hasher>::Domain = as_safe_commitment(&comm_r_in, "comm_r")?;
    let comm_d: DefaultPieceDomain = as_safe_commitment(&comm_d_in, "comm_d")?;
    let replica_id = generate_replica_id::<Tree::Hasher, _>(&prover_id, sector, &ticket, comm_d, &config.porep_id);
    let csp = compound_proof::SetupParams {
        vanilla_params: setup_params(&config)?,
        partitions: Some(partitions),
        priority: false,
    };
    let cpp = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<StackedDrg<'_, Tree, Sha256Hasher>, _>>::setup(&csp)?;
    let pub_inputs = stacked::PublicInputs::<<Tree::Hasher as Hasher>::Domain, DefaultPieceDomain> {
        replica_id,
        tau: Some(Tau { comm_r, comm_d }),
        seed: Some(seed),
        k: None,
    };
    // CompoundProof::verify: satisfies_requirements over the whole proof's partition count.
    let meets = <StackedDrg<'_, Tree, Sha256Hasher> as ProofScheme<'_>>::satisfies_requirements(
        &cpp.vanilla_params,
        &ChallengeRequirements {
            minimum_challenges: config.minimum_challenges(),
        },
        partitions,
    );
    ensure!(meets, "{rp:?}: the porep config does not satisfy its minimum challenge count");
    let t0 = Instant::now();
    let inputs: Vec<Fr> =
        <StackedCompound<Tree, Sha256Hasher> as CompoundProof<StackedDrg<'_, Tree, Sha256Hasher>, _>>::generate_public_inputs(
            &pub_inputs,
            &cpp.vanilla_params,
            Some(k),
        )?;
    ensure!(
        vk.ic.len() == inputs.len() + 1,
        "--vk {vk_path} takes {} public inputs, a {rp:?} partition has {} (a key for another circuit?)",
        vk.ic.len().saturating_sub(1),
        inputs.len()
    );
    let t_inputs = t0.elapsed().as_secs_f64();
    let proof = match Proof::<Bls12>::read(bytes) {
        Ok(p) => p,
        Err(e) => return Ok(Verdict::Invalid(format!("partition {k}'s proof does not decode: {e}"))),
    };
    let t1 = Instant::now();
    let pvk = prepare_verifying_key(&vk);
    let t_prep = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let ok = verify_proof(&pvk, &proof, &inputs).map_err(|e| anyhow!("verify_proof: {e}"))?;
    eprintln!(
        "{rp:?} partition {k} of {partitions}: {} public inputs ({t_inputs:.2}s), prepare_verifying_key {t_prep:.2}s, \
         verdict of StackedCompound::generate_public_inputs(Some({k})) + bellperson verify_proof: {ok} ({:.2}s)",
        inputs.len(),
        t2.elapsed().as_secs_f64()
    );
    Ok(if ok {
        Verdict::Valid
    } else {
        Verdict::Invalid(format!("bellperson verify_proof rejects partition {k}'s proof"))
    })
}
