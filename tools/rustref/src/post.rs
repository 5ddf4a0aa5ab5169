//! WindowPoSt / WinningPoSt goldens: seals 2 KiB sectors with filecoin-proofs-api, makes the
//! vanilla proofs Curio sends (generate_single_vanilla_proof, bincode), and rebuilds the real
//! FallbackPoStCircuit of one partition from those bytes, as filecoin-proofs'
//! generate_single_window_post_with_vanilla / generate_winning_post_with_vanilla do.

use std::fs;
use std::path::Path;

use anyhow::{anyhow, ensure, Context, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::{poseidon::PoseidonHasher, Domain, Hasher};
use filecoin_proofs::{
    as_safe_commitment, parameters::window_post_setup_params,
    parameters::winning_post_setup_params, partition_vanilla_proofs,
    single_partition_vanilla_proofs, FallbackPoStSectorProof, PoStConfig, PoStType,
    SectorShapeBase,
};
use filecoin_proofs_api::{
    post::{
        generate_fallback_sector_challenges, generate_single_vanilla_proof,
        generate_winning_post_sector_challenge,
    },
    PrivateReplicaInfo, RegisteredPoStProof, RegisteredSealProof, SectorId,
};
use serde_json::{json, Map, Value};
use storage_proofs_core::{compound_proof::CompoundProof, proof::ProofScheme};
use storage_proofs_post::fallback::{
    self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, PublicSector,
};

use crate::b64;
use crate::seal::{make_prover_id, seal_keep, MINER_ID, SEAL_DATA_LABEL, TICKET};
use crate::stream::{stream_prefix, Stream};

pub type Tree = SectorShapeBase;
pub type PostCircuit = FallbackPoStCircuit<Tree>;

/// Label of the fixed PoSt randomness: the first 32 bytes of stream(label), byte31 &= 0x3f.
pub const RANDOMNESS_LABEL: &str = "cuzk-post-randomness-v1";
pub const POST_SECTORS: [u64; 2] = [1, 2];

pub fn randomness() -> [u8; 32] {
    Stream::new(RANDOMNESS_LABEL).fr_bytes()
}

/// Curio's (go-state-types abi) registered PoSt number for a proofs-api registered proof.
pub fn abi_number(rp: RegisteredPoStProof) -> u64 {
    use RegisteredPoStProof::*;
    match rp {
        StackedDrgWinning2KiBV1 => 0,
        StackedDrgWinning8MiBV1 => 1,
        StackedDrgWinning512MiBV1 => 2,
        StackedDrgWinning32GiBV1 => 3,
        StackedDrgWinning64GiBV1 => 4,
        StackedDrgWindow2KiBV1 => 5,
        StackedDrgWindow8MiBV1 => 6,
        StackedDrgWindow512MiBV1 => 7,
        StackedDrgWindow32GiBV1 => 8,
        StackedDrgWindow64GiBV1 => 9,
        StackedDrgWindow2KiBV1_2 => 10,
        StackedDrgWindow8MiBV1_2 => 11,
        StackedDrgWindow512MiBV1_2 => 12,
        StackedDrgWindow32GiBV1_2 => 13,
        StackedDrgWindow64GiBV1_2 => 14,
    }
}

fn api_version_str(c: &PoStConfig) -> String {
    format!("{}", c.api_version)
}

fn dhex<D: Domain>(d: &D) -> String {
    hex::encode(d.into_bytes())
}

/// Seals sectors 1 and 2 (2 KiB, the harness's fixed seal data, ticket and miner) and writes
/// window.json and winning.json (+ the plain Curio-form arrays) into `out`.
pub fn make_vanilla(out: &Path, tmp: &Path) -> Result<()> {
    fs::create_dir_all(out)?;
    let seal_rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let unpadded = u64::from(seal_rp.sector_size()) * 127 / 128;
    let data = stream_prefix(SEAL_DATA_LABEL, unpadded as usize);
    let work = tempfile::tempdir_in(tmp)?;
    let kept = POST_SECTORS
        .iter()
        .map(|&n| seal_keep(seal_rp, &data, n, work.path()))
        .collect::<Result<Vec<_>>>()?;
    let prover_id = make_prover_id(MINER_ID);
    let rand = randomness();

    for (rp, file) in [
        (RegisteredPoStProof::StackedDrgWindow2KiBV1_2, "window"),
        (RegisteredPoStProof::StackedDrgWinning2KiBV1, "winning"),
    ] {
        let cfg = rp.as_v1_config();
        let all_ids: Vec<SectorId> = kept.iter().map(|k| SectorId::from(k.sector)).collect();
        let (chosen, winning_pick) = if cfg.typ == PoStType::Winning {
            let picks = generate_winning_post_sector_challenge(rp, &rand, all_ids.len() as u64, prover_id)?;
            ensure!(picks.len() == 1, "winning: {} sector challenges", picks.len());
            (vec![&kept[picks[0] as usize]], Some(picks[0]))
        } else {
            (kept.iter().collect::<Vec<_>>(), None)
        };
        let ids: Vec<SectorId> = chosen.iter().map(|k| SectorId::from(k.sector)).collect();
        let challenges = generate_fallback_sector_challenges(rp, &rand, &ids, prover_id)?;
        let mut vanilla = Vec::new();
        let mut sectors = Vec::new();
        for k in &chosen {
            let id = SectorId::from(k.sector);
            let replica = PrivateReplicaInfo::new(rp, k.comm_r, k.cache.clone(), k.sealed.clone());
            let ch = &challenges[&id];
            let bytes = generate_single_vanilla_proof(rp, id, &replica, ch)?;
            let p: FallbackPoStSectorProof<Tree> = bincode::deserialize(&bytes)?;
            ensure!(bincode::serialize(&p)? == bytes, "bincode round trip differs");
            let sp = &p.vanilla_proof.sectors;
            ensure!(sp.len() == 1, "one SectorProof per sector proof");
            sectors.push(json!({
                "sector_id": k.sector,
                "comm_r": hex::encode(k.comm_r),
                "comm_d": hex::encode(k.comm_d),
                "comm_c": dhex(&sp[0].comm_c),
                "comm_r_last": dhex(&sp[0].comm_r_last),
                "challenges": ch,
                "vanilla_proof_bytes": bytes.len(),
            }));
            vanilla.push(b64::encode(&bytes));
        }
        let description = format!(
            "{file} PoSt vanilla proofs made by filecoin-proofs-api 19.0.0 generate_single_vanilla_proof \
             (registered proof {rp:?}, Curio/abi number {}) for 2 KiB sectors sealed by rustref \
             (StackedDrg2KiBV1_1, seal data = first 2032 bytes of stream(\"{SEAL_DATA_LABEL}\"), ticket 32x0x01, miner {MINER_ID}, \
             sector numbers {:?}; sector 1 is the sector of seal/2KiB). Randomness = first 32 bytes of stream(\"{RANDOMNESS_LABEL}\") \
             with byte31 &= 0x3f. Challenges from generate_fallback_sector_challenges{}. vanilla_proofs[i] = standard base64 of \
             bincode(FallbackPoStSectorProof<LCTree<Poseidon,8,0,0>>) for sectors[i], exactly the bytes Curio sends.",
            abi_number(rp),
            POST_SECTORS,
            if winning_pick.is_some() {
                "; the winning sector is sector_set[generate_winning_post_sector_challenge(rand, sector_set_len = 2)]"
            } else {
                ""
            },
        );
        let v = json!({
            "kind": file,
            "description": description,
            "registered_proof": abi_number(rp),
            "registered_proof_api": format!("{rp:?}"),
            "sector_size": u64::from(cfg.sector_size),
            "api_version": api_version_str(&cfg),
            "challenge_count": cfg.challenge_count,
            "sector_count": cfg.sector_count,
            "randomness": hex::encode(rand),
            "miner_id": MINER_ID,
            "prover_id": hex::encode(prover_id),
            "ticket": hex::encode(TICKET),
            "sector_set": POST_SECTORS,
            "winning_sector_index": winning_pick,
            "partition_index": 0,
            "sectors": sectors,
            "vanilla_proofs": vanilla,
        });
        let path = out.join(format!("{file}.json"));
        fs::write(&path, serde_json::to_string_pretty(&v)? + "\n")?;
        fs::write(out.join(format!("{file}.vanilla.json")), serde_json::to_string(&v["vanilla_proofs"])? + "\n")?;
        eprintln!("wrote {} ({} sectors)", path.display(), chosen.len());
    }
    Ok(())
}

/// The real circuit of partition 0 of a window.json / winning.json, its public inputs as
/// upstream generates them, and descriptive extras.
pub struct Built {
    pub circuit: PostCircuit,
    pub public_inputs: Vec<Fr>,
    pub extra: Map<String, Value>,
    pub description: String,
    pub expected: Option<(usize, usize, &'static str)>,
    pub cfg: PoStConfig,
    pub rp: RegisteredPoStProof,
    pub randomness: [u8; 32],
    pub prover_id: [u8; 32],
    pub vanilla_bytes: Vec<Vec<u8>>,
}

/// Every registered PoSt proof of filecoin-proofs-api 19, in Curio/abi number order (0..=14).
pub const ALL_POST: [RegisteredPoStProof; 15] = {
    use RegisteredPoStProof::*;
    [
        StackedDrgWinning2KiBV1,
        StackedDrgWinning8MiBV1,
        StackedDrgWinning512MiBV1,
        StackedDrgWinning32GiBV1,
        StackedDrgWinning64GiBV1,
        StackedDrgWindow2KiBV1,
        StackedDrgWindow8MiBV1,
        StackedDrgWindow512MiBV1,
        StackedDrgWindow32GiBV1,
        StackedDrgWindow64GiBV1,
        StackedDrgWindow2KiBV1_2,
        StackedDrgWindow8MiBV1_2,
        StackedDrgWindow512MiBV1_2,
        StackedDrgWindow32GiBV1_2,
        StackedDrgWindow64GiBV1_2,
    ]
};

pub fn registered_post_from_name(name: &str) -> Result<RegisteredPoStProof> {
    ALL_POST
        .into_iter()
        .find(|rp| format!("{rp:?}") == name)
        .ok_or_else(|| anyhow!("unknown registered PoSt proof {name}"))
}

/// The proofs-api registered PoSt proof of a Curio/abi number (the inverse of `abi_number`).
pub fn registered_post_from_abi(n: u64) -> Result<RegisteredPoStProof> {
    ALL_POST
        .into_iter()
        .find(|rp| abi_number(*rp) == n)
        .ok_or_else(|| anyhow!("unknown registered PoSt proof {n} (want 0-4 winning, 5-9 window V1, 10-14 window V1_1)"))
}

fn h32(v: &Value, key: &str) -> Result<[u8; 32]> {
    let s = v[key].as_str().ok_or_else(|| anyhow!("missing {key}"))?;
    hex::decode(s)?.try_into().map_err(|_| anyhow!("{key}: want 32 bytes"))
}

pub fn build(path: &Path) -> Result<Built> {
    let v: Value = serde_json::from_slice(&fs::read(path).with_context(|| format!("read {}", path.display()))?)?;
    let rp = registered_post_from_name(v["registered_proof_api"].as_str().unwrap_or(""))?;
    ensure!(u64::from(rp.sector_size()) == 2048, "only 2 KiB PoSt goldens are built");
    let cfg = rp.as_v1_config();
    let randomness = h32(&v, "randomness")?;
    let prover_id = h32(&v, "prover_id")?;
    let vanilla_bytes = v["vanilla_proofs"]
        .as_array()
        .ok_or_else(|| anyhow!("missing vanilla_proofs"))?
        .iter()
        .map(|s| b64::decode(s.as_str().unwrap_or("")))
        .collect::<Result<Vec<_>>>()?;
    let proofs = vanilla_bytes
        .iter()
        .map(|b| bincode::deserialize::<FallbackPoStSectorProof<Tree>>(b).map_err(Into::into))
        .collect::<Result<Vec<_>>>()?;
    let pub_sectors: Vec<PublicSector<<PoseidonHasher as Hasher>::Domain>> = proofs
        .iter()
        .map(|p| PublicSector { id: p.sector_id, comm_r: p.comm_r })
        .collect();
    let randomness_safe = as_safe_commitment::<<PoseidonHasher as Hasher>::Domain, _>(&randomness, "randomness")?;
    let prover_id_safe = as_safe_commitment::<<PoseidonHasher as Hasher>::Domain, _>(&prover_id, "prover_id")?;

    let (pub_params, pub_inputs, partition_proof, expected, how) = match cfg.typ {
        PoStType::Window => {
            let pp = FallbackPoSt::<Tree>::setup(&window_post_setup_params(&cfg))?;
            let pi = fallback::PublicInputs {
                randomness: randomness_safe,
                prover_id: prover_id_safe,
                sectors: pub_sectors,
                k: Some(0),
            };
            let part = single_partition_vanilla_proofs(&cfg, &pp, &pi, &proofs)?;
            (pp, pi, part, Some((21_866, 23, "derived (REFERENCES-POST-SNAP.md 4: 2 x (313 + 10 x 1,062)), not stated upstream")),
             "generate_single_window_post_with_vanilla: PublicInputs{randomness, prover_id, sectors = the given proofs' (sector_id, comm_r), k: Some(0)}, \
              window_post_setup_params(as_v1_config()), single_partition_vanilla_proofs (pads to sector_count by repeating the last sector)")
        }
        PoStType::Winning => {
            let pp = FallbackPoSt::<Tree>::setup(&winning_post_setup_params(&cfg)?)?;
            let pi = fallback::PublicInputs {
                randomness: randomness_safe,
                prover_id: prover_id_safe,
                sectors: pub_sectors,
                k: None,
            };
            let mut parts = partition_vanilla_proofs(&cfg, &pp, &pi, 1, &proofs)?;
            ensure!(parts.len() == 1, "winning: one partition");
            (pp, pi, parts.remove(0), Some((90_750, 133, "derived (REFERENCES-POST-SNAP.md 4: 66 x (313 + 1,062)), not stated upstream")),
             "generate_winning_post_with_vanilla: PublicInputs{randomness, prover_id, sectors = [(sector_id, comm_r)], k: None}, \
              winning_post_setup_params(as_v1_config()) (66 one-challenge sectors), partition_vanilla_proofs (unrolls the 66 inclusion proofs)")
        }
    };
    let circuit = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::circuit(
        &pub_inputs,
        Default::default(),
        &partition_proof,
        &pub_params,
        Some(0),
    )?;
    // The verifier's public inputs: verify_winning_post lists the one sector sector_count (66)
    // times, so that unrolled sector i gets challenge index i; window lists the sectors once.
    let verifier_inputs = fallback::PublicInputs {
        randomness: pub_inputs.randomness,
        prover_id: pub_inputs.prover_id,
        sectors: if cfg.typ == PoStType::Winning {
            (0..pub_params.sector_count).map(|_| pub_inputs.sectors[0].clone()).collect()
        } else {
            pub_inputs.sectors.clone()
        },
        k: None,
    };
    let public_inputs = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::generate_public_inputs(
        &verifier_inputs,
        &pub_params,
        Some(0),
    )?;
    let blank = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::blank_circuit(&pub_params);
    let mut extra = Map::new();
    extra.insert("blank_circuit_bench_cs".into(), crate::blank_counts(blank)?);
    extra.insert("registered_proof".into(), v["registered_proof"].clone());
    extra.insert("registered_proof_api".into(), json!(format!("{rp:?}")));
    extra.insert("sector_size".into(), json!(u64::from(cfg.sector_size)));
    extra.insert("circuit_sector_count".into(), json!(pub_params.sector_count));
    extra.insert("circuit_challenge_count".into(), json!(pub_params.challenge_count));
    extra.insert("partition".into(), json!(0));
    extra.insert("randomness".into(), json!(hex::encode(randomness)));
    extra.insert("prover_id".into(), json!(hex::encode(prover_id)));
    extra.insert("sector_ids".into(), json!(proofs.iter().map(|p| u64::from(p.sector_id)).collect::<Vec<_>>()));
    extra.insert("comm_rs".into(), json!(proofs.iter().map(|p| dhex(&p.comm_r)).collect::<Vec<_>>()));
    let file = path.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    extra.insert("vanilla_file".into(), json!(format!("testdata/rustref/post/2KiB/{file}")));
    let description = format!(
        "Real storage-proofs-post 19.0.1 FallbackPoStCircuit for partition 0 of post/2KiB/{file} ({rp:?}), built as filecoin-proofs 19.0.1 {how}; \
         then FallbackPoStCompound::circuit(pub_inputs, (), partition_proof, pub_params, Some(0)) as compound_proof::circuit_proofs does. \
         Public inputs checked against FallbackPoStCompound::generate_public_inputs(verifier_inputs, pub_params, Some(0)) where verifier_inputs \
         lists the sectors as verify_window_post / verify_winning_post do (Winning: the one sector repeated 66 times, so unrolled sector i is \
         challenged with challenge index i). No stream draws."
    );
    Ok(Built {
        circuit,
        public_inputs,
        extra,
        description,
        expected,
        cfg,
        rp,
        randomness,
        prover_id,
        vanilla_bytes,
    })
}


/// Part 4 of the PoSt goldens: random bellperson parameters for the 2 KiB WindowPoSt circuit
/// (seeded StdRng over FallbackPoStCompound::blank_circuit), placed in the private parameter
/// cache under the official name, then a real proof through filecoin-proofs-api
/// generate_single_window_post_with_vanilla, verified with verify_window_post (and rejected with
/// a changed comm_r). Writes vk.bin, proof.bin and public.json into `out`.
pub fn outside_proof(vanilla: &Path, out: &Path, seed: u64, tmp: &Path) -> Result<()> {
    use bellperson::groth16::{generate_random_parameters, prepare_verifying_key, verify_proof, Parameters, Proof};
    use blstrs::Bls12;
    use filecoin_proofs_api::{post, PublicReplicaInfo};
    use rand::SeedableRng;
    use std::collections::BTreeMap;
    use std::io::{BufWriter, Write};

    let b = build(vanilla)?;
    ensure!(b.cfg.typ == PoStType::Window, "outside proof is for WindowPoSt");
    let pp = FallbackPoSt::<Tree>::setup(&window_post_setup_params(&b.cfg))?;
    let blank = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::blank_circuit(&pp);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let t0 = std::time::Instant::now();
    let params: Parameters<Bls12> = generate_random_parameters(blank, &mut rng)?;
    eprintln!("window 2KiB params: {} h, {} ic ({:.1}s)", params.h.len(), params.vk.ic.len(), t0.elapsed().as_secs_f64());
    let params_path = b.rp.cache_params_path()?;
    let vk_path = b.rp.cache_verifying_key_path()?;
    ensure!(params_path.starts_with(tmp) && vk_path.starts_with(tmp), "parameter cache is not the private temp dir");
    fs::create_dir_all(params_path.parent().expect("parent"))?;
    let mut w = BufWriter::new(fs::File::create(&params_path)?);
    params.write(&mut w)?;
    w.flush()?;
    drop(w);
    let mut vk_bytes = Vec::new();
    params.vk.write(&mut vk_bytes)?;
    fs::write(&vk_path, &vk_bytes)?;

    let proof = post::generate_single_window_post_with_vanilla(b.rp, &b.randomness, b.prover_id, &b.vanilla_bytes, 0)?;
    ensure!(proof.0.len() == 192, "partition proof is {} bytes", proof.0.len());

    let sectors: Vec<FallbackPoStSectorProof<Tree>> = b
        .vanilla_bytes
        .iter()
        .map(|v| bincode::deserialize(v).map_err(Into::into))
        .collect::<Result<_>>()?;
    let replicas = |flip: bool| -> BTreeMap<SectorId, PublicReplicaInfo> {
        sectors
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut c = s.comm_r.into_bytes();
                if flip && i == 0 {
                    c[0] ^= 1;
                }
                (s.sector_id, PublicReplicaInfo::new(b.rp, c.try_into().expect("32")))
            })
            .collect()
    };
    let ok = post::verify_window_post(&b.randomness, &[(b.rp, &proof.0[..])], &replicas(false), b.prover_id)?;
    ensure!(ok, "verify_window_post rejects the proof");
    let bad = post::verify_window_post(&b.randomness, &[(b.rp, &proof.0[..])], &replicas(true), b.prover_id)?;
    ensure!(!bad, "verify_window_post accepts the proof with comm_r changed");
    // And directly with bellperson, from the public inputs upstream derives.
    let pvk = prepare_verifying_key(&params.vk);
    let p = Proof::<Bls12>::read(&proof.0[..])?;
    ensure!(verify_proof(&pvk, &p, &b.public_inputs)?, "bellperson verify_proof fails");

    fs::create_dir_all(out)?;
    fs::write(out.join("vk.bin"), &vk_bytes)?;
    fs::write(out.join("proof.bin"), &proof.0)?;
    use sha2::Digest;
    let public = json!({
        "description": "2 KiB WindowPoSt Groth16 proof made by rust-fil-proofs (filecoin-proofs-api 19.0.0 generate_single_window_post_with_vanilla, \
                        partition 0, bellperson 0.26 CPU, random r/s from OsRng) over the vanilla proofs of post/2KiB/window.json, with RANDOM \
                        parameters (NOT the Filecoin trusted setup): bellperson generate_random_parameters(FallbackPoStCompound::blank_circuit, \
                        StdRng::seed_from_u64(params_seed)), placed in the parameter cache under the official file name. rustref checked: \
                        filecoin-proofs-api verify_window_post accepts it, rejects it with sectors[0].comm_r's first byte xored with 1, and \
                        bellperson verify_proof accepts it with public_inputs.",
        "files": {
            "vk": "vk.bin (bellperson VerifyingKey::write layout, uncompressed points)",
            "proof": "proof.bin (192 bytes, compressed A||B||C)"
        },
        "registered_proof": abi_number(b.rp),
        "registered_proof_api": format!("{:?}", b.rp),
        "sector_size": 2048,
        "randomness": hex::encode(b.randomness),
        "miner_id": MINER_ID,
        "prover_id": hex::encode(b.prover_id),
        "partition_index": 0,
        "sectors": sectors.iter().map(|s| json!({"sector_id": u64::from(s.sector_id), "comm_r": dhex(&s.comm_r)})).collect::<Vec<_>>(),
        "public_inputs": b.public_inputs.iter().map(crate::recorder::fr_hex).collect::<Vec<_>>(),
        "proof_hex": hex::encode(&proof.0),
        "vk_sha256": hex::encode(sha2::Sha256::digest(&vk_bytes)),
        "params_seed": seed,
        "params_file_name": params_path.file_name().map(|s| s.to_string_lossy().to_string()),
        "vk_file_name": vk_path.file_name().map(|s| s.to_string_lossy().to_string()),
        "vanilla_file": "testdata/rustref/post/2KiB/window.json",
        "checked": {"verify_window_post": true, "verify_window_post_comm_r_changed": false, "bellperson_verify_proof": true},
    });
    fs::write(out.join("public.json"), serde_json::to_string_pretty(&public)? + "\n")?;
    eprintln!("outside window proof verified; wrote {}", out.display());
    Ok(())
}
