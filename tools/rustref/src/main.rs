//! rustref: reference harness that runs the published Rust proving stack (rust-fil-proofs 19,
//! bellperson 0.26, neptune 11) to produce golden files for the Go port. Test instrument only.

mod b64;
mod gadgets;
mod por;
mod porep;
mod post;
mod recorder;
mod seal;
mod snap;
mod stacked;
mod stream;
mod upgadgets;
mod verify_porep;
mod verify_post;
mod verify_post_vanilla;
mod verify_update;

use std::collections::HashMap;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{anyhow, bail, ensure, Context, Result};
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use bellperson::groth16::{
    create_proof_batch, create_proof_batch_in_priority, generate_random_parameters, prepare_verifying_key, verify_proof,
    Parameters, Proof,
};
use blstrs::{Bls12, Scalar as Fr};
use ff::PrimeField;
use rand::SeedableRng;
use serde_json::{json, Map, Value};

use crate::gadgets::GadgetCase;
use crate::recorder::{fr_hex, EvalCS, RecordingCS};

/// Every circuit the harness can synthesise.
pub enum AnyCircuit {
    Gadget(GadgetCase),
    Por(por::PorAny),
    Stacked(stacked::StackedAny),
    Porep(porep::PorepAny),
    UpGadget(upgadgets::UpGadgetCase),
    Post(post::PostCircuit),
    Update(snap::UpdateCircuit),
}

impl Circuit<Fr> for AnyCircuit {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            AnyCircuit::Gadget(g) => g.synthesize(cs).map(|_| ()),
            AnyCircuit::Por(c) => c.synthesize(cs),
            AnyCircuit::Stacked(c) => c.synthesize(cs),
            AnyCircuit::Porep(c) => c.synthesize(cs),
            AnyCircuit::UpGadget(g) => g.synthesize(cs).map(|_| ()),
            AnyCircuit::Post(c) => c.synthesize(cs),
            AnyCircuit::Update(c) => c.synthesize(cs),
        }
    }
}

