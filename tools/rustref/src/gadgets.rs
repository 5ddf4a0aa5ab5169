//! Gadget-level golden cases: SHA-256 (bellperson), Poseidon (neptune v11 with Filecoin's
//! constants) and one SDR label (storage-proofs-porep create_label_circuit).

use anyhow::{bail, Result};
use bellperson::gadgets::{
    boolean::{AllocatedBit, Boolean},
    num::AllocatedNum,
    sha256::{sha256, sha256_compression_function},
    uint32::UInt32,
};
use bellpepper_core::{ConstraintSystem, SynthesisError};
use blstrs::Scalar as Fr;
use ff::PrimeField;
use filecoin_hashers::{
    POSEIDON_CONSTANTS_11, POSEIDON_CONSTANTS_2, POSEIDON_CONSTANTS_4, POSEIDON_CONSTANTS_8,
};
use neptune::{poseidon::Poseidon, poseidon::PoseidonConstants, Arity};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use storage_proofs_core::{gadgets::uint64::UInt64, util::bytes_into_boolean_vec_be};
use storage_proofs_porep::stacked::create_label_circuit;

use crate::stream::Stream;

pub const SHA256_IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

pub const CREATE_LABEL_LAYER: u32 = 3;
pub const CREATE_LABEL_NODE: u64 = 22;

/// A gadget case with its inputs already drawn from the stream.
#[derive(Clone, Debug)]
pub enum GadgetCase {
    Sha256Block(Vec<bool>),
    Sha256Full512(Vec<bool>),
    Poseidon(usize, Vec<Fr>),
    CreateLabel { id: [u8; 32], parents14: Vec<[u8; 32]> },
}

pub fn is_gadget_case(name: &str) -> bool {
    matches!(
        name,
        "sha256_block"
            | "sha256_full_512"
            | "poseidon_2"
            | "poseidon_4"
            | "poseidon_8"
            | "poseidon_11"
            | "create_label"
    )
}

impl GadgetCase {
    pub fn draw(name: &str) -> Result<Self> {
        let mut s = Stream::for_case(name);
        Ok(match name {
            "sha256_block" => GadgetCase::Sha256Block(s.bits(512)),
            "sha256_full_512" => GadgetCase::Sha256Full512(s.bits(512)),
            "poseidon_2" | "poseidon_4" | "poseidon_8" | "poseidon_11" => {
                let arity: usize = name["poseidon_".len()..].parse()?;
                GadgetCase::Poseidon(arity, (0..arity).map(|_| s.fr()).collect())
            }
            "create_label" => {
                let id = s.fr_bytes();
                let parents14 = (0..14).map(|_| s.fr_bytes()).collect();
                GadgetCase::CreateLabel { id, parents14 }
            }
            _ => bail!("unknown gadget case {name}"),
        })
    }

    pub fn description(&self) -> String {
        match self {
            GadgetCase::Sha256Block(_) => "Draws: 512 bits (64 bytes, bit i = byte[i/8]>>(i%8)&1). Allocation: bit i (i=0..511, in order) as AllocatedBit::alloc then Boolean::from (one boolean row each). Then bellperson gadgets::sha256::sha256_compression_function(cs, bits, IV) with IV = the eight standard SHA-256 words as UInt32::constant; the input bits are consumed big-endian per 32-bit word (as upstream test_full_block). Upstream count: 25,840 + 512 allocation rows.".into(),
            GadgetCase::Sha256Full512(_) => "Draws: 512 bits (64 bytes, bit i = byte[i/8]>>(i%8)&1). Allocation: bit i (i=0..511) as AllocatedBit::alloc then Boolean::from. Then bellperson gadgets::sha256::sha256(cs, bits) (padding adds a constant second block), as upstream test_full_hash. Message byte j has bits[8j] as its MSB. Upstream count: 44,874 + 512 allocation rows.".into(),
            GadgetCase::Poseidon(a, _) => format!("Draws: {a} field elements (next-field-element rule). Allocation: each as AllocatedNum::alloc in draw order (no rows). Then neptune 11.0.0 circuit::poseidon_hash(cs, nums, &filecoin_hashers::POSEIDON_CONSTANTS_{a}) (Standard strength, HashType::MerkleTree, domain tag 2^{a}-1)."),
            GadgetCase::CreateLabel { .. } => format!("Mirrors storage-proofs-porep test_create_label with stream inputs and without the graph. Draws: id = next field element (32 LE bytes, byte31 &= 0x3f); then 14 parent labels p[0..14] (each next field element bytes) standing for 6 DRG + 8 expander parents. The 37 parent slots are p[0..14] ++ p[0..14] ++ p[0..9]. Allocation order (as upstream): for slot 0..36, bytes_into_boolean_vec_be(slot bytes, 32) = 256 AllocatedBits, bit k = (byte[k/8] >> (7 - k%8)) & 1 (MSB first per byte); then the same for the 32 id bytes. layer = UInt32::constant({CREATE_LABEL_LAYER}), node = UInt64::constant({CREATE_LABEL_NODE}). Then create_label_circuit(cs, id_bits, parents_bits, layer, node). extra.label = output value (LE hex), checked against the native label sha256(id || layer u32 BE || node u64 BE || 20 zero bytes || 37 parents) with byte31 &= 0x3f."),
        }
    }

