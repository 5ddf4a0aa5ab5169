//! Recording constraint system implementing the canonical R1CS digest format
//! (notes/digest-spec.md, mirrored in tools/rustref/README.md).

use bellpepper_core::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use ff::{Field, PrimeField};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

pub const CHUNK_ROWS: usize = 65536;

pub struct RecordingCS {
    pub inputs: Vec<Fr>,
    pub aux: Vec<Fr>,
    pub rows: usize,
    pub unsatisfied: usize,
    pub first_unsatisfied: Option<usize>,
    all: Sha256,
    chunk: Sha256,
    chunks: Vec<String>,
    buf: Vec<u8>,
    scratch: Vec<(u8, usize, Fr)>,
}

impl RecordingCS {
    /// A fresh recorder with input 0 = ONE already allocated, like bellperson's prover.
    pub fn new() -> Self {
        RecordingCS {
            inputs: vec![Fr::ONE],
            aux: Vec::new(),
            rows: 0,
            unsatisfied: 0,
            first_unsatisfied: None,
            all: Sha256::new(),
            chunk: Sha256::new(),
            chunks: Vec::new(),
            buf: Vec::with_capacity(4096),
            scratch: Vec::new(),
        }
    }

    fn eval(&self, lc: &LinearCombination<Fr>) -> Fr {
        let mut acc = Fr::ZERO;
        for (i, c) in lc.iter_inputs() {
            acc += self.inputs[*i] * c;
        }
        for (i, c) in lc.iter_aux() {
            acc += self.aux[*i] * c;
        }
        acc
    }

    fn serialize_lc(&mut self, lc: &LinearCombination<Fr>) {
        let terms = &mut self.scratch;
        terms.clear();
        for (i, c) in lc.iter_inputs() {
            terms.push((0u8, *i, *c));
        }
        for (i, c) in lc.iter_aux() {
            terms.push((1u8, *i, *c));
        }
        terms.sort_by_key(|t| (t.0, t.1));
        // merge duplicates, drop zeros
        let mut merged: Vec<(u8, usize, Fr)> = Vec::with_capacity(terms.len());
        for &(k, i, c) in terms.iter() {
            match merged.last_mut() {
                Some(last) if last.0 == k && last.1 == i => last.2 += c,
                _ => merged.push((k, i, c)),
            }
        }
        merged.retain(|t| !bool::from(t.2.is_zero()));
        self.buf
            .extend_from_slice(&(merged.len() as u32).to_le_bytes());
        for (k, i, c) in merged {
            self.buf.push(k);
            self.buf
                .extend_from_slice(&u32::try_from(i).expect("index fits u32").to_le_bytes());
            self.buf.extend_from_slice(&c.to_repr());
        }
    }

    /// Digest summary and golden JSON (without case/description/extra).
    pub fn finish(mut self) -> Recorded {
        if !self.rows.is_multiple_of(CHUNK_ROWS) || self.rows == 0 {
            let ch = std::mem::replace(&mut self.chunk, Sha256::new());
            self.chunks.push(hex::encode(ch.finalize()));
        }
        let mut ih = Sha256::new();
        for v in &self.inputs {
            ih.update(v.to_repr());
        }
        let mut ah = Sha256::new();
        for v in &self.aux {
            ah.update(v.to_repr());
        }
        Recorded {
            constraints: self.rows,
            r1cs_sha256: hex::encode(self.all.finalize()),
            chunks: self.chunks,
            inputs_sha256: hex::encode(ih.finalize()),
            aux_sha256: hex::encode(ah.finalize()),
            inputs: self.inputs,
            aux_count: self.aux.len(),
            unsatisfied: self.unsatisfied,
            first_unsatisfied: self.first_unsatisfied,
        }
    }
}

pub struct Recorded {
    pub constraints: usize,
    pub r1cs_sha256: String,
    pub chunks: Vec<String>,
    pub inputs_sha256: String,
    pub aux_sha256: String,
    pub inputs: Vec<Fr>,
    pub aux_count: usize,
    pub unsatisfied: usize,
    pub first_unsatisfied: Option<usize>,
}

pub fn fr_hex(v: &Fr) -> String {
    hex::encode(v.to_repr())
}

impl Recorded {
    pub fn public_inputs_hex(&self) -> Vec<String> {
        self.inputs[1..].iter().map(fr_hex).collect()
    }

