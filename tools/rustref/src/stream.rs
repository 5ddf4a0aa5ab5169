//! Deterministic input stream shared with the Go side (see the digest spec):
//! stream(label) = SHA256(label || u32le(0)) || SHA256(label || u32le(1)) || ...

use blstrs::Scalar as Fr;
use ff::PrimeField;
use sha2::{Digest, Sha256};

pub struct Stream {
    label: Vec<u8>,
    counter: u32,
    block: [u8; 32],
    pos: usize,
}

impl Stream {
    pub fn new(label: &str) -> Self {
        Stream {
            label: label.as_bytes().to_vec(),
            counter: 0,
            block: [0u8; 32],
            pos: 32,
        }
    }

    /// A case stream: label "cuzk-golden/<case>".
    pub fn for_case(case: &str) -> Self {
        Self::new(&format!("cuzk-golden/{}", case))
    }

    fn refill(&mut self) {
        let mut h = Sha256::new();
        h.update(&self.label);
        h.update(self.counter.to_le_bytes());
        self.block.copy_from_slice(&h.finalize());
        self.counter = self.counter.checked_add(1).expect("stream exhausted");
        self.pos = 0;
    }

    pub fn fill(&mut self, out: &mut [u8]) {
        for b in out.iter_mut() {
            if self.pos == 32 {
                self.refill();
            }
            *b = self.block[self.pos];
            self.pos += 1;
        }
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        self.fill(&mut v);
        v
    }

    /// Next 32 bytes with byte[31] &= 0x3f (always a canonical LE Fr repr).
    pub fn fr_bytes(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        self.fill(&mut b);
        b[31] &= 0x3f;
        b
    }

    pub fn fr(&mut self) -> Fr {
        let b = self.fr_bytes();
        Fr::from_repr_vartime(b).expect("top two bits cleared, always canonical")
    }

    /// Next n bits: ceil(n/8) bytes, bit i = (byte[i/8] >> (i%8)) & 1.
    pub fn bits(&mut self, n: usize) -> Vec<bool> {
        let bytes = self.bytes(n.div_ceil(8));
        (0..n).map(|i| (bytes[i / 8] >> (i % 8)) & 1 == 1).collect()
    }

    pub fn u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        self.fill(&mut b);
        u64::from_le_bytes(b)
    }
}

/// Bytes drawn from a raw stream (no field reduction), used for seal data.
pub fn stream_prefix(label: &str, n: usize) -> Vec<u8> {
    Stream::new(label).bytes(n)
}