struct Loaded {
    name: String,
    description: String,
    circuits: Vec<AnyCircuit>,
    /// Upstream-generated public inputs per circuit (without ONE), when the case has them.
    generated_inputs: Option<Vec<Vec<Fr>>>,
    extra: Map<String, Value>,
    vanilla: Option<String>,
    /// (constraints, inputs incl. ONE, source of the number)
    expected: Option<(usize, usize, &'static str)>,
}

const ALL_CASES: &[&str] = &[
    "sha256_block",
    "sha256_full_512",
    "poseidon_2",
    "poseidon_4",
    "poseidon_8",
    "poseidon_11",
    "create_label",
    "por_sha256_base_2",
    "por_poseidon_base_2",
    "por_poseidon_base_4",
    "por_poseidon_base_8",
    "por_poseidon_sub_8_2",
    "por_poseidon_sub_8_8",
    "por_poseidon_top_8_8_2",
    "por_poseidon_top_8_4_2",
    "stacked_2_0_0",
    "stacked_8_0_0",
    "stacked_8_4_0",
    "stacked_8_4_2",
];

/// Expected counts, from testdata/upstream/constraint_counts.json (rows recorded here exclude
/// the prover's trailing input rows, like TestConstraintSystem/MetricCS).
fn expected_counts(case: &str) -> Option<(usize, usize, &'static str)> {
    Some(match case {
        "sha256_block" => (25_840 + 512, 1, "bellperson test_full_block: 25,840 + 512 bit allocations"),
        "sha256_full_512" => (44_874 + 512, 1, "bellperson test_full_hash: 44,874 + 512 bit allocations"),
        "poseidon_2" => (311, 1, "neptune test_poseidon_hash arity 2"),
        "poseidon_4" => (377, 1, "neptune test_poseidon_hash arity 4"),
        "poseidon_8" => (505, 1, "neptune test_poseidon_hash arity 8"),
        "poseidon_11" => (598, 1, "neptune formula arity 11 (= rfp test_hash_single_column_circuit)"),
        "create_label" => (532_025, 1, "rfp test_create_label"),
        "por_sha256_base_2" => (272_295, 3, "rfp test_por_circuit_sha256_base_2"),
        "por_poseidon_base_2" => (1_887, 3, "rfp test_por_circuit_poseidon_base_2"),
        "por_poseidon_base_4" => (1_164, 3, "rfp test_por_circuit_poseidon_base_4"),
        "por_poseidon_base_8" => (1_063, 3, "rfp test_por_circuit_poseidon_base_8"),
        "por_poseidon_sub_8_2" => (1_377, 3, "rfp test_por_circuit_poseidon_sub_8_2"),
        "por_poseidon_sub_8_8" => (1_593, 3, "rfp test_por_circuit_poseidon_sub_8_8"),
        "por_poseidon_top_8_8_2" => (1_907, 3, "rfp test_por_circuit_poseidon_top_8_8_2"),
        "por_poseidon_top_8_4_2" => (1_764, 3, "rfp test_por_circuit_poseidon_top_8_4_2"),
        "stacked_2_0_0" => (1_206_212, 22, "rfp test_stacked_porep_circuit_poseidon_base_2"),
        "stacked_8_0_0" => (1_199_620, 22, "rfp test_stacked_input_circuit_poseidon_base_8"),
        "stacked_8_4_0" => (1_296_576, 22, "rfp test_stacked_input_circuit_poseidon_sub_8_4"),
        "stacked_8_4_2" => (1_346_982, 22, "rfp test_stacked_input_circuit_poseidon_top_8_4_2"),
        _ => return None,
    })
}

fn expected_porep(sector_size: u64) -> Option<(usize, usize, &'static str)> {
    match sector_size {
        2048 => Some((2_687_921, 40, "derived formula (REFERENCES.md 8.3), not stated upstream")),
        8_388_608 => Some((3_844_929, 40, "derived formula (REFERENCES.md 8.3), not stated upstream")),
        _ => None,
    }
}

fn load(case: Option<&str>, c1: Option<&Path>, tmp: &Path) -> Result<Loaded> {
    let name = case.unwrap_or("porep");
    if name == "window_post" || name == "winning_post" {
        let path = c1.ok_or_else(|| anyhow!("case {name} needs --vanilla FILE (post/2KiB/{{window,winning}}.json)"))?;
        let b = post::build(path)?;
        let kind = if b.cfg.typ == filecoin_proofs::PoStType::Window { "window_post" } else { "winning_post" };
        ensure!(kind == name, "{} holds a {kind} vanilla proof, not {name}", path.display());
        return Ok(Loaded {
            name: format!("{name}_2KiB"),
            description: b.description,
            circuits: vec![AnyCircuit::Post(b.circuit)],
            generated_inputs: Some(vec![b.public_inputs]),
            extra: b.extra,
            vanilla: None,
            expected: b.expected,
        });
    }
    if name == "update" {
        let path = c1.ok_or_else(|| anyhow!("case update needs --vanilla FILE (update/<size>/update.json)"))?;
        let b = snap::build(path)?;
        let size_name = if b.sector_size == 2048 { "2KiB" } else { "8MiB" };
        let expected = if b.sector_size == 2048 {
            Some((1_705_039, 5, "storage-proofs-update tests/circuit.rs (2 KiB: 1,705,039)"))
        } else {
            None
        };
        let (circuits, generated): (Vec<_>, Vec<_>) = b
            .parts
            .into_iter()
            .map(|p| (AnyCircuit::Update(p.circuit), p.public_inputs))
            .unzip();
        let _ = b.rp;
        return Ok(Loaded {
            name: format!("update_{size_name}"),
            description: b.description,
            circuits,
            generated_inputs: Some(generated),
            extra: b.extra,
            vanilla: None,
            expected,
        });
    }
    if upgadgets::is_up_gadget_case(name) {
        let g = upgadgets::UpGadgetCase::draw(name)?;
        return Ok(Loaded {
            name: name.into(),
            description: g.description(),
            circuits: vec![AnyCircuit::UpGadget(g)],
            generated_inputs: None,
            extra: Map::new(),
            vanilla: None,
            expected: None,
        });
    }
    if name == "porep" {
        let c1_path = c1.ok_or_else(|| anyhow!("case porep needs --c1 FILE"))?;
        let c1v = porep::read_c1(c1_path)?;
        let size = u64::from(c1v.registered_proof.sector_size());
        let mut extra = Map::new();
        extra.insert("registered_proof".into(), json!(format!("{:?}", c1v.registered_proof)));
        extra.insert("sector_size".into(), json!(size));
        extra.insert("partition".into(), json!(0));
        extra.insert("comm_d".into(), json!(hex::encode(c1v.comm_d)));
        extra.insert("comm_r".into(), json!(hex::encode(c1v.comm_r)));
        extra.insert("seed".into(), json!(hex::encode(c1v.seed)));
        extra.insert("ticket".into(), json!(hex::encode(c1v.ticket)));
        let (rp, parts) = porep::build(c1v)?;
        extra.insert("partitions".into(), json!(parts.len()));
        let c1_name = c1_path.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let description = format!(
            "Real PoRep circuit for partition 0 of an api-level C1 ({c1_name}, {rp:?}): the SealCommitPhase1Output is \
             parsed with serde_json, vanilla_proofs converted to Vec<Vec<stacked::Proof<Tree, Sha256Hasher>>>, \
             PublicInputs{{replica_id, tau{{comm_d, comm_r}}, k: None, seed}}, compound setup from setup_params(as_v1_config()), \
             then StackedCompound::circuit(pub, (), &proofs[k], &pp.vanilla_params, Some(k)) as seal_commit_phase2 does. \
             No stream draws."
        );
        let (circuits, generated): (Vec<_>, Vec<_>) = parts
            .into_iter()
            .map(|p| (AnyCircuit::Porep(p.circuit), p.public_inputs))
            .unzip();
        return Ok(Loaded {
            name: name.into(),
            description,
            circuits,
            generated_inputs: Some(generated),
            extra,
            vanilla: None,
            expected: expected_porep(size),
        });
    }
    if gadgets::is_gadget_case(name) {
        let g = GadgetCase::draw(name)?;
        return Ok(Loaded {
            name: name.into(),
            description: g.description(),
            circuits: vec![AnyCircuit::Gadget(g)],
            generated_inputs: None,
            extra: Map::new(),
            vanilla: None,
            expected: expected_counts(name),
        });
    }
    if por::POR_CASES.contains(&name) {
        let (b, description) = por::build(name)?;
        return Ok(Loaded {
            name: name.into(),
            description,
            circuits: vec![AnyCircuit::Por(b.circuit)],
            generated_inputs: Some(vec![b.generated_inputs]),
            extra: b.extra,
            vanilla: None,
            expected: expected_counts(name),
        });
    }
    if stacked::STACKED_CASES.contains(&name) {
        let (b, description) = stacked::build(name, tmp)?;
        return Ok(Loaded {
            name: name.into(),
            description,
            circuits: vec![AnyCircuit::Stacked(b.circuit)],
            generated_inputs: Some(vec![b.generated_inputs]),
            extra: b.extra,
            vanilla: Some(b.vanilla),
            expected: expected_counts(name),
        });
    }
    bail!("unknown case {name}; known: {} porep", ALL_CASES.join(" "))
}

/// Records circuit 0 of a loaded case; returns the golden JSON and the vanilla JSON if any.
/// Records circuit `k` of a loaded case.
fn record_partition(mut l: Loaded, k: usize) -> Result<(Value, Option<String>, recorder::Recorded)> {
    let n = l.circuits.len();
    ensure!(k < n, "{}: partition {k} of {n}", l.name);
    let circuit = l.circuits.swap_remove(k);
    if let Some(gen) = l.generated_inputs.as_mut() {
        let g = gen.swap_remove(k);
        *gen = vec![g];
    }
    if l.name.starts_with("update_") {
        l.extra.insert("partition".into(), json!(k));
        l.extra.insert("partitions".into(), json!(n));
        l.name = format!("{}_p{k}", l.name);
    }
    let mut cs = RecordingCS::new();
    let t0 = Instant::now();
    let mut extra = l.extra;
    match circuit {
        AnyCircuit::Gadget(g) => {
            let e = g.synthesize(&mut cs)?;
            extra.extend(e);
        }
        AnyCircuit::UpGadget(g) => {
            let e = g.synthesize(&mut cs)?;
            extra.extend(e);
        }
        c => c.synthesize(&mut cs)?,
    }
    let took = t0.elapsed();
    let rec = cs.finish();
    ensure!(
        rec.unsatisfied == 0,
        "{}: {} unsatisfied rows, first at {:?}",
        l.name,
        rec.unsatisfied,
        rec.first_unsatisfied
    );
    if let Some(gen) = &l.generated_inputs {
        ensure!(
            rec.inputs[1..] == gen[0][..],
            "{}: synthesised inputs differ from generate_public_inputs",
            l.name
        );
        extra.insert("generated_public_inputs_match".into(), json!(true));
    }
    if let Some((c, i, src)) = l.expected {
        ensure!(
            rec.constraints == c && rec.inputs.len() == i,
            "{}: got {} constraints / {} inputs, expected {} / {} ({src})",
            l.name,
            rec.constraints,
            rec.inputs.len(),
            c,
            i
        );
        extra.insert("expected_source".into(), json!(src));
    } else {
        extra.insert("expected_source".into(), json!("none (no upstream number)"));
    }
    if let Some(b) = extra.get("blank_circuit_bench_cs") {
        ensure!(
            b["constraints"].as_u64() == Some(rec.constraints as u64) && b["inputs"].as_u64() == Some(rec.inputs.len() as u64),
            "{}: recorded {} / {} but the blank circuit counts {b}",
            l.name,
            rec.constraints,
            rec.inputs.len()
        );
    }
    extra.insert("satisfied".into(), json!(true));
    eprintln!(
        "{}: {} constraints, {} inputs, {} aux, r1cs {} ({:.2}s)",
        l.name,
        rec.constraints,
        rec.inputs.len(),
        rec.aux_count,
        &rec.r1cs_sha256[..16],
        took.as_secs_f64()
    );
    let golden = rec.golden(&l.name, &l.description, extra);
    Ok((golden, l.vanilla.take(), rec))
}

/// Upstream's own count of a circuit: its blank (parameter-generation) form synthesised into
/// bellperson's BenchCS, the counting system upstream's 32 GiB tests use.
pub fn blank_counts<C: Circuit<Fr>>(c: C) -> Result<Value> {
    let mut cs = bellperson::util_cs::bench_cs::BenchCS::<Fr>::new();
    c.synthesize(&mut cs)?;
    Ok(json!({"constraints": cs.num_constraints(), "inputs": cs.num_inputs()}))
}

fn write_json(path: &Path, v: &Value, pretty: bool) -> Result<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            fs::create_dir_all(dir)?;
        }
    }
    let mut s = if pretty {
        serde_json::to_string_pretty(v)?
    } else {
        serde_json::to_string(v)?
    };
    s.push('\n');
    fs::write(path, s).with_context(|| format!("write {}", path.display()))
}

