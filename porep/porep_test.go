package porep

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/golden"
)

func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata"}, parts...)...)
}

// polka is testdata/polka-2kib-porep: a real rust-fil-proofs 2 KiB proof
// with porep_id all zero and api 1.2.0.
type polka struct {
	public   SealPublic
	vk       *groth16.VerifyingKey
	proof    []byte
	replica  [32]byte
	chals    []uint64
	drg, exp [][]uint32
	inputs   [][32]byte
}

func loadPolka(t testing.TB) *polka {
	t.Helper()
	var pub struct {
		Config struct {
			SectorSize uint64 `json:"sector_size"`
			PoRepID    string `json:"porep_id_hex"`
			APIVersion string `json:"api_version"`
		} `json:"porep_config"`
		Public struct {
			ProverID string `json:"prover_id_hex"`
			Sector   uint64 `json:"sector_id"`
			Ticket   string `json:"ticket_hex"`
			Seed     string `json:"seed_hex"`
			CommD    string `json:"comm_d_hex"`
			CommR    string `json:"comm_r_hex"`
		} `json:"public"`
		Derived struct {
			ReplicaID  string `json:"replica_id_le_hex"`
			Challenges []struct {
				Challenge  uint64   `json:"challenge"`
				DRGParents []uint32 `json:"drg_parents"`
				ExpParents []uint32 `json:"exp_parents"`
			} `json:"challenges"`
			Inputs []string `json:"public_inputs_fr_le_hex"`
		} `json:"derived"`
	}
	dir := testdata("polka-2kib-porep")
	golden.ReadJSON(t, filepath.Join(dir, "public.json"), &pub)
	v, err := filecoin.ParseAPIVersion(pub.Config.APIVersion)
	if err != nil {
		t.Fatal(err)
	}
	p := &polka{public: SealPublic{
		Config: Config{
			SectorSize: filecoin.SectorSize(pub.Config.SectorSize),
			PoRepID:    golden.Hex32(t, pub.Config.PoRepID),
			APIVersion: v,
			Mode:       filecoin.Interactive,
		},
		CommR:    golden.Hex32(t, pub.Public.CommR),
		CommD:    golden.Hex32(t, pub.Public.CommD),
		ProverID: golden.Hex32(t, pub.Public.ProverID),
		Sector:   pub.Public.Sector,
		Ticket:   golden.Hex32(t, pub.Public.Ticket),
		Seed:     golden.Hex32(t, pub.Public.Seed),
	}}
	p.replica = golden.Hex32(t, pub.Derived.ReplicaID)
	for _, c := range pub.Derived.Challenges {
		p.chals = append(p.chals, c.Challenge)
		p.drg = append(p.drg, c.DRGParents)
		p.exp = append(p.exp, c.ExpParents)
	}
	for _, s := range pub.Derived.Inputs {
		p.inputs = append(p.inputs, golden.Hex32(t, s))
	}
	if p.vk, err = groth16.ReadVerifyingKeyFile(filepath.Join(dir, "vk.bin")); err != nil {
		t.Fatal(err)
	}
	if p.proof, err = os.ReadFile(filepath.Join(dir, "proof.bin")); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPolkaDerivedValues recomputes every derived value of the polka proof
// from its public values.
func TestPolkaDerivedValues(t *testing.T) {
	p := loadPolka(t)
	if got := p.public.ReplicaID(); got != p.replica {
		t.Fatalf("replica_id %x, want %x", got, p.replica)
	}
	chals, err := p.public.Config.Challenges(p.replica, p.public.CommR, p.public.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(chals, p.chals) {
		t.Fatalf("challenges %v, want %v", chals, p.chals)
	}
	g, err := p.public.Config.Graph()
	if err != nil {
		t.Fatal(err)
	}
	var parents [14]uint32
	for i, c := range chals {
		g.Parents(uint32(c), parents[:])
		if !slices.Equal(parents[:6], p.drg[i]) || !slices.Equal(parents[6:], p.exp[i]) {
			t.Errorf("challenge %d: parents %v, want %v %v", c, parents, p.drg[i], p.exp[i])
		}
	}
	inputs, err := p.public.PublicInputs(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 39 || len(p.inputs) != 39 {
		t.Fatalf("%d inputs, file has %d, want 39", len(inputs), len(p.inputs))
	}
	for i := range inputs {
		if got := fr32.FromElement(&inputs[i]); got != p.inputs[i] {
			t.Errorf("input %d: %x, want %x", i, got, p.inputs[i])
		}
	}
	if _, err := p.public.PublicInputs(1); !errors.Is(err, ErrPartition) {
		t.Errorf("partition 1 of 1: %v", err)
	}
}

// TestVerifySealPolka: the real proof verifies from its public values alone
// and fails when any of them changes.
func TestVerifySealPolka(t *testing.T) {
	p := loadPolka(t)
	ok, err := VerifySeal(p.vk, p.proof, p.public)
	if err != nil || !ok {
		t.Fatalf("real proof: ok=%v err=%v", ok, err)
	}
	flip := func(b [32]byte) [32]byte { b[0] ^= 1; return b }
	for name, mutate := range map[string]func(s *SealPublic){
		"comm_r":    func(s *SealPublic) { s.CommR = flip(s.CommR) },
		"comm_d":    func(s *SealPublic) { s.CommD = flip(s.CommD) },
		"ticket":    func(s *SealPublic) { s.Ticket = flip(s.Ticket) },
		"seed":      func(s *SealPublic) { s.Seed = flip(s.Seed) },
		"prover id": func(s *SealPublic) { s.ProverID = flip(s.ProverID) },
		"sector":    func(s *SealPublic) { s.Sector++ },
		"porep_id":  func(s *SealPublic) { s.Config.PoRepID = flip(s.Config.PoRepID) },
		"api 1.0.0": func(s *SealPublic) { s.Config.APIVersion = filecoin.V1_0_0 },
		"8 MiB":     func(s *SealPublic) { s.Config.SectorSize = filecoin.SectorSize8MiB },
	} {
		s := p.public
		mutate(&s)
		ok, err := VerifySeal(p.vk, p.proof, s)
		if err != nil || ok {
			t.Errorf("%s changed: ok=%v err=%v, want a rejection", name, ok, err)
		}
	}
	bad := append([]byte(nil), p.proof...)
	bad[50] ^= 1
	if ok, err := VerifySeal(p.vk, bad, p.public); ok {
		t.Errorf("corrupted proof accepted (err %v)", err)
	}
}

func TestVerifySealErrors(t *testing.T) {
	p := loadPolka(t)
	var rBytes [32]byte
	fr32TooBig := fr.Modulus().FillBytes(rBytes[:])
	slices.Reverse(fr32TooBig)
	for _, tc := range []struct {
		name   string
		mutate func(s *SealPublic) []byte
		err    error
	}{
		{"short proof", func(s *SealPublic) []byte { return p.proof[:191] }, ErrProofLength},
		{"two proofs", func(s *SealPublic) []byte { return append(append([]byte(nil), p.proof...), p.proof...) }, ErrProofLength},
		{"zero comm_d", func(s *SealPublic) []byte { s.CommD = [32]byte{}; return p.proof }, ErrZeroCommitment},
		{"zero comm_r", func(s *SealPublic) []byte { s.CommR = [32]byte{}; return p.proof }, ErrZeroCommitment},
		{"comm_r = r", func(s *SealPublic) []byte { s.CommR = [32]byte(fr32TooBig); return p.proof }, ErrNonCanonical},
		{"NI", func(s *SealPublic) []byte { s.Config.Mode = filecoin.NonInteractive; return p.proof }, ErrUnsupported},
		{"synthetic before 1.2", func(s *SealPublic) []byte {
			s.Config.Mode, s.Config.APIVersion = filecoin.Synthetic, filecoin.V1_1_0
			return p.proof
		}, ErrConfig},
		{"bad size", func(s *SealPublic) []byte { s.Config.SectorSize = 4096 * 3; return p.proof }, ErrConfig},
		{"not a proof", func(s *SealPublic) []byte { return make([]byte, 192) }, groth16.ErrInvalidEncoding},
	} {
		s := p.public
		proof := tc.mutate(&s)
		ok, err := VerifySeal(p.vk, proof, s)
		if ok || !errors.Is(err, tc.err) {
			t.Errorf("%s: ok=%v err=%v, want %v", tc.name, ok, err, tc.err)
		}
	}
	short := *p.vk
	short.IC = short.IC[:39]
	if ok, err := VerifySeal(&short, p.proof, p.public); ok || !errors.Is(err, groth16.ErrInputCount) {
		t.Errorf("vk with 38 inputs: ok=%v err=%v", ok, err)
	}
}

// TestSynthChallengesVector pins test_synth_challenges_against_hardcoded.
func TestSynthChallengesVector(t *testing.T) {
	var tv struct {
		Synth struct {
			Params struct {
				Nodes uint64 `json:"sector_nodes"`
				Count int    `json:"num_synth_challenges"`
				N     int    `json:"num_porep_challenges"`
				Rand  string `json:"porep_challenge_randomness_hex"`
			} `json:"params"`
			Synth []uint64 `json:"expected_synth_challenges"`
			PoRep []uint64
		} `json:"synthetic_challenges"`
	}
	golden.ReadJSON(t, testdata("upstream", "test_vectors.json"), &tv)
	sv := tv.Synth
	// The key has a comma, which struct tags cannot name.
	var raw struct {
		Synth map[string]json.RawMessage `json:"synthetic_challenges"`
	}
	golden.ReadJSON(t, testdata("upstream", "test_vectors.json"), &raw)
	if err := json.Unmarshal(raw.Synth["expected_porep_challenges (gen_porep_challenges(10,[1;32]))"], &sv.PoRep); err != nil {
		t.Fatal(err)
	}
	if len(sv.Synth) != 21 || len(sv.PoRep) != 10 {
		t.Fatalf("vector file: %d synth, %d porep challenges", len(sv.Synth), len(sv.PoRep))
	}
	var replicaID, commR [32]byte
	replicaID[0], commR[0] = 55, 101 // Fr::from(55), Fr::from(101) as LE bytes
	s := NewSynthChallengesN(sv.Params.Nodes, replicaID, commR, sv.Params.Count)
	if got := s.All(); !slices.Equal(got, sv.Synth) {
		t.Errorf("synthetic challenges %v, want %v", got, sv.Synth)
	}
	for i := s.Count() - 1; i >= 0; i-- {
		if got := s.Challenge(i); got != sv.Synth[i] {
			t.Errorf("Challenge(%d) = %d, want %d", i, got, sv.Synth[i])
		}
	}
	seed := golden.Hex32(t, sv.Params.Rand)
	if got := s.PoRepChallenges(seed, 0, sv.Params.N); !slices.Equal(got, sv.PoRep) {
		t.Errorf("porep challenges %v, want %v", got, sv.PoRep)
	}
	// Partitions of 2 take consecutive slices of the same selection.
	for k := range 5 {
		if got := s.PoRepChallenges(seed, k, 2); !slices.Equal(got, sv.PoRep[2*k:2*k+2]) {
			t.Errorf("partition %d: %v, want %v", k, got, sv.PoRep[2*k:2*k+2])
		}
	}
	// The default count is min(nodes, 2^18).
	if n := NewSynthChallenges(1<<30, replicaID, commR).Count(); n != 1<<18 {
		t.Errorf("default count for 2^30 nodes: %d", n)
	}
	if n := NewSynthChallenges(64, replicaID, commR).Count(); n != 64 {
		t.Errorf("default count for 64 nodes: %d", n)
	}
}

// TestChallengePartitions mirrors upstream's challenge_partition_equivalence:
// partition k of n challenges is slice k of one partition of all of them.
func TestChallengePartitions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var replicaID, seed, commR [32]byte
	for i := range 32 {
		replicaID[i], seed[i], commR[i] = byte(r.Uint32()), byte(r.Uint32()), byte(r.Uint32())
	}
	const nodes, n, parts = 1 << 30, 18, 10
	allI := InteractiveChallenges(nodes, replicaID, seed, 0, n*parts)
	allN := NIChallenges(nodes, replicaID, commR, 0, n*parts)
	for k := range parts {
		if got := InteractiveChallenges(nodes, replicaID, seed, k, n); !slices.Equal(got, allI[k*n:(k+1)*n]) {
			t.Errorf("interactive partition %d differs", k)
		}
		if got := NIChallenges(nodes, replicaID, commR, k, n); !slices.Equal(got, allN[k*n:(k+1)*n]) {
			t.Errorf("NI partition %d differs", k)
		}
	}
	for _, c := range append(allI, allN...) {
		if c == 0 || c >= nodes {
			t.Fatalf("challenge %d outside [1, nodes)", c)
		}
	}
	if slices.Equal(allI, allN) {
		t.Fatal("interactive and NI challenges coincide")
	}
}

func TestChallengeFromDigest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var x [32]byte
		for i := range x {
			x[i] = byte(r.Uint32())
		}
		nodes := uint64(2) + r.Uint64N(1<<32-2)
		le := slices.Clone(x[:])
		slices.Reverse(le)
		want := new(big.Int).SetBytes(le)
		want.Mod(want, new(big.Int).SetUint64(nodes-1))
		if got := challengeFromDigest(&x, nodes); got != want.Uint64()+1 {
			t.Fatalf("challengeFromDigest(%x, %d) = %d, want %d", x, nodes, got, want.Uint64()+1)
		}
	}
	var max [32]byte
	for i := range max {
		max[i] = 0xff
	}
	if got := challengeFromDigest(&max, 2); got != 1 {
		t.Errorf("2 nodes: challenge %d, want 1", got)
	}
}

