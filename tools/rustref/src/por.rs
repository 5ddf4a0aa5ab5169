//! PoR golden cases mirroring storage-proofs-core/tests/por_circuit.rs (public root,
//! PoRCompound::circuit), with leaves and the challenge drawn from the stream.


use anyhow::{bail, ensure, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::{
    poseidon::PoseidonHasher, sha256::Sha256Hasher, Domain, Hasher, PoseidonArity,
};
use generic_array::typenum::{Unsigned, U0, U2, U4, U8};
use merkletree::store::VecStore;
use serde_json::{json, Map, Value};
use storage_proofs_core::{
    compound_proof::CompoundProof,
    gadgets::por::{PoRCircuit, PoRCompound},
    merkle::{get_base_tree_count, MerkleProofTrait, MerkleTreeTrait, MerkleTreeWrapper},
    por::{self, PoR},
    proof::ProofScheme,
};

use crate::stream::Stream;

type VS<H> = VecStore<<H as Hasher>::Domain>;
pub type TreeBase<H, A> = MerkleTreeWrapper<H, VS<H>, A, U0, U0>;
pub type TreeSub<H, A, B> = MerkleTreeWrapper<H, VS<H>, A, B, U0>;
pub type TreeTop<H, A, B, C> = MerkleTreeWrapper<H, VS<H>, A, B, C>;

pub const POR_CASES: &[&str] = &[
    "por_sha256_base_2",
    "por_poseidon_base_2",
    "por_poseidon_base_4",
    "por_poseidon_base_8",
    "por_poseidon_sub_8_2",
    "por_poseidon_sub_8_8",
    "por_poseidon_top_8_8_2",
    "por_poseidon_top_8_4_2",
];

/// A built PoR circuit with its public inputs as upstream generates them.
type PorResult<Tree> = Result<PorBuilt<PoRCircuit<Tree>>>;

pub struct PorBuilt<C> {
    pub circuit: C,
    pub generated_inputs: Vec<Fr>,
    pub extra: Map<String, Value>,
}

pub fn base<H: Hasher, A: PoseidonArity>(leaves: &[H::Domain]) -> Result<TreeBase<H, A>> {
    TreeBase::<H, A>::try_from_iter(leaves.iter().map(|v| Ok(*v)))
}

fn sub<H: Hasher, A: PoseidonArity, B: PoseidonArity>(
    leaves: &[H::Domain],
) -> Result<TreeSub<H, A, B>> {
    let per = leaves.len() / B::to_usize();
    let trees = leaves
        .chunks(per)
        .map(base::<H, A>)
        .collect::<Result<Vec<_>>>()?;
    TreeSub::<H, A, B>::from_trees(trees)
}

fn top<H: Hasher, A: PoseidonArity, B: PoseidonArity, C: PoseidonArity>(
    leaves: &[H::Domain],
) -> Result<TreeTop<H, A, B, C>> {
    let per = leaves.len() / C::to_usize();
    let trees = leaves
        .chunks(per)
        .map(sub::<H, A, B>)
        .collect::<Result<Vec<_>>>()?;
    TreeTop::<H, A, B, C>::from_sub_trees(trees)
}

fn draw_leaves<Tree: MerkleTreeTrait>(
    s: &mut Stream,
) -> Result<Vec<<Tree::Hasher as Hasher>::Domain>> {
    let leaves = 64 * get_base_tree_count::<Tree>();
    (0..leaves)
        .map(|_| <Tree::Hasher as Hasher>::Domain::try_from_bytes(&s.fr_bytes()))
        .collect()
}

fn prove<Tree: 'static + MerkleTreeTrait>(
    tree: Tree,
    leaves: &[<Tree::Hasher as Hasher>::Domain],
    s: &mut Stream,
) -> Result<PorBuilt<PoRCircuit<Tree>>> {
    let n = leaves.len();
    let challenge = (s.u64() % n as u64) as usize;
    let pub_params = por::PublicParams {
        leaves: n,
        private: false,
    };
    let pub_inputs = por::PublicInputs::<<Tree::Hasher as Hasher>::Domain> {
        challenge,
        commitment: Some(tree.root()),
    };
    let priv_inputs = por::PrivateInputs::<Tree>::new(leaves[challenge], &tree);
    let proof = PoR::<Tree>::prove(&pub_params, &pub_inputs, &priv_inputs)?;
    ensure!(
        PoR::<Tree>::verify(&pub_params, &pub_inputs, &proof)?,
        "vanilla PoR proof does not verify"
    );
    ensure!(proof.proof.verify(), "merkle proof does not verify");
    let circuit = PoRCompound::<Tree>::circuit(&pub_inputs, None, &proof, &pub_params, None)?;
    let generated_inputs =
        PoRCompound::<Tree>::generate_public_inputs(&pub_inputs, &pub_params, None)?;
    let mut extra = Map::new();
    extra.insert("leaves".into(), json!(n));
    extra.insert("challenge".into(), json!(challenge));
    extra.insert("root".into(), json!(hex::encode(tree.root().into_bytes())));
    extra.insert(
        "leaf".into(),
        json!(hex::encode(leaves[challenge].into_bytes())),
    );
    extra.insert(
        "arities".into(),
        json!([
            Tree::Arity::to_usize(),
            Tree::SubTreeArity::to_usize(),
            Tree::TopTreeArity::to_usize()
        ]),
    );
    Ok(PorBuilt {
        circuit,
        generated_inputs,
        extra,
    })
}