fn parse_fr_hex(s: &str) -> Result<Fr> {
    let b = hex::decode(s.trim_start_matches("0x"))?;
    ensure!(b.len() == 32, "want 64 hex chars (32-byte LE Fr), got {}", s.len());
    let arr: [u8; 32] = b.try_into().expect("32");
    Option::from(Fr::from_repr(arr)).ok_or_else(|| anyhow!("non-canonical Fr {s}"))
}

fn hex32(v: &Value, key: &str) -> Result<[u8; 32]> {
    let s = v[key].as_str().ok_or_else(|| anyhow!("missing {key}"))?;
    let b = hex::decode(s)?;
    b.try_into().map_err(|_| anyhow!("{key}: want 32 bytes"))
}

fn peak_rss_kib() -> Option<u64> {
    let s = fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default()
}

struct Args {
    map: HashMap<String, String>,
}

impl Args {
    fn parse(v: &[String]) -> Result<Self> {
        let mut map = HashMap::new();
        let mut i = 0;
        while i < v.len() {
            let k = v[i]
                .strip_prefix("--")
                .ok_or_else(|| anyhow!("unexpected argument {}", v[i]))?;
            let val = v.get(i + 1).ok_or_else(|| anyhow!("--{k} needs a value"))?;
            map.insert(k.to_string(), val.clone());
            i += 2;
        }
        Ok(Args { map })
    }
    fn get(&self, k: &str) -> Option<&str> {
        self.map.get(k).map(|s| s.as_str())
    }
    fn req(&self, k: &str) -> Result<&str> {
        self.get(k).ok_or_else(|| anyhow!("missing --{k}"))
    }
    fn path(&self, k: &str) -> Option<PathBuf> {
        self.get(k).map(PathBuf::from)
    }
}

