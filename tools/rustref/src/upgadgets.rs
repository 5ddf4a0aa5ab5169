//! Gadget-level golden cases for the EmptySectorUpdate / PoSt gadgets, each alone on the shared
//! deterministic stream (label "cuzk-golden/<case>").
//!
//! storage-proofs-update keeps its gadgets crate-private (`pub(crate) mod gadgets`); build.rs
//! compiles the pinned crate's own src/gadgets.rs into this module (see build.rs), so these
//! cases run upstream's code, not a rewrite. `por_no_challenge_input` and `select` are public in
//! storage-proofs-core; Poseidon with the 2^40 tag is neptune's `poseidon_hash` with
//! storage-proofs-update's public `POSEIDON_CONSTANTS_GEN_RANDOMNESS`.

use anyhow::{bail, Result};
use bellpepper_core::{
    boolean::{AllocatedBit, Boolean},
    num::AllocatedNum,
    ConstraintSystem, LinearCombination, SynthesisError, Variable,
};
use blstrs::Scalar as Fr;
use ff::PrimeFieldBits;
use filecoin_hashers::{
    poseidon::PoseidonHasher, sha256::Sha256Hasher, Domain, HashFunction, Hasher,
};
use generic_array::typenum::{U2, U8};
use neptune::poseidon::Poseidon;
use serde_json::{json, Map, Value};
use storage_proofs_core::{
    gadgets::{insertion::select, por::por_no_challenge_input},
    merkle::{MerkleProofTrait, MerkleTreeTrait},
};
use storage_proofs_update::{
    constants::{hs, partition_count, challenge_count, POSEIDON_CONSTANTS_GEN_RANDOMNESS},
    Challenges,
};

use crate::por::{base, TreeBase};
use crate::recorder::fr_hex;
use crate::stream::Stream;

#[allow(dead_code, clippy::all)]
mod upstream {
    include!(concat!(env!("OUT_DIR"), "/storage_proofs_update_gadgets.rs"));
}

pub const UP_GADGET_CASES: &[&str] = &[
    "poseidon_2_gen_randomness",
    "allocated_num_to_allocated_bits",
    "gen_challenge_bits_2KiB",
    "gen_challenge_bits_8MiB",
    "gen_challenge_bits_8MiB_k3",
    "get_challenge_high_bits_2KiB",
    "get_challenge_high_bits_8MiB",
    "label_r_new",
    "por_no_challenge_input_poseidon_8",
    "por_no_challenge_input_sha256_2",
    "apex_por_2KiB",
    "apex_por_16KiB_4x16",
    "apex_por_16KiB_8x8",
    "select_128",
];

const KIB2: usize = 1 << 6;
const KIB16: usize = 1 << 9;
const MIB8: usize = 1 << 18;

/// Counts the rows a gadget adds (upstream tests assert the gadget's own count, without the
/// rows of the inputs' allocation).
struct Counter<'a, CS: ConstraintSystem<Fr>> {
    inner: &'a mut CS,
    rows: usize,
}

impl<CS: ConstraintSystem<Fr>> ConstraintSystem<Fr> for Counter<'_, CS> {
    type Root = Self;
    fn alloc<F, A, AR>(&mut self, a: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inner.alloc(a, f)
    }
    fn alloc_input<F, A, AR>(&mut self, a: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inner.alloc_input(a, f)
    }
    fn enforce<A, AR, LA, LB, LC>(&mut self, a: A, la: LA, lb: LB, lc: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        self.rows += 1;
        self.inner.enforce(a, la, lb, lc)
    }
    fn push_namespace<NR, N>(&mut self, n: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        self.inner.get_root().push_namespace(n)
    }
    fn pop_namespace(&mut self) {
        self.inner.get_root().pop_namespace()
    }
    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}