func TestConfigFor(t *testing.T) {
	for _, p := range filecoin.SealProofs() {
		c, err := ConfigFor(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%v: %v", p, err)
		}
		if c.Partitions() != p.Partitions() || c.ChallengesPerPartition() != p.ChallengesPerPartition() {
			t.Errorf("%v: %d×%d, want %d×%d", p, c.Partitions(), c.ChallengesPerPartition(), p.Partitions(), p.ChallengesPerPartition())
		}
		if binary.LittleEndian.Uint64(c.PoRepID[:8]) != uint64(p) {
			t.Errorf("%v: porep_id %x", p, c.PoRepID)
		}
	}
	var tv struct {
		IDs struct {
			IDs map[string]uint64 `json:"ids"`
		} `json:"porep_ids_by_registered_proof"`
	}
	golden.ReadJSON(t, testdata("upstream", "test_vectors.json"), &tv)
	if len(tv.IDs.IDs) != 10 {
		t.Fatalf("%d porep ids in the vector file", len(tv.IDs.IDs))
	}
	for name, id := range tv.IDs.IDs {
		p, err := filecoin.ParseSealProof(name)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := ConfigFor(p)
		var want [32]byte
		binary.LittleEndian.PutUint64(want[:8], id)
		if c.PoRepID != want {
			t.Errorf("%s: porep_id %x, want id %d", name, c.PoRepID, id)
		}
	}
	if _, err := ConfigFor(20); !errors.Is(err, ErrConfig) {
		t.Errorf("ConfigFor(20): %v", err)
	}
	for _, c := range []Config{
		{SectorSize: 1000, APIVersion: filecoin.V1_1_0},
		{SectorSize: filecoin.SectorSize2KiB},
		{SectorSize: filecoin.SectorSize2KiB, APIVersion: filecoin.V1_1_0, Mode: 7},
		{SectorSize: filecoin.SectorSize2KiB, APIVersion: filecoin.V1_0_0, Mode: filecoin.NonInteractive},
	} {
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