fn cmd_r1cs(a: &Args, tmp: &Path) -> Result<()> {
    let case = a.req("case")?;
    let out = PathBuf::from(a.req("out")?);
    let src = a.path("c1").or_else(|| a.path("vanilla"));
    let l = load(Some(case), src.as_deref(), tmp)?;
    let k: usize = a.get("partition").map(|s| s.parse()).transpose()?.unwrap_or(0);
    let (golden, vanilla, _) = record_partition(l, k)?;
    write_json(&out, &golden, true)?;
    if let Some(v) = vanilla {
        let vpath = a.path("vanilla-out").unwrap_or_else(|| {
            out.with_file_name(format!("{case}.vanilla.json"))
        });
        if let Some(dir) = vpath.parent() {
            fs::create_dir_all(dir)?;
        }
        fs::write(&vpath, v + "\n")?;
        eprintln!("wrote {}", vpath.display());
    }
    eprintln!("wrote {}", out.display());
    Ok(())
}

fn circuit_from_args(a: &Args, tmp: &Path) -> Result<Loaded> {
    match (a.get("case"), a.path("c1").or_else(|| a.path("vanilla"))) {
        (Some(c), c1) => load(Some(c), c1.as_deref(), tmp),
        (None, Some(c1)) => load(None, Some(&c1), tmp),
        (None, None) => bail!("need --c1 FILE or --case NAME"),
    }
}

fn cmd_params_gen(a: &Args, tmp: &Path) -> Result<()> {
    let out = PathBuf::from(a.req("out")?);
    let mut l = circuit_from_args(a, tmp)?;
    let seed = a.get("seed").map(|s| s.parse::<u64>()).transpose()?.unwrap_or(42);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let t0 = Instant::now();
    let params: Parameters<Bls12> = generate_random_parameters(l.circuits.remove(0), &mut rng)?;
    let took = t0.elapsed();
    let mut w = BufWriter::new(fs::File::create(&out)?);
    params.write(&mut w)?;
    w.flush()?;
    let vk_path = out.with_extension("vk");
    let mut w = BufWriter::new(fs::File::create(&vk_path)?);
    params.vk.write(&mut w)?;
    w.flush()?;
    eprintln!(
        "params-gen {}: h={} l={} a={} b_g1={} b_g2={} ic={} ({:.1}s) -> {} and {}",
        l.name,
        params.h.len(),
        params.l.len(),
        params.a.len(),
        params.b_g1.len(),
        params.b_g2.len(),
        params.vk.ic.len(),
        took.as_secs_f64(),
        out.display(),
        vk_path.display()
    );
    Ok(())
}

