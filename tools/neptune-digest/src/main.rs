//! Prints digests of neptune v11.0.0's Poseidon constants (Filecoin settings) for
//! the arities Filecoin uses. Its output, wrapped with a "_note" and an "arities"
//! key, is ../neptune_v11_constants.json, which hash's tests compare against.
//! Run: CARGO_TARGET_DIR=/tmp/neptune-digest cargo run --release (keeps build output out of
//! the repository; Go ignores testdata).

use blstrs::Scalar as Fr;
use ff::PrimeField;
use generic_array::typenum::{U11, U16, U2, U24, U36, U4, U8};
use neptune::poseidon::PoseidonConstants;
use neptune::Arity;
use sha2::{Digest, Sha256};

fn digest<'a, I: IntoIterator<Item = &'a Fr>>(it: I) -> (usize, String) {
    let mut h = Sha256::new();
    let mut n = 0;
    for x in it {
        h.update(x.to_repr());
        n += 1;
    }
    (n, hex::encode(h.finalize()))
}

fn dump<A: Arity<Fr>>(arity: usize) {
    let p: PoseidonConstants<Fr, A> = PoseidonConstants::new();
    let rc = digest(p.round_constants.as_ref().unwrap().iter());
    let crc = digest(p.compressed_round_constants.iter());
    let mds = digest(p.mds_matrices.m.iter().flatten());
    let pre = digest(p.pre_sparse_matrix.iter().flatten());
    let sp = digest(
        p.sparse_matrixes
            .iter()
            .flat_map(|s| s.w_hat.iter().chain(s.v_rest.iter())),
    );
    println!(
        "  \"{}\": {{\"full_rounds\": {}, \"partial_rounds\": {}, \"domain_tag_le_hex\": \"{}\", \
\"round_constants\": [{}, \"{}\"], \"compressed_round_constants\": [{}, \"{}\"], \
\"mds\": [{}, \"{}\"], \"pre_sparse_matrix\": [{}, \"{}\"], \"sparse_matrices\": [{}, \"{}\"], \
\"compressed_last_le_hex\": \"{}\", \"pre_sparse_01_le_hex\": \"{}\", \"sparse0_what1_le_hex\": \"{}\"}},",
        arity, p.full_rounds, p.partial_rounds, hex::encode(p.domain_tag.to_repr()),
        rc.0, rc.1, crc.0, crc.1, mds.0, mds.1, pre.0, pre.1, sp.0, sp.1,
        hex::encode(p.compressed_round_constants[p.compressed_round_constants.len() - 1].to_repr()),
        hex::encode(p.pre_sparse_matrix[0][1].to_repr()),
        hex::encode(p.sparse_matrixes[0].w_hat[1].to_repr()),
    );
}

fn main() {
    println!("{{");
    dump::<U2>(2);
    dump::<U4>(4);
    dump::<U8>(8);
    dump::<U11>(11);
    dump::<U16>(16);
    dump::<U24>(24);
    dump::<U36>(36);
    println!("}}");
}