fn counted<CS: ConstraintSystem<Fr>, T>(
    cs: &mut CS,
    f: impl FnOnce(&mut Counter<'_, CS>) -> Result<T, SynthesisError>,
) -> Result<(T, usize), SynthesisError> {
    let mut c = Counter { inner: cs, rows: 0 };
    let v = f(&mut c)?;
    Ok((v, c.rows))
}

/// A case with its inputs drawn.
pub struct UpGadgetCase {
    name: String,
    draw: Draw,
}

enum Draw {
    Poseidon2([Fr; 2]),
    NumBits(Fr),
    GenChallengeBits { nodes: usize, comm_r_new: Fr, k: usize },
    HighBits { nodes: usize, c: u64, h_index: usize },
    LabelRNew([Fr; 3]),
    PorPoseidon8 { leaves: Vec<Fr>, challenge: usize },
    PorSha2 { leaves: Vec<[u8; 32]>, challenge: usize },
    Apex { nodes: usize, partitions: usize, apex_per: usize, leaves: Vec<[u8; 32]>, k: usize },
    Select { vals: Vec<Fr>, index: usize },
}

pub fn is_up_gadget_case(name: &str) -> bool {
    UP_GADGET_CASES.contains(&name)
}

/// Upstream's stated count for the gadget alone (rows added by the gadget call), if any.
fn upstream_gadget_rows(name: &str) -> Option<(usize, &'static str)> {
    Some(match name {
        "gen_challenge_bits_2KiB" | "gen_challenge_bits_8MiB" | "gen_challenge_bits_8MiB_k3" => {
            (568, "storage-proofs-update gadgets.rs test_gen_challenge_bits_gadget (568)")
        }
        "apex_por_2KiB" => (317_654, "storage-proofs-update gadgets.rs test_apex_por_gadget_small_sector_sizes (2 KiB: 317,654)"),
        "apex_por_16KiB_4x16" => (771_448, "storage-proofs-update gadgets.rs test_apex_por_gadget_16kib_4_8_partitions (4 x 16: 771,448)"),
        "apex_por_16KiB_8x8" => (453_797, "storage-proofs-update gadgets.rs test_apex_por_gadget_16kib_4_8_partitions (8 x 8: 453,797)"),
        _ => return None,
    })
}

fn sha_tree(leaves: &[[u8; 32]]) -> Vec<Vec<<Sha256Hasher as Hasher>::Domain>> {
    let row0: Vec<_> = leaves
        .iter()
        .map(|b| <Sha256Hasher as Hasher>::Domain::try_from_bytes(b).expect("32 bytes"))
        .collect();
    let mut tree = vec![row0];
    while tree.last().expect("row").len() > 1 {
        let row = tree
            .last()
            .expect("row")
            .chunks(2)
            .map(|s| <Sha256Hasher as Hasher>::Function::hash2(&s[0], &s[1]))
            .collect();
        tree.push(row);
    }
    tree
}

fn alloc_num<CS: ConstraintSystem<Fr>>(cs: &mut CS, name: &str, v: Fr) -> Result<AllocatedNum<Fr>, SynthesisError> {
    AllocatedNum::alloc(cs.namespace(|| name.to_string()), || Ok(v))
}

fn alloc_bits_le<CS: ConstraintSystem<Fr>>(cs: &mut CS, name: &str, v: u64, n: usize) -> Result<Vec<AllocatedBit>, SynthesisError> {
    (0..n)
        .map(|i| AllocatedBit::alloc(cs.namespace(|| format!("{name}_{i}")), Some((v >> i) & 1 == 1)))
        .collect()
}

fn d2fr<D: Domain>(d: &D) -> Fr {
    (*d).into()
}

impl UpGadgetCase {
    pub fn draw(name: &str) -> Result<Self> {
        let mut s = Stream::for_case(name);
        let draw = match name {
            "poseidon_2_gen_randomness" => Draw::Poseidon2([s.fr(), s.fr()]),
            "allocated_num_to_allocated_bits" => Draw::NumBits(s.fr()),
            "gen_challenge_bits_2KiB" | "gen_challenge_bits_8MiB" | "gen_challenge_bits_8MiB_k3" => {
                let nodes = if name.ends_with("2KiB") { KIB2 } else { MIB8 };
                let comm_r_new = s.fr();
                let drawn = (s.u64() % partition_count(nodes) as u64) as usize;
                // The _k3 case fixes the last 8 MiB partition (the drawn k of the 8 MiB case is 0).
                let k = if name.ends_with("_k3") { 3 } else { drawn };
                Draw::GenChallengeBits { nodes, comm_r_new, k }
            }
            "get_challenge_high_bits_2KiB" | "get_challenge_high_bits_8MiB" => {
                let nodes = if name.ends_with("2KiB") { KIB2 } else { MIB8 };
                let c = s.u64() % nodes as u64;
                let h_index = (s.u64() % 6) as usize;
                Draw::HighBits { nodes, c, h_index }
            }
            "label_r_new" => Draw::LabelRNew([s.fr(), s.fr(), s.fr()]),
            "por_no_challenge_input_poseidon_8" => {
                let leaves = (0..64).map(|_| s.fr()).collect();
                Draw::PorPoseidon8 { leaves, challenge: (s.u64() % 64) as usize }
            }
            "por_no_challenge_input_sha256_2" => {
                let leaves = (0..8).map(|_| s.fr_bytes()).collect();
                Draw::PorSha2 { leaves, challenge: (s.u64() % 8) as usize }
            }
            "apex_por_2KiB" | "apex_por_16KiB_4x16" | "apex_por_16KiB_8x8" => {
                let (nodes, partitions, apex_per) = match name {
                    "apex_por_2KiB" => (KIB2, 1, 8),
                    "apex_por_16KiB_4x16" => (KIB16, 4, 16),
                    _ => (KIB16, 8, 8),
                };
                let leaves = (0..nodes).map(|_| s.fr_bytes()).collect();
                let k = (s.u64() % partitions as u64) as usize;
                Draw::Apex { nodes, partitions, apex_per, leaves, k }
            }
            "select_128" => {
                let vals = (0..128).map(|_| s.fr()).collect();
                Draw::Select { vals, index: (s.u64() % 128) as usize }
            }
            _ => bail!("unknown update gadget case {name}"),
        };
        Ok(UpGadgetCase { name: name.into(), draw })
    }

    pub fn description(&self) -> String {
        let fe = "next field element (32 bytes, byte31 &= 0x3f, LE)";
        match &self.draw {
            Draw::Poseidon2(_) => format!("Draws: a, b = two {fe}s. Allocation: a, b as AllocatedNum::alloc (no rows). Then neptune 11.0.0 circuit::poseidon_hash(cs, [a, b], &storage_proofs_update::constants::POSEIDON_CONSTANTS_GEN_RANDOMNESS) (arity 2, Strength::Standard, HashType::Custom(CType::Arbitrary(1)): domain tag 2^40). extra.hash is checked against neptune's native Poseidon with the same constants."),
            Draw::NumBits(_) => format!("Draws: x = {fe}. Allocation: x as AllocatedNum::alloc. Then storage-proofs-update gadgets::allocated_num_to_allocated_bits(cs, &x) (crate-private; upstream source compiled in): field_into_allocated_bits_le (255 AllocatedBits, one boolean row each, allocated from the MSB down as bellperson does) then one row (sum 2^i bit_i) * ONE = x. extra.bits_le = the 255 bits LSB first as a 0/1 string."),
            Draw::GenChallengeBits { nodes, .. } => format!("Mirrors storage-proofs-update test_gen_challenge_bits_gadget for sector_nodes = {nodes}. Draws: comm_r_new = {fe}; k = next u64 mod partition_count({nodes}) ({} partitions; case *_k3: that u64 is still drawn but k = 3). Allocation: comm_r_new (AllocatedNum), k (AllocatedNum of Fr::from(k)), then allocated_num_to_allocated_bits(k) keeping the low log2(partition_count) bits; then gen_challenge_bits(cs, &comm_r_new, &k, challenge_count = {}, bits_per_challenge = log2(nodes) - log2(partitions)). extra.challenges = each generated challenge with k's bits appended above (= storage_proofs_update::Challenges::new(nodes, comm_r_new, k), checked). extra.gadget_rows = rows added by gen_challenge_bits alone (upstream asserts 568).", partition_count(*nodes), challenge_count(*nodes)),
            Draw::HighBits { nodes, .. } => format!("sector_nodes = {nodes}, hs = {:?}. Draws: c = next u64 mod {nodes}; h_index = next u64 mod 6. Allocation: c's log2(nodes) bits LSB first as AllocatedBit (one row each), then h_select's 6 bits (bit i = (i == h_index)) as AllocatedBit. Then gadgets::get_challenge_high_bits(cs, &c_bits, &h_select_bits, &hs). extra.high = c >> (log2(nodes) - hs[h_index]), checked.", hs(*nodes)),
            Draw::LabelRNew(_) => format!("Draws: r_old, d_new, rho = three {fe}s. Allocation: the three as AllocatedNum in that order. Then gadgets::label_r_new(cs, &r_old, &d_new, &rho). extra.label_r_new = r_old + d_new * rho, checked."),
            Draw::PorPoseidon8 { .. } => format!("TreeR base shape of a 2 KiB sector: Poseidon arity-8 tree over 64 leaves (2 levels). Draws: 64 leaves (each a {fe}), then challenge = next u64 mod 64. Tree built with merkletree (MerkleTreeWrapper<PoseidonHasher, VecStore, U8>), proof = tree.gen_proof(challenge). Allocation: challenge bits (6, LSB first, AllocatedBit), leaf (AllocatedNum), path siblings level by level (7 per level, AllocatedNum), root (AllocatedNum). Then storage_proofs_core::gadgets::por::por_no_challenge_input::<that tree>(cs, bits, leaf, path, root)."),
            Draw::PorSha2 { .. } => format!("TreeD shape below the apex leaves of a 2 KiB sector: SHA-256 binary tree over 8 leaves (3 levels). Draws: 8 leaves (each the next field element's 32 bytes), then challenge = next u64 mod 8. Tree built with merkletree (MerkleTreeWrapper<Sha256Hasher, VecStore, U2>). Allocation: challenge bits (3, LSB first, AllocatedBit), leaf, path siblings (1 per level), root. Then por_no_challenge_input::<that tree>."),
            Draw::Apex { nodes, partitions, apex_per, .. } => format!("Mirrors storage-proofs-update test_apex_por_gadget (sector_nodes = {nodes}, partition_count = {partitions}, apex_leafs_per_partition = {apex_per}) with stream leaves. Draws: {nodes} TreeD leaves (each the next field element's 32 bytes), then k = next u64 mod {partitions}. TreeD is built natively with Sha256Function::hash2 (filecoin-hashers, top two bits cleared); comm_d = its root; the apex-leafs row is row log2(nodes) - log2(partitions) - log2(apex_per). Allocation (as upstream): comm_d (AllocatedNum), partition bits of k (LSB first, AllocatedBit), partition k's {apex_per} apex leaves (AllocatedNum), partition path siblings (one per partition bit, AllocatedNum). Then gadgets::apex_por(cs, apex_leafs, partition_bits, partition_path, comm_d): the SHA-256 apex tree (hash2_circuit per node, row by row, left to right) and por_no_challenge_input over the partition tree. extra.gadget_rows = rows of apex_por alone."),
            Draw::Select { .. } => format!("Draws: 128 values (each a {fe}), then index = next u64 mod 128. Allocation: the 128 values (AllocatedNum), then index's 7 bits LSB first (AllocatedBit, as Boolean::Is). Then storage_proofs_core::gadgets::insertion::select(cs, &values, &bits) (the circuit's 128-way apex-leaf select). extra.selected = values[index], checked."),
        }
    }

    /// Synthesises the case; returns its extra values.
    pub fn synthesize<CS: ConstraintSystem<Fr>>(&self, cs: &mut CS) -> Result<Map<String, Value>, SynthesisError> {
        let mut extra = Map::new();
        let mut gadget_rows = None;
        match &self.draw {
            Draw::Poseidon2(v) => {
                let a = alloc_num(cs, "a", v[0])?;
                let b = alloc_num(cs, "b", v[1])?;
                let out = neptune::circuit::poseidon_hash(cs.namespace(|| "poseidon"), vec![a, b], &POSEIDON_CONSTANTS_GEN_RANDOMNESS)?;
                let native = Poseidon::new_with_preimage(&v[..], &POSEIDON_CONSTANTS_GEN_RANDOMNESS).hash();
                check(out.get_value() == Some(native), "poseidon gen-randomness")?;
                extra.insert("preimage".into(), json!([fr_hex(&v[0]), fr_hex(&v[1])]));
                extra.insert("domain_tag".into(), json!(fr_hex(&Fr::from(1u64 << 40))));
                extra.insert("hash".into(), json!(fr_hex(&native)));
            }
            Draw::NumBits(x) => {
                let n = alloc_num(cs, "x", *x)?;
                let (bits, rows) = counted(cs, |c| upstream::allocated_num_to_allocated_bits(c.namespace(|| "bits"), &n))?;
                gadget_rows = Some(rows);
                let want: Vec<bool> = x.to_le_bits().into_iter().take(255).collect();
                let got: Vec<bool> = bits.iter().map(|b| b.get_value().unwrap_or(false)).collect();
                check(got == want, "bits")?;
                extra.insert("value".into(), json!(fr_hex(x)));
                extra.insert("bits_le".into(), json!(got.iter().map(|b| if *b { '1' } else { '0' }).collect::<String>()));
            }
            Draw::GenChallengeBits { nodes, comm_r_new, k } => {
                let nodes = *nodes;
                let parts = partition_count(nodes);
                let pbits_len = parts.trailing_zeros() as usize;
                let rand_bits = nodes.trailing_zeros() as usize - pbits_len;
                let crn = alloc_num(cs, "comm_r_new", *comm_r_new)?;
                let kn = alloc_num(cs, "k", Fr::from(*k as u64))?;
                let pbits: Vec<AllocatedBit> = upstream::allocated_num_to_allocated_bits(cs.namespace(|| "partition_bits"), &kn)?
                    .into_iter()
                    .take(pbits_len)
                    .collect();
                let (gen, rows) = counted(cs, |c| {
                    upstream::gen_challenge_bits(c.namespace(|| "gen_challenge_bits"), &crn, &kn, challenge_count(nodes), rand_bits)
                })?;
                gadget_rows = Some(rows);
                let native: Vec<u32> = Challenges::new(nodes, (*comm_r_new).into(), *k).collect();
                let got: Vec<u32> = gen
                    .iter()
                    .map(|bits| {
                        bits.iter().chain(pbits.iter()).enumerate().fold(0u32, |acc, (i, b)| {
                            acc | ((b.get_value().unwrap_or(false) as u32) << i)
                        })
                    })
                    .collect();
                check(got == native, "challenges")?;
                extra.insert("sector_nodes".into(), json!(nodes));
                extra.insert("comm_r_new".into(), json!(fr_hex(comm_r_new)));
                extra.insert("k".into(), json!(k));
                extra.insert("challenge_count".into(), json!(challenge_count(nodes)));
                extra.insert("bits_per_challenge".into(), json!(rand_bits));
                extra.insert("challenges".into(), json!(native));
            }
            Draw::HighBits { nodes, c, h_index } => {
                let bit_len = nodes.trailing_zeros() as usize;
                let hs = hs(*nodes);
                let c_bits = alloc_bits_le(cs, "c", *c, bit_len)?;
                let sel = alloc_bits_le(cs, "h_select", 1u64 << h_index, 6)?;
                let (out, rows) = counted(cs, |cc| upstream::get_challenge_high_bits(cc.namespace(|| "high"), &c_bits, &sel, &hs))?;
                gadget_rows = Some(rows);
                let high = c >> (bit_len - hs[*h_index]);
                check(out.get_value() == Some(Fr::from(high)), "high bits")?;
                extra.insert("sector_nodes".into(), json!(nodes));
                extra.insert("hs".into(), json!(hs));
                extra.insert("c".into(), json!(c));
                extra.insert("h_index".into(), json!(h_index));
                extra.insert("high".into(), json!(high));
            }
            Draw::LabelRNew(v) => {
                let a = alloc_num(cs, "r_old", v[0])?;
                let b = alloc_num(cs, "d_new", v[1])?;
                let r = alloc_num(cs, "rho", v[2])?;
                let (out, rows) = counted(cs, |c| upstream::label_r_new(c.namespace(|| "label_r_new"), &a, &b, &r))?;
                gadget_rows = Some(rows);
                let native = v[0] + v[1] * v[2];
                check(out.get_value() == Some(native), "label_r_new")?;
                extra.insert("r_old".into(), json!(fr_hex(&v[0])));
                extra.insert("d_new".into(), json!(fr_hex(&v[1])));
                extra.insert("rho".into(), json!(fr_hex(&v[2])));
                extra.insert("label_r_new".into(), json!(fr_hex(&native)));
            }
            Draw::PorPoseidon8 { leaves, challenge } => {
                let doms: Vec<_> = leaves.iter().map(|v| <PoseidonHasher as Hasher>::Domain::from(*v)).collect();
                let tree = base::<PoseidonHasher, U8>(&doms).map_err(syn)?;
                let rows = por_case::<TreeBase<PoseidonHasher, U8>, _>(cs, &tree, *challenge, 6, &mut extra)?;
                gadget_rows = Some(rows);
            }
            Draw::PorSha2 { leaves, challenge } => {
                let doms: Vec<_> = leaves
                    .iter()
                    .map(|b| <Sha256Hasher as Hasher>::Domain::try_from_bytes(b).expect("32"))
                    .collect();
                let tree = base::<Sha256Hasher, U2>(&doms).map_err(syn)?;
                let rows = por_case::<TreeBase<Sha256Hasher, U2>, _>(cs, &tree, *challenge, 3, &mut extra)?;
                gadget_rows = Some(rows);
            }
            Draw::Apex { nodes, partitions, apex_per, leaves, k } => {
                let tree = sha_tree(leaves);
                let height = nodes.trailing_zeros() as usize;
                let pbits_len = partitions.trailing_zeros() as usize;
                let apex_h = apex_per.trailing_zeros() as usize;
                let roots_row = height - pbits_len;
                let leafs_row = roots_row - apex_h;
                let comm_d = tree[height][0];
                let cd = alloc_num(cs, "comm_d", d2fr(&comm_d))?;
                let pbits = alloc_bits_le(cs, "partition_bit", *k as u64, pbits_len)?;
                let apex: Vec<_> = tree[leafs_row][k * apex_per..(k + 1) * apex_per]
                    .iter()
                    .enumerate()
                    .map(|(i, l)| alloc_num(cs, &format!("apex_leaf_{i}"), d2fr(l)))
                    .collect::<Result<_, _>>()?;
                let mut path_hex = Vec::new();
                let path: Vec<Vec<AllocatedNum<Fr>>> = (0..pbits_len)
                    .map(|i| {
                        let cur = k >> i;
                        let sib = cur ^ 1;
                        let v = tree[roots_row + i][sib];
                        path_hex.push(hex::encode(v.into_bytes()));
                        alloc_num(cs, &format!("partition_path_{i}"), d2fr(&v)).map(|n| vec![n])
                    })
                    .collect::<Result<_, _>>()?;
                let ((), rows) = counted(cs, |c| upstream::apex_por(c.namespace(|| "apex_por"), apex, pbits, path, cd))?;
                gadget_rows = Some(rows);
                extra.insert("sector_nodes".into(), json!(nodes));
                extra.insert("partitions".into(), json!(partitions));
                extra.insert("apex_leafs_per_partition".into(), json!(apex_per));
                extra.insert("k".into(), json!(k));
                extra.insert("comm_d".into(), json!(hex::encode(comm_d.into_bytes())));
                extra.insert("apex_root".into(), json!(hex::encode(tree[roots_row][*k].into_bytes())));
                extra.insert("partition_path".into(), json!(path_hex));
            }
            Draw::Select { vals, index } => {
                let nums: Vec<_> = vals
                    .iter()
                    .enumerate()
                    .map(|(i, v)| alloc_num(cs, &format!("v{i}"), *v))
                    .collect::<Result<_, _>>()?;
                let bits: Vec<Boolean> = alloc_bits_le(cs, "index", *index as u64, 7)?.into_iter().map(Boolean::from).collect();
                let (out, rows) = counted(cs, |c| select(c.namespace(|| "select"), &nums, &bits))?;
                gadget_rows = Some(rows);
                check(out.get_value() == Some(vals[*index]), "select")?;
                extra.insert("index".into(), json!(index));
                extra.insert("selected".into(), json!(fr_hex(&vals[*index])));
            }
        }
        if let Some(rows) = gadget_rows {
            extra.insert("gadget_rows".into(), json!(rows));
            if let Some((want, src)) = upstream_gadget_rows(&self.name) {
                if rows != want {
                    eprintln!("{}: gadget rows {rows}, upstream states {want} ({src})", self.name);
                    return Err(SynthesisError::Unsatisfiable);
                }
                extra.insert("gadget_rows_source".into(), json!(src));
            }
        }
        Ok(extra)
    }
}

fn syn(e: anyhow::Error) -> SynthesisError {
    eprintln!("tree: {e:#}");
    SynthesisError::Unsatisfiable
}

fn check(ok: bool, what: &str) -> Result<(), SynthesisError> {
    if ok {
        Ok(())
    } else {
        eprintln!("native cross-check failed: {what}");
        Err(SynthesisError::Unsatisfiable)
    }
}

fn por_case<Tree: MerkleTreeTrait, CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    tree: &Tree,
    challenge: usize,
    nbits: usize,
    extra: &mut Map<String, Value>,
) -> Result<usize, SynthesisError>
where
    <Tree::Hasher as Hasher>::Domain: Into<Fr>,
{
    let proof = tree.gen_proof(challenge).map_err(syn)?;
    check(proof.verify(), "merkle proof")?;
    let bits = alloc_bits_le(cs, "challenge_bit", challenge as u64, nbits)?;
    let leaf = alloc_num(cs, "leaf", proof.leaf().into())?;
    let mut path_hex = Vec::new();
    let path: Vec<Vec<AllocatedNum<Fr>>> = proof
        .path()
        .iter()
        .enumerate()
        .map(|(h, (sibs, _))| {
            sibs.iter()
                .enumerate()
                .map(|(j, s)| {
                    path_hex.push(hex::encode(s.into_bytes()));
                    alloc_num(cs, &format!("path_{h}_{j}"), (*s).into())
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<_, _>>()?;
    let root = alloc_num(cs, "root", tree.root().into())?;
    let ((), rows) = counted(cs, |c| por_no_challenge_input::<Tree, _>(c.namespace(|| "por"), bits, leaf, path, root))?;
    extra.insert("leaves".into(), json!(1usize << nbits));
    extra.insert("challenge".into(), json!(challenge));
    extra.insert("leaf".into(), json!(hex::encode(proof.leaf().into_bytes())));
    extra.insert("root".into(), json!(hex::encode(tree.root().into_bytes())));
    extra.insert("path".into(), json!(path_hex));
    Ok(rows)
}