fn cmd_prove(a: &Args, tmp: &Path) -> Result<()> {
    let params_path = PathBuf::from(a.req("params")?);
    let r = parse_fr_hex(a.req("r")?)?;
    let s = parse_fr_hex(a.req("s")?)?;
    let out = PathBuf::from(a.req("out")?);
    // --partition K proves circuit K alone (an update sector has several); default: all.
    let only: Option<usize> = a.get("partition").map(|s| s.parse()).transpose()?;
    let select = |mut l: Loaded| -> Result<Loaded> {
        if let Some(k) = only {
            let n = l.circuits.len();
            ensure!(k < n, "{}: partition {k} of {n}", l.name);
            l.circuits = vec![l.circuits.swap_remove(k)];
            if let Some(gen) = l.generated_inputs.as_mut() {
                *gen = vec![gen.swap_remove(k)];
            }
        }
        Ok(l)
    };

    // First pass: record every circuit to get its public inputs and digest.
    let mut l = select(circuit_from_args(a, tmp)?)?;
    let mut publics = Vec::new();
    let mut digests = Vec::new();
    for c in l.circuits.drain(..) {
        let mut cs = RecordingCS::new();
        c.synthesize(&mut cs)?;
        let rec = cs.finish();
        ensure!(rec.unsatisfied == 0, "circuit not satisfied");
        digests.push(json!({"constraints": rec.constraints, "inputs": rec.inputs.len(), "aux": rec.aux_count, "r1cs_sha256": rec.r1cs_sha256, "aux_sha256": rec.aux_sha256}));
        publics.push(rec.inputs[1..].to_vec());
    }
    if let Some(gen) = &l.generated_inputs {
        ensure!(gen == &publics, "synthesised inputs differ from generate_public_inputs");
    }
    // The proof is checked against upstream's generate_public_inputs where the case has them
    // (the verifier's inputs), else against the synthesised ones.
    let check_inputs = l.generated_inputs.clone().unwrap_or_else(|| publics.clone());

    // Upstream's compound proofs (circuit_proofs) call create_random_proof_batch_in_priority
    // when the setup's priority is set (every PoSt: PoStConfig.priority = true), else
    // create_random_proof_batch (PoRep, update proving); both draw r, s and call
    // create_proof_batch_priority, which the fixed-r/s functions below call directly. Priority
    // only orders GPU work; on the CPU the computation is the same.
    let l = select(circuit_from_args(a, tmp)?)?;
    let priority = matches!(l.circuits.first(), Some(AnyCircuit::Post(_)));
    let n = l.circuits.len();
    let params = Parameters::<Bls12>::build_mapped_parameters(params_path.clone(), false)
        .with_context(|| format!("read params {}", params_path.display()))?;
    let t0 = Instant::now();
    let proofs: Vec<Proof<Bls12>> = if priority {
        create_proof_batch_in_priority(l.circuits, &params, vec![r; n], vec![s; n])?
    } else {
        create_proof_batch(l.circuits, &params, vec![r; n], vec![s; n])?
    };
    let took = t0.elapsed();
    let pvk = prepare_verifying_key(&params.vk);
    let mut buf = Vec::new();
    let mut verified = Vec::new();
    for (p, inputs) in proofs.iter().zip(&check_inputs) {
        p.write(&mut buf)?;
        verified.push(verify_proof(&pvk, p, inputs)?);
    }
    fs::write(&out, &buf)?;
    let summary = json!({
        "case": l.name,
        "partitions": n,
        "partition": only,
        "r": fr_hex(&r),
        "s": fr_hex(&s),
        "proof_hex": hex::encode(&buf),
        "prover_function": if priority { "create_proof_batch_in_priority" } else { "create_proof_batch" },
        "verified_with_params_vk": verified,
        "verified_against": if l.generated_inputs.is_some() { "generate_public_inputs" } else { "synthesised inputs" },
        "public_inputs": publics.iter().map(|p| p.iter().map(fr_hex).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "circuits": digests,
        "prove_seconds": took.as_secs_f64(),
    });
    println!("{}", serde_json::to_string_pretty(&summary)?);
    ensure!(verified.iter().all(|v| *v), "proof does not verify against the params' vk");
    Ok(())
}

fn cmd_verify_seal(a: &Args, tmp: &Path) -> Result<bool> {
    let vk = PathBuf::from(a.req("vk")?);
    let commdr: Value = serde_json::from_slice(&fs::read(a.req("commdr")?)?)?;
    let proof = fs::read(a.req("proof")?)?;
    let rp_id = commdr["registered_proof"]
        .as_u64()
        .ok_or_else(|| anyhow!("commdr: registered_proof"))?;
    let rp = seal::registered_proof_from_id(rp_id)?;
    let sector = commdr["sector"].as_u64().ok_or_else(|| anyhow!("commdr: sector"))?;
    let target = rp.cache_verifying_key_path()?;
    ensure!(
        target.starts_with(tmp),
        "parameter cache {} is not the private temp dir",
        target.display()
    );
    fs::create_dir_all(target.parent().expect("parent"))?;
    fs::copy(&vk, &target).with_context(|| format!("copy vk to {}", target.display()))?;
    eprintln!("vk placed as {}", target.display());
    let ok = filecoin_proofs_api::seal::verify_seal(
        rp,
        hex32(&commdr, "comm_r")?,
        hex32(&commdr, "comm_d")?,
        hex32(&commdr, "prover_id")?,
        filecoin_proofs_api::SectorId::from(sector),
        hex32(&commdr, "ticket")?,
        hex32(&commdr, "seed")?,
        &proof,
    )?;
    Ok(ok)
}

/// Captures bellperson's own log lines (its prover reports "synthesis time" and "prover time").
struct Capture {
    start: Instant,
    lines: std::sync::Mutex<Vec<(f64, String)>>,
}

impl log::Log for Capture {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.target().starts_with("bellperson") && m.level() <= log::Level::Debug
    }
    fn log(&self, r: &log::Record) {
        if self.enabled(r.metadata()) {
            let t = self.start.elapsed().as_secs_f64();
            self.lines
                .lock()
                .expect("lock")
                .push((t, format!("{}", r.args())));
        }
    }
    fn flush(&self) {}
}

