//! The four upstream stacked-circuit test shapes (storage-proofs-porep tests/stacked_circuit.rs),
//! with replica_id, data and seed drawn from the stream instead of XorShiftRng.

use std::path::Path;

use anyhow::{bail, ensure, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::{poseidon::PoseidonHasher, sha256::Sha256Hasher, Domain, Hasher};
use generic_array::typenum::{Unsigned, U0, U2, U4, U8};
use serde_json::{json, Map, Value};
use storage_proofs_core::{
    api_version::ApiVersion,
    compound_proof::CompoundProof,
    drgraph::BASE_DEGREE,
    merkle::{get_base_tree_count, DiskTree, MerkleTreeTrait},
    proof::ProofScheme,
    test_helper::setup_replica,
};
use storage_proofs_porep::stacked::{
    Challenges, PrivateInputs, PublicInputs, SetupParams, StackedCircuit, StackedCompound,
    StackedDrg, TemporaryAuxCache, EXP_DEGREE,
};

use crate::stream::Stream;

pub const STACKED_CASES: &[&str] = &[
    "stacked_2_0_0",
    "stacked_8_0_0",
    "stacked_8_4_0",
    "stacked_8_4_2",
];

pub const POREP_ID: [u8; 32] = [44; 32];
pub const LAYERS: usize = 2;

pub struct StackedBuilt<C> {
    pub circuit: C,
    pub generated_inputs: Vec<Fr>,
    pub vanilla: String,
    pub extra: Map<String, Value>,
}

fn dhex<D: Domain>(d: &D) -> String {
    hex::encode(d.into_bytes())
}

fn run<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>>(
    case: &str,
    tmp: &Path,
) -> Result<StackedBuilt<StackedCircuit<Tree, Sha256Hasher>>> {
    let nodes = 8 * get_base_tree_count::<Tree>();
    let mut s = Stream::for_case(case);
    let replica_id_fr = s.fr();
    let data: Vec<u8> = (0..nodes).flat_map(|_| s.fr_bytes()).collect();
    let seed: [u8; 32] = s.bytes(32).try_into().expect("32 bytes");
    let replica_id: <PoseidonHasher as Hasher>::Domain = replica_id_fr.into();

    let cache_dir = tempfile::tempdir_in(tmp)?;
    let replica_path = cache_dir.path().join("replica-path");
    let mut mmapped = setup_replica(&data, &replica_path);

    let sp = SetupParams {
        nodes,
        degree: BASE_DEGREE,
        expansion_degree: EXP_DEGREE,
        porep_id: POREP_ID,
        challenges: Challenges::new_interactive(1),
        num_layers: LAYERS,
        api_version: ApiVersion::V1_1_0,
        api_features: vec![],
    };
    let pp = StackedDrg::<Tree, Sha256Hasher>::setup(&sp)?;
    let (labels, _) =
        StackedDrg::<Tree, Sha256Hasher>::replicate_phase1(&pp, &replica_id, cache_dir.path())?;
    let (tau, (p_aux, t_aux)) = StackedDrg::<Tree, Sha256Hasher>::replicate_phase2(
        &pp,
        labels,
        (mmapped.as_mut()).into(),
        None,
        cache_dir.path().to_path_buf(),
        replica_path.clone(),
    )?;
    drop(mmapped);

    let pub_inputs = PublicInputs::<<PoseidonHasher as Hasher>::Domain, _> {
        replica_id,
        seed: Some(seed),
        tau: Some(tau.clone()),
        k: None,
    };
    let t_aux = TemporaryAuxCache::<Tree, Sha256Hasher>::new(&t_aux, replica_path, false)?;
    let priv_inputs = PrivateInputs::<Tree, Sha256Hasher> {
        p_aux: p_aux.clone(),
        t_aux,
    };
    let proofs =
        StackedDrg::<Tree, Sha256Hasher>::prove_all_partitions(&pp, &pub_inputs, &priv_inputs, 1)?;
    ensure!(
        StackedDrg::<Tree, Sha256Hasher>::verify_all_partitions(&pp, &pub_inputs, &proofs)?,
        "vanilla proofs do not verify"
    );
    let circuit = StackedCompound::<Tree, Sha256Hasher>::circuit(
        &pub_inputs,
        (),
        &proofs[0],
        &pp,
        None,
    )?;
    let generated_inputs = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<
        StackedDrg<'_, Tree, Sha256Hasher>,
        _,
    >>::generate_public_inputs(&pub_inputs, &pp, None)?;

    let proofs_json = serde_json::to_value(&proofs)?;
    // challenge = labeling_proofs[0].node (the field is private; read it from the serde form)
    let challenges: Vec<u64> = proofs_json[0]
        .as_array()
        .map(|ps| {
            ps.iter()
                .filter_map(|p| p["labeling_proofs"][0]["node"].as_u64())
                .collect()
        })
        .unwrap_or_default();
    let arities = [
        Tree::Arity::to_usize(),
        Tree::SubTreeArity::to_usize(),
        Tree::TopTreeArity::to_usize(),
    ];
    let vanilla = json!({
        "case": case,
        "nodes": nodes,
        "layers": LAYERS,
        "degree": BASE_DEGREE,
        "expansion_degree": EXP_DEGREE,
        "tree_arities": arities,
        "porep_id": hex::encode(POREP_ID),
        "api_version": "1.1.0",
        "challenges_per_partition": 1,
        "partitions": 1,
        "replica_id": dhex(&replica_id),
        "comm_d": dhex(&tau.comm_d),
        "comm_r": dhex(&tau.comm_r),
        "comm_r_last": dhex(&p_aux.comm_r_last),
        "comm_c": dhex(&p_aux.comm_c),
        "seed": hex::encode(seed),
        "tau": {"comm_d": dhex(&tau.comm_d), "comm_r": dhex(&tau.comm_r)},
        "challenges": challenges,
        "encoding": "domains and commitments as 64-hex of their 32 serialised bytes (LE Fr repr); vanilla_proofs is serde_json of the rfp-level Vec<Vec<stacked::Proof<Tree, Sha256Hasher>>> (partition-major)",
    });
    // Keep serde's own field order for the proofs (a Value would sort the keys).
    let proofs_raw = serde_json::to_string(&proofs)?;
    let mut extra = Map::new();
    for k in ["nodes", "tree_arities", "replica_id", "comm_d", "comm_r", "comm_r_last", "comm_c", "seed", "challenges"] {
        extra.insert(k.into(), vanilla[k].clone());
    }
    extra.insert(
        "vanilla_file".into(),
        json!(format!("testdata/rustref/stacked/{case}.vanilla.json")),
    );
    let meta = serde_json::to_string(&vanilla)?;
    let vanilla = format!(
        "{},\"vanilla_proofs\":{}}}",
        meta.strip_suffix('}').expect("object"),
        proofs_raw
    );
    Ok(StackedBuilt {
        circuit,
        generated_inputs,
        vanilla,
        extra,
    })
}

pub enum StackedAny {
    S200(StackedCircuit<DiskTree<PoseidonHasher, U2, U0, U0>, Sha256Hasher>),
    S800(StackedCircuit<DiskTree<PoseidonHasher, U8, U0, U0>, Sha256Hasher>),
    S840(StackedCircuit<DiskTree<PoseidonHasher, U8, U4, U0>, Sha256Hasher>),
    S842(StackedCircuit<DiskTree<PoseidonHasher, U8, U4, U2>, Sha256Hasher>),
}

impl bellpepper_core::Circuit<Fr> for StackedAny {
    fn synthesize<CS: bellpepper_core::ConstraintSystem<Fr>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellpepper_core::SynthesisError> {
        match self {
            StackedAny::S200(c) => c.synthesize(cs),
            StackedAny::S800(c) => c.synthesize(cs),
            StackedAny::S840(c) => c.synthesize(cs),
            StackedAny::S842(c) => c.synthesize(cs),
        }
    }
}

fn erase<C>(b: StackedBuilt<C>, f: fn(C) -> StackedAny) -> StackedBuilt<StackedAny> {
    StackedBuilt {
        circuit: f(b.circuit),
        generated_inputs: b.generated_inputs,
        vanilla: b.vanilla,
        extra: b.extra,
    }
}

pub fn build(case: &str, tmp: &Path) -> Result<(StackedBuilt<StackedAny>, String)> {
    let built = match case {
        "stacked_2_0_0" => erase(run::<DiskTree<PoseidonHasher, U2, U0, U0>>(case, tmp)?, StackedAny::S200),
        "stacked_8_0_0" => erase(run::<DiskTree<PoseidonHasher, U8, U0, U0>>(case, tmp)?, StackedAny::S800),
        "stacked_8_4_0" => erase(run::<DiskTree<PoseidonHasher, U8, U4, U0>>(case, tmp)?, StackedAny::S840),
        "stacked_8_4_2" => erase(run::<DiskTree<PoseidonHasher, U8, U4, U2>>(case, tmp)?, StackedAny::S842),
        _ => bail!("unknown stacked case {case}"),
    };
    let desc = format!(
        "Whole StackedCircuit as storage-proofs-porep tests/stacked_circuit.rs ({case}): tree arities {:?}, {} nodes, \
         2 layers, DRG degree 6, expansion 8, porep_id [44;32], ApiVersion V1_1_0, Challenges::new_interactive(1). \
         Draws: replica_id = next field element; then data = {} nodes, each the next field element's 32 LE bytes; \
         then seed = next 32 raw bytes. The vanilla prover (replicate_phase1/2, prove_all_partitions with 1 partition) \
         ran as in the test; the circuit is StackedCompound::circuit(pub_inputs{{replica_id, seed, tau, k: None}}, (), \
         proofs[0], pp, None). Everything needed to rebuild it is in extra.vanilla_file.",
        built.extra["tree_arities"], built.extra["nodes"], built.extra["nodes"]
    );
    Ok((built, desc))
}