    /// Synthesises into any CS; returns the case's extra values.
    pub fn synthesize<CS: ConstraintSystem<Fr>>(
        &self,
        cs: &mut CS,
    ) -> Result<Map<String, Value>, SynthesisError> {
        let mut extra = Map::new();
        match self {
            GadgetCase::Sha256Block(bits) | GadgetCase::Sha256Full512(bits) => {
                let input = alloc_bits(cs, bits)?;
                let out_bits: Vec<Boolean> = match self {
                    GadgetCase::Sha256Block(_) => {
                        let iv: Vec<UInt32> =
                            SHA256_IV.iter().map(|&v| UInt32::constant(v)).collect();
                        sha256_compression_function(cs.namespace(|| "sha256"), &input, &iv)?
                            .into_iter()
                            .flat_map(|w| w.into_bits_be())
                            .collect()
                    }
                    _ => sha256(cs.namespace(|| "sha256"), &input)?,
                };
                let out = bits_be_to_bytes(&out_bits);
                let message = bits_to_msg_bytes(bits);
                let native = match self {
                    GadgetCase::Sha256Block(_) => {
                        let mut st = SHA256_IV;
                        compress(&mut st, &message);
                        st.iter().flat_map(|w| w.to_be_bytes()).collect::<Vec<u8>>()
                    }
                    _ => Sha256::digest(&message).to_vec(),
                };
                if let Some(out) = out {
                    assert_eq!(out, native, "circuit SHA-256 != native");
                }
                extra.insert("message_hex".into(), json!(hex::encode(&message)));
                extra.insert("output_hex".into(), json!(hex::encode(&native)));
            }
            GadgetCase::Poseidon(arity, vals) => {
                let nums = vals
                    .iter()
                    .enumerate()
                    .map(|(i, v)| AllocatedNum::alloc(cs.namespace(|| format!("x{i}")), || Ok(*v)))
                    .collect::<Result<Vec<_>, _>>()?;
                let (out, native) = match arity {
                    2 => poseidon_pair(cs, nums, vals, &POSEIDON_CONSTANTS_2)?,
                    4 => poseidon_pair(cs, nums, vals, &POSEIDON_CONSTANTS_4)?,
                    8 => poseidon_pair(cs, nums, vals, &POSEIDON_CONSTANTS_8)?,
                    11 => poseidon_pair(cs, nums, vals, &POSEIDON_CONSTANTS_11)?,
                    _ => unreachable!(),
                };
                if let Some(out) = out {
                    assert_eq!(out, native, "circuit Poseidon != native");
                }
                extra.insert("arity".into(), json!(arity));
                extra.insert(
                    "preimage".into(),
                    json!(vals.iter().map(crate::recorder::fr_hex).collect::<Vec<_>>()),
                );
                extra.insert("hash".into(), json!(crate::recorder::fr_hex(&native)));
            }
            GadgetCase::CreateLabel { id, parents14 } => {
                let mut slots: Vec<[u8; 32]> = parents14.clone();
                slots.extend_from_slice(parents14);
                slots.extend_from_slice(&parents14[..9]);
                let parents_bits = slots
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        bytes_into_boolean_vec_be(
                            cs.namespace(|| format!("parents {i}")),
                            Some(&p[..]),
                            32,
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let id_bits =
                    bytes_into_boolean_vec_be(cs.namespace(|| "id"), Some(&id[..]), 32)?;
                let out = create_label_circuit(
                    cs.namespace(|| "create_label"),
                    &id_bits,
                    parents_bits,
                    UInt32::constant(CREATE_LABEL_LAYER),
                    UInt64::constant(CREATE_LABEL_NODE),
                )?;
                let mut h = Sha256::new();
                h.update(id);
                h.update(CREATE_LABEL_LAYER.to_be_bytes());
                h.update(CREATE_LABEL_NODE.to_be_bytes());
                h.update([0u8; 20]);
                for p in &slots {
                    h.update(p);
                }
                let mut native: [u8; 32] = h.finalize().into();
                native[31] &= 0x3f;
                if let Some(v) = out.get_value() {
                    assert_eq!(v.to_repr(), native, "circuit label != native");
                }
                extra.insert("id".into(), json!(hex::encode(id)));
                extra.insert(
                    "parents14".into(),
                    json!(parents14.iter().map(hex::encode).collect::<Vec<_>>()),
                );
                extra.insert("layer".into(), json!(CREATE_LABEL_LAYER));
                extra.insert("node".into(), json!(CREATE_LABEL_NODE));
                extra.insert("label".into(), json!(hex::encode(native)));
            }
        }
        Ok(extra)
    }
}

fn poseidon_pair<CS: ConstraintSystem<Fr>, A: Arity<Fr>>(
    cs: &mut CS,
    nums: Vec<AllocatedNum<Fr>>,
    vals: &[Fr],
    constants: &PoseidonConstants<Fr, A>,
) -> Result<(Option<Fr>, Fr), SynthesisError> {
    let out = neptune::circuit::poseidon_hash(cs.namespace(|| "poseidon"), nums, constants)?;
    let native = Poseidon::new_with_preimage(vals, constants).hash();
    Ok((out.get_value(), native))
}

fn alloc_bits<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    bits: &[bool],
) -> Result<Vec<Boolean>, SynthesisError> {
    bits.iter()
        .enumerate()
        .map(|(i, b)| {
            Ok(Boolean::from(AllocatedBit::alloc(
                cs.namespace(|| format!("input bit {i}")),
                Some(*b),
            )?))
        })
        .collect()
}