static CAPTURE: std::sync::OnceLock<Capture> = std::sync::OnceLock::new();

fn install_capture() -> &'static Capture {
    let c = CAPTURE.get_or_init(|| Capture {
        start: Instant::now(),
        lines: std::sync::Mutex::new(Vec::new()),
    });
    if log::set_logger(c).is_ok() {
        log::set_max_level(log::LevelFilter::Debug);
    }
    c
}

fn bench_run(a: &Args, tmp: &Path) -> Result<Value> {
    let threads: usize = a.req("threads")?.parse()?;
    let capture = install_capture();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    pool.install(|| -> Result<Value> {
        let t0 = Instant::now();
        let mut l = circuit_from_args(a, tmp)?;
        let load_s = t0.elapsed().as_secs_f64();
        let c = l.circuits.remove(0);
        let t0 = Instant::now();
        let mut cs = EvalCS::new();
        c.synthesize(&mut cs)?;
        let circuit_rows = cs.a.len();
        cs.close();
        let synth_s = t0.elapsed().as_secs_f64();
        let rows = cs.a.len();
        let (ninputs, naux) = (cs.inputs.len(), cs.aux.len());
        drop(cs);

        let mut l2 = circuit_from_args(a, tmp)?;
        let t0 = Instant::now();
        let mut rcs = RecordingCS::new();
        l2.circuits.remove(0).synthesize(&mut rcs)?;
        let rec = rcs.finish();
        let record_s = t0.elapsed().as_secs_f64();

        let mut out = json!({
            "threads": threads,
            "case": l.name,
            "load_seconds": load_s,
            "constraints_circuit": circuit_rows,
            "constraints_with_input_rows": rows,
            "inputs": ninputs,
            "aux": naux,
            "synthesis_seconds": synth_s,
            "synthesis_ns_per_constraint": synth_s * 1e9 / rows as f64,
            "record_and_digest_seconds": record_s,
            "r1cs_sha256": rec.r1cs_sha256,
        });
        if let Some(p) = a.path("params") {
            let params = Parameters::<Bls12>::build_mapped_parameters(p, false)?;
            let mut l3 = circuit_from_args(a, tmp)?;
            let c = l3.circuits.remove(0);
            let r = Fr::from(12345u64);
            let s = Fr::from(67890u64);
            let t0 = Instant::now();
            let proofs = create_proof_batch(vec![c], &params, vec![r], vec![s])?;
            let prove_s = t0.elapsed().as_secs_f64();
            let ok = verify_proof(
                &prepare_verifying_key(&params.vk),
                &proofs[0],
                &rec.inputs[1..],
            )?;
            out["prove_seconds_including_synthesis"] = json!(prove_s);
            let lines = capture.lines.lock().expect("lock").clone();
            let find = |key: &str| {
                lines
                    .iter()
                    .find(|(_, l)| l.starts_with(key))
                    .map(|(_, l)| l.clone())
            };
            out["bellperson_synthesis_time"] = json!(find("synthesis time"));
            out["bellperson_prover_time"] = json!(find("prover time"));
            out["bellperson_log"] = json!(lines
                .iter()
                .map(|(t, l)| format!("{t:.3}s {l}"))
                .collect::<Vec<_>>());
            out["proof_verified"] = json!(ok);
        }
        out["peak_rss_kib"] = json!(peak_rss_kib());
        Ok(out)
    })
}