fn run_base<H: 'static + Hasher, A: 'static + PoseidonArity>(
    s: &mut Stream,
) -> Result<PorBuilt<PoRCircuit<TreeBase<H, A>>>> {
    let leaves = draw_leaves::<TreeBase<H, A>>(s)?;
    let tree = base::<H, A>(&leaves)?;
    prove(tree, &leaves, s)
}

fn run_sub<H: 'static + Hasher, A: 'static + PoseidonArity, B: 'static + PoseidonArity>(
    s: &mut Stream,
) -> Result<PorBuilt<PoRCircuit<TreeSub<H, A, B>>>> {
    let leaves = draw_leaves::<TreeSub<H, A, B>>(s)?;
    let tree = sub::<H, A, B>(&leaves)?;
    prove(tree, &leaves, s)
}

fn run_top<
    H: 'static + Hasher,
    A: 'static + PoseidonArity,
    B: 'static + PoseidonArity,
    C: 'static + PoseidonArity,
>(
    s: &mut Stream,
) -> PorResult<TreeTop<H, A, B, C>> {
    let leaves = draw_leaves::<TreeTop<H, A, B, C>>(s)?;
    let tree = top::<H, A, B, C>(&leaves)?;
    prove(tree, &leaves, s)
}

/// Every PoR circuit type used by the cases.
pub enum PorAny {
    Sha2(PoRCircuit<TreeBase<Sha256Hasher, U2>>),
    Pos2(PoRCircuit<TreeBase<PoseidonHasher, U2>>),
    Pos4(PoRCircuit<TreeBase<PoseidonHasher, U4>>),
    Pos8(PoRCircuit<TreeBase<PoseidonHasher, U8>>),
    Sub82(PoRCircuit<TreeSub<PoseidonHasher, U8, U2>>),
    Sub88(PoRCircuit<TreeSub<PoseidonHasher, U8, U8>>),
    Top882(PoRCircuit<TreeTop<PoseidonHasher, U8, U8, U2>>),
    Top842(PoRCircuit<TreeTop<PoseidonHasher, U8, U4, U2>>),
}