    pub fn golden(&self, case: &str, description: &str, extra: Map<String, Value>) -> Value {
        let mut m = Map::new();
        m.insert("case".into(), json!(case));
        m.insert("description".into(), json!(description));
        m.insert("constraints".into(), json!(self.constraints));
        m.insert("inputs".into(), json!(self.inputs.len()));
        m.insert("aux".into(), json!(self.aux_count));
        m.insert("r1cs_sha256".into(), json!(self.r1cs_sha256));
        m.insert("chunk_rows".into(), json!(CHUNK_ROWS));
        m.insert("chunks".into(), json!(self.chunks));
        m.insert("inputs_sha256".into(), json!(self.inputs_sha256));
        m.insert("aux_sha256".into(), json!(self.aux_sha256));
        if self.inputs.len() - 1 < 1000 {
            m.insert("public_inputs".into(), json!(self.public_inputs_hex()));
        }
        m.insert("extra".into(), Value::Object(extra));
        Value::Object(m)
    }
}

impl Default for RecordingCS {
    fn default() -> Self {
        Self::new()
    }
}

impl ConstraintSystem<Fr> for RecordingCS {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux.push(f()?);
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        let a = a(LinearCombination::zero());
        let b = b(LinearCombination::zero());
        let c = c(LinearCombination::zero());
        if self.eval(&a) * self.eval(&b) != self.eval(&c) {
            if self.first_unsatisfied.is_none() {
                self.first_unsatisfied = Some(self.rows);
            }
            self.unsatisfied += 1;
        }
        self.buf.clear();
        self.serialize_lc(&a);
        self.serialize_lc(&b);
        self.serialize_lc(&c);
        self.all.update(&self.buf);
        self.chunk.update(&self.buf);
        self.rows += 1;
        if self.rows.is_multiple_of(CHUNK_ROWS) {
            let ch = std::mem::replace(&mut self.chunk, Sha256::new());
            self.chunks.push(hex::encode(ch.finalize()));
        }
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    fn is_extensible() -> bool {
        false
    }
}

/// Synthesis-only CS shaped like bellperson's ProvingAssignment: evaluates A/B/C per row and
/// tracks densities, but does not record or hash rows. Used for timing.
pub struct EvalCS {
    pub inputs: Vec<Fr>,
    pub aux: Vec<Fr>,
    pub a: Vec<Fr>,
    pub b: Vec<Fr>,
    pub c: Vec<Fr>,
    a_aux_density: Vec<bool>,
    b_input_density: Vec<bool>,
    b_aux_density: Vec<bool>,
}

impl EvalCS {
    pub fn new() -> Self {
        let mut cs = EvalCS {
            inputs: vec![],
            aux: vec![],
            a: vec![],
            b: vec![],
            c: vec![],
            a_aux_density: vec![],
            b_input_density: vec![],
            b_aux_density: vec![],
        };
        cs.inputs.push(Fr::ONE);
        cs.b_input_density.push(false);
        cs
    }

    /// Adds the trailing input rows like the prover does.
    pub fn close(&mut self) {
        for i in 0..self.inputs.len() {
            self.enforce(
                || "",
                |lc| lc + Variable::new_unchecked(Index::Input(i)),
                |lc| lc,
                |lc| lc,
            );
        }
    }
}

impl Default for EvalCS {
    fn default() -> Self {
        Self::new()
    }
}

fn eval_track(
    lc: &LinearCombination<Fr>,
    inputs: &[Fr],
    aux: &[Fr],
    in_d: Option<&mut Vec<bool>>,
    aux_d: Option<&mut Vec<bool>>,
) -> Fr {
    let mut acc = Fr::ZERO;
    if let Some(d) = in_d {
        for (i, c) in lc.iter_inputs() {
            acc += inputs[*i] * c;
            d[*i] = true;
        }
    } else {
        for (i, c) in lc.iter_inputs() {
            acc += inputs[*i] * c;
        }
    }
    if let Some(d) = aux_d {
        for (i, c) in lc.iter_aux() {
            acc += aux[*i] * c;
            d[*i] = true;
        }
    } else {
        for (i, c) in lc.iter_aux() {
            acc += aux[*i] * c;
        }
    }
    acc
}

impl ConstraintSystem<Fr> for EvalCS {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux.push(f()?);
        self.a_aux_density.push(false);
        self.b_aux_density.push(false);
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        self.b_input_density.push(false);
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        let a = a(LinearCombination::zero());
        let b = b(LinearCombination::zero());
        let c = c(LinearCombination::zero());
        let av = eval_track(&a, &self.inputs, &self.aux, None, Some(&mut self.a_aux_density));
        let bv = eval_track(
            &b,
            &self.inputs,
            &self.aux,
            Some(&mut self.b_input_density),
            Some(&mut self.b_aux_density),
        );
        let cv = eval_track(&c, &self.inputs, &self.aux, None, None);
        self.a.push(av);
        self.b.push(bv);
        self.c.push(cv);
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