fn cmd_bench(a: &Args, raw: &[String]) -> Result<()> {
    let nproc = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let exe = std::env::current_exe()?;
    let mut runs = Vec::new();
    let mut thread_counts = vec![1];
    if nproc > 1 {
        thread_counts.push(nproc);
    }
    for t in thread_counts {
        let mut args: Vec<String> = vec!["bench-run".into(), "--threads".into(), t.to_string()];
        let mut i = 0;
        while i + 1 < raw.len() {
            if raw[i] != "--out" {
                args.push(raw[i].clone());
                args.push(raw[i + 1].clone());
            }
            i += 2;
        }
        let o = Command::new(&exe)
            .args(&args)
            .env("RAYON_NUM_THREADS", t.to_string())
            .env("EC_GPU_NUM_THREADS", t.to_string())
            .output()?;
        ensure!(
            o.status.success(),
            "bench-run failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        runs.push(serde_json::from_slice::<Value>(&o.stdout)?);
    }
    let v = json!({
        "machine": {
            "nproc": nproc,
            "cpu_model": cpu_model(),
            "loadavg_at_end": fs::read_to_string("/proc/loadavg").ok().map(|s| s.trim().to_string()),
            "mem_total": fs::read_to_string("/proc/meminfo").ok().and_then(|s| s.lines().next().map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))),
        },
        "tool": "rustref bench (bellperson 0.26 CPU, rust-fil-proofs 19.0.1)",
        "notes": "synthesis_seconds uses a ProvingAssignment-shaped CS (A/B/C evaluation + density, trailing input rows); \
                  record_and_digest_seconds uses the canonical recorder (LC canonicalisation + SHA-256); \
                  single-core run sets RAYON_NUM_THREADS=1 and EC_GPU_NUM_THREADS=1 in a child process.",
        "runs": runs,
    });
    let s = serde_json::to_string_pretty(&v)? + "\n";
    if let Some(out) = a.get("out") {
        fs::write(out, &s)?;
    }
    print!("{s}");
    Ok(())
}

fn usage() -> &'static str {
    "usage:
  rustref r1cs --case NAME [--c1 FILE] --out FILE [--vanilla-out FILE]
  rustref seal --sector-size 2KiB|8MiB --out DIR
  rustref prove --params FILE (--c1 FILE | --case NAME [--vanilla FILE]) [--partition K] --r HEX --s HEX --out proof.bin
  rustref params-gen (--c1 FILE | --case NAME) --out FILE.params [--seed N]   (also writes FILE.vk)
  rustref verify-seal --vk FILE --commdr FILE --proof FILE [--partition K]
                      (valid/invalid, exit 0/1; 2 on error; --partition K: partition K's 192-byte proof,
                       alone in FILE or at bytes [192K, 192K+192) of the whole proof)
  rustref verify-c1 --c1 FILE [--partition K]          (upstream vanilla check of a C1, api JSON or Curio's
                       wrapper; valid/invalid, exit 0/1; 2 on error)
  rustref verify-post --vk FILE --proof FILE (--public FILE | --registered-proof N --randomness HEX --sectors ID:COMMR[,...])
                      [--partition K] [--miner ID]      (valid/invalid, exit 0/1; 2 on error)
  rustref verify-post-vanilla --vanilla FILE --public FILE [--partition K]   (upstream's PoSt vanilla checks;
                      valid/invalid, exit 0/1; 2 on error)
  rustref post-config --registered-proof N              (PoStConfig, circuit counts, official file names)
  rustref bench (--c1 FILE | --case NAME) [--params FILE] [--out FILE]
  rustref cases | up-cases
  rustref post-vanilla --out DIR                       (2 KiB window.json, winning.json)
  rustref snap-encode --sector-size 2KiB|8MiB --out DIR (update.json, vproofs.json)
  rustref r1cs --case window_post|winning_post --vanilla DIR/{window,winning}.json --out FILE
  rustref post-proof --vanilla DIR/window.json --out DIR [--seed N]  (vk.bin, proof.bin, public.json)
  rustref r1cs --case update --vanilla DIR/update.json --partition K --out FILE
  rustref verify-update-vanilla --update FILE [--vproofs FILE] [--partition K]   (upstream's vanilla check
                      of an update, any size; valid/invalid, exit 0/1; 2 on error)
  rustref verify-update --vk FILE --update FILE --proof FILE [--partition K]    (valid/invalid, exit 0/1; 2 on error)
  rustref update-counts --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB              (upstream's blank update circuit's counts)
  rustref update-r1cs --update FILE --partition K --out FILE                    (r1cs --case update at any size)
