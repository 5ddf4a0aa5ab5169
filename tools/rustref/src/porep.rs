//! The real PoRep circuit (StackedCompound::circuit per partition) from an api-level C1 JSON
//! (filecoin_proofs_api::seal::SealCommitPhase1Output), as seal_commit_phase2 builds it.

use std::convert::TryInto;

use anyhow::{bail, Context, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::{poseidon::PoseidonHasher, sha256::Sha256Hasher, Domain};
use filecoin_proofs::{
    as_safe_commitment, parameters::setup_params, PoRepConfig, SectorShapeBase, SectorShapeSub8,
    SectorShapeTop2,
};
use filecoin_proofs_api::{seal::SealCommitPhase1Output, RegisteredSealProof};
use storage_proofs_core::{
    compound_proof::{self, CompoundProof},
    merkle::MerkleTreeTrait,
};
use storage_proofs_porep::stacked::{
    self, StackedCircuit, StackedCompound, StackedDrg, Tau,
};

pub struct PorepPartition<C> {
    pub circuit: C,
    pub public_inputs: Vec<Fr>,
}

pub enum PorepAny {
    Base(StackedCircuit<SectorShapeBase, Sha256Hasher>),
    Sub8(StackedCircuit<SectorShapeSub8, Sha256Hasher>),
    Top2(StackedCircuit<SectorShapeTop2, Sha256Hasher>),
}

impl bellpepper_core::Circuit<Fr> for PorepAny {
    fn synthesize<CS: bellpepper_core::ConstraintSystem<Fr>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellpepper_core::SynthesisError> {
        match self {
            PorepAny::Base(c) => c.synthesize(cs),
            PorepAny::Sub8(c) => c.synthesize(cs),
            PorepAny::Top2(c) => c.synthesize(cs),
        }
    }
}

pub fn read_c1(path: &std::path::Path) -> Result<SealCommitPhase1Output> {
    let bytes = std::fs::read(path).with_context(|| format!("read {}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("parse C1 JSON {}", path.display()))
}

fn build_tree<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>>(
    c1: SealCommitPhase1Output,
    config: &PoRepConfig,
    wrap: fn(StackedCircuit<Tree, Sha256Hasher>) -> PorepAny,
) -> Result<Vec<PorepPartition<PorepAny>>> {
    let proofs: Vec<Vec<stacked::Proof<Tree, Sha256Hasher>>> = c1.vanilla_proofs.try_into()?;
    let comm_r = as_safe_commitment::<<PoseidonHasher as filecoin_hashers::Hasher>::Domain, _>(
        &c1.comm_r, "comm_r",
    )?;
    let comm_d = <Sha256Hasher as filecoin_hashers::Hasher>::Domain::try_from_bytes(&c1.comm_d)?;
    let pub_inputs = stacked::PublicInputs {
        replica_id: c1.replica_id,
        tau: Some(Tau { comm_d, comm_r }),
        k: None,
        seed: Some(c1.seed),
    };
    let csp = compound_proof::SetupParams {
        vanilla_params: setup_params(config)?,
        partitions: Some(usize::from(config.partitions)),
        priority: false,
    };
    let cpp = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<
        StackedDrg<'_, Tree, Sha256Hasher>,
        _,
    >>::setup(&csp)?;
    let mut out = Vec::new();
    for (k, vp) in proofs.iter().enumerate() {
        let circuit = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<
            StackedDrg<'_, Tree, Sha256Hasher>,
            _,
        >>::circuit(&pub_inputs, (), vp, &cpp.vanilla_params, Some(k))?;
        let public_inputs = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<
            StackedDrg<'_, Tree, Sha256Hasher>,
            _,
        >>::generate_public_inputs(&pub_inputs, &cpp.vanilla_params, Some(k))?;
        out.push(PorepPartition {
            circuit: wrap(circuit),
            public_inputs,
        });
    }
    Ok(out)
}

/// All partitions' circuits and public inputs, plus the registered proof.
pub fn build(c1: SealCommitPhase1Output) -> Result<(RegisteredSealProof, Vec<PorepPartition<PorepAny>>)> {
    let rp = c1.registered_proof;
    let config = rp.as_v1_config();
    let size = u64::from(rp.sector_size());
    let parts = match size {
        2048 | 8_388_608 | 536_870_912 => build_tree::<SectorShapeBase>(c1, &config, PorepAny::Base)?,
        34_359_738_368 => build_tree::<SectorShapeSub8>(c1, &config, PorepAny::Sub8)?,
        68_719_476_736 => build_tree::<SectorShapeTop2>(c1, &config, PorepAny::Top2)?,
        _ => bail!("unsupported sector size {size}"),
    };
    Ok((rp, parts))
}