impl bellpepper_core::Circuit<Fr> for PorAny {
    fn synthesize<CS: bellpepper_core::ConstraintSystem<Fr>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellpepper_core::SynthesisError> {
        match self {
            PorAny::Sha2(c) => c.synthesize(cs),
            PorAny::Pos2(c) => c.synthesize(cs),
            PorAny::Pos4(c) => c.synthesize(cs),
            PorAny::Pos8(c) => c.synthesize(cs),
            PorAny::Sub82(c) => c.synthesize(cs),
            PorAny::Sub88(c) => c.synthesize(cs),
            PorAny::Top882(c) => c.synthesize(cs),
            PorAny::Top842(c) => c.synthesize(cs),
        }
    }
}

fn erase<C>(b: PorBuilt<C>, f: fn(C) -> PorAny) -> PorBuilt<PorAny> {
    PorBuilt {
        circuit: f(b.circuit),
        generated_inputs: b.generated_inputs,
        extra: b.extra,
    }
}

pub fn build(case: &str) -> Result<(PorBuilt<PorAny>, String)> {
    let mut s = Stream::for_case(case);
    let (built, shape) = match case {
        "por_sha256_base_2" => (
            erase(run_base::<Sha256Hasher, U2>(&mut s)?, PorAny::Sha2),
            "binary SHA-254 tree (Sha256Hasher, arity 2), 64 leaves",
        ),
        "por_poseidon_base_2" => (
            erase(run_base::<PoseidonHasher, U2>(&mut s)?, PorAny::Pos2),
            "Poseidon base tree arity 2, 64 leaves",
        ),
        "por_poseidon_base_4" => (
            erase(run_base::<PoseidonHasher, U4>(&mut s)?, PorAny::Pos4),
            "Poseidon base tree arity 4, 64 leaves",
        ),
        "por_poseidon_base_8" => (
            erase(run_base::<PoseidonHasher, U8>(&mut s)?, PorAny::Pos8),
            "Poseidon base tree arity 8, 64 leaves",
        ),
        "por_poseidon_sub_8_2" => (
            erase(run_sub::<PoseidonHasher, U8, U2>(&mut s)?, PorAny::Sub82),
            "Poseidon tree 8-2-0: 2 base trees (arity 8) of 64 leaves each under an arity-2 sub level, 128 leaves",
        ),
        "por_poseidon_sub_8_8" => (
            erase(run_sub::<PoseidonHasher, U8, U8>(&mut s)?, PorAny::Sub88),
            "Poseidon tree 8-8-0: 8 base trees of 64 leaves under an arity-8 sub level, 512 leaves",
        ),
        "por_poseidon_top_8_8_2" => (
            erase(run_top::<PoseidonHasher, U8, U8, U2>(&mut s)?, PorAny::Top882),
            "Poseidon tree 8-8-2: 2 sub trees x 8 base trees of 64 leaves, 1024 leaves",
        ),
        "por_poseidon_top_8_4_2" => (
            erase(run_top::<PoseidonHasher, U8, U4, U2>(&mut s)?, PorAny::Top842),
            "Poseidon tree 8-4-2: 2 sub trees x 4 base trees of 64 leaves, 512 leaves",
        ),
        _ => bail!("unknown PoR case {case}"),
    };
    let desc = format!(
        "PoR circuit as storage-proofs-core tests/por_circuit.rs, public root: {shape}. Draws: \
         every leaf in order (leaf i = next field element's 32 LE bytes, read as the tree's Domain), \
         then challenge = next u64 mod leaves. Base trees are built from consecutive leaf slices \
         (MerkleTreeWrapper<_, VecStore, ..>::try_from_iter), sub trees with from_trees, top trees with \
         from_sub_trees, exactly as generate_tree does. The vanilla proof is PoR::prove; the circuit is \
         PoRCompound::circuit(pub_inputs{{challenge, commitment: Some(root)}}, (), proof, pp{{leaves, private: false}}, None). \
         Inputs: ONE, packed challenge bits, root."
    );
    Ok((built, desc))
}