cases: sha256_block sha256_full_512 poseidon_2 poseidon_4 poseidon_8 poseidon_11 create_label
       por_* stacked_* porep (needs --c1)"
}

/// stdout `valid` (exit 0) or `invalid` (exit 1, the reason on stderr).
fn porep_verdict(v: verify_porep::Verdict) -> ExitCode {
    match v {
        verify_porep::Verdict::Valid => {
            println!("valid");
            ExitCode::SUCCESS
        }
        verify_porep::Verdict::Invalid(why) => {
            eprintln!("{why}");
            println!("invalid");
            ExitCode::from(1)
        }
    }
}

fn run(tmp: &Path) -> Result<ExitCode> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = argv.first() else {
        eprintln!("{}", usage());
        return Ok(ExitCode::from(2));
    };
    let raw = &argv[1..];
    let a = Args::parse(raw)?;
    match cmd.as_str() {
        "r1cs" => cmd_r1cs(&a, tmp)?,
        "seal" => {
            let rp = seal::parse_sector_size(a.req("sector-size")?)?;
            seal::seal(rp, Path::new(a.req("out")?), tmp)?
        }
        "prove" => cmd_prove(&a, tmp)?,
        "params-gen" => cmd_params_gen(&a, tmp)?,
        "verify-c1" => {
            let v = verify_porep::verify_c1(&a)?;
            // Evidence that verification never built the SDR parent cache (FIL_PROOFS_PARENT_CACHE).
            let parents = tmp.join("parents");
            let n = fs::read_dir(&parents)?.count();
            ensure!(n == 0, "the parent cache {} holds {n} file(s) after verification", parents.display());
            eprintln!("parent cache dir untouched (empty)");
            return Ok(porep_verdict(v));
        }
        "verify-seal" if a.get("partition").is_some() => {
            let k: usize = a.req("partition")?.parse().context("--partition")?;
            return Ok(porep_verdict(verify_porep::verify_seal_partition(&a, k)?));
        }
        "verify-seal" => {
            let ok = cmd_verify_seal(&a, tmp)?;
            println!("{}", if ok { "valid" } else { "invalid" });
            return Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) });
        }
        "verify-post" => {
            let req = verify_post::request_from_args(&a)?;
            return Ok(match verify_post::verify(&req, tmp)? {
                verify_post::Verdict::Valid => {
                    println!("valid");
                    ExitCode::SUCCESS
                }
                verify_post::Verdict::Invalid(why) => {
                    eprintln!("{why}");
                    println!("invalid");
                    ExitCode::from(1)
                }
            });
        }
        "verify-post-vanilla" => return verify_post_vanilla::run(&a),
        "post-config" => println!("{}", serde_json::to_string_pretty(&verify_post::config(&a)?)?),
        "bench" => cmd_bench(&a, raw)?,
        "bench-run" => println!("{}", serde_json::to_string(&bench_run(&a, tmp)?)?),
        "cases" => {
            for c in ALL_CASES {
                println!("{c}");
            }
        }
        "up-cases" => {
            for c in upgadgets::UP_GADGET_CASES {
                println!("{c}");
            }
        }
        "post-vanilla" => post::make_vanilla(Path::new(a.req("out")?), tmp)?,
        "post-proof" => post::outside_proof(
            Path::new(a.req("vanilla")?),
            Path::new(a.req("out")?),
            a.get("seed").map(|s| s.parse::<u64>()).transpose()?.unwrap_or(42),
            tmp,
        )?,
        "verify-update-vanilla" => return Ok(porep_verdict(verify_update::verify_vanilla(&a)?)),
        "verify-update" => return Ok(porep_verdict(verify_update::verify_groth16(&a, tmp)?)),
        "update-r1cs" => verify_update::r1cs(&a)?,
        "update-counts" => println!("{}", serde_json::to_string_pretty(&verify_update::counts(&a)?)?),
        "snap-encode" => snap::encode(a.req("sector-size")?, Path::new(a.req("out")?), tmp)?,
        _ => {
            eprintln!("{}", usage());
            return Ok(ExitCode::from(2));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    // Keep every file rust-fil-proofs writes (parent cache, parameter cache) in a private temp
    // dir; the settings are read from the environment on first use, so set them before anything.
    let tmp = tempfile::Builder::new()
        .prefix("rustref-")
        .tempdir()
        .expect("temp dir");
    let parents = tmp.path().join("parents");
    let params = tmp.path().join("params");
    fs::create_dir_all(&parents).expect("mkdir");
    fs::create_dir_all(&params).expect("mkdir");
    std::env::set_var("FIL_PROOFS_PARENT_CACHE", &parents);
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", format!("{}/", params.display()));
    std::env::set_var("FIL_PROOFS_CACHE_DIR", tmp.path());
    match run(tmp.path()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("rustref: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