/// Message bytes as the SHA gadget sees them: bits[8j] is the MSB of byte j.
fn bits_to_msg_bytes(bits: &[bool]) -> Vec<u8> {
    bits.chunks(8)
        .map(|c| c.iter().fold(0u8, |acc, &b| (acc << 1) | b as u8))
        .collect()
}

fn bits_be_to_bytes(bits: &[Boolean]) -> Option<Vec<u8>> {
    let vals: Option<Vec<bool>> = bits.iter().map(|b| b.get_value()).collect();
    vals.map(|v| bits_to_msg_bytes(&v))
}

/// Plain SHA-256 compression of one 64-byte block (native cross-check only).
fn compress(state: &mut [u32; 8], block: &[u8]) {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut w = [0u32; 64];
    for i in 0..16 {
        w[i] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
    }
    for i in 16..64 {
        let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
        let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16]
            .wrapping_add(s0)
            .wrapping_add(w[i - 7])
            .wrapping_add(s1);
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    for i in 0..64 {
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 = h
            .wrapping_add(s1)
            .wrapping_add(ch)
            .wrapping_add(K[i])
            .wrapping_add(w[i]);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = s0.wrapping_add(maj);
        h = g;
        g = f;
        f = e;
        e = d.wrapping_add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.wrapping_add(t2);
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *s = s.wrapping_add(v);
    }
}
