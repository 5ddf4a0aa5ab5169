package main

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// listFlag collects a repeatable flag whose values may also be comma lists.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v == "" {
			return fmt.Errorf("empty entry in %q", s)
		}
		*l = append(*l, v)
	}
	return nil
}

// postPublic is the public-values file post vanilla writes next to the
// vanilla proofs: everything verify-post needs (--public). Its field names
// are those of the rustref PoSt files (testdata/rustref/post), so
// verify-post reads those too.
type postPublic struct {
	Kind               string         `json:"kind,omitempty"`
	RegisteredProof    int64          `json:"registered_proof"`
	RegisteredProofAPI string         `json:"registered_proof_api,omitempty"`
	Randomness         string         `json:"randomness"`
	MinerID            *uint64        `json:"miner_id,omitempty"`
	ProverID           string         `json:"prover_id,omitempty"`
	PartitionIndex     int            `json:"partition_index"`
	Sectors            []publicSector `json:"sectors"`
	// SectorSet and WinningSectorIndex: for WinningPoSt, the sectors it
	// chose among and the index generate_winning_post_sector_challenge drew.
	SectorSet          []uint64 `json:"sector_set,omitempty"`
	WinningSectorIndex *uint64  `json:"winning_sector_index,omitempty"`
	VanillaProofs      string   `json:"vanilla_proofs_file,omitempty"`
}

type publicSector struct {
	SectorID uint64 `json:"sector_id"`
	CommR    string `json:"comm_r"`
}

// parseRandomness reads PoSt randomness: 32 bytes that must be a canonical
// field element, as filecoin-proofs' as_safe_commitment requires.
func parseRandomness(s string) ([32]byte, error) {
	b, err := parseHex32(s)
	if err != nil {
		return b, err
	}
	if err := post.CheckRandomness(b); err != nil {
		return b, fmt.Errorf("%x is not a canonical field element (the chain's randomness has the top two bits of its last byte cleared)", b)
	}
	return b, nil
}

// postProofFor picks the registered PoSt proof of kind for sectors of
// size: an explicit id must be of that kind and size; the default is the
// size's winning proof, or its window proof with the V1_2 challenge rule
// (ids 10..14, go-state-types' StackedDrgWindow*V1_1), what the network
// uses.
func postProofFor(kind filecoin.PoStType, size filecoin.SectorSize, id int64, given bool) (filecoin.RegisteredPoStProof, error) {
	if given {
		if id < 0 {
			return 0, fmt.Errorf("--registered-proof %d: not a PoSt proof id (0..4 winning, 5..14 window)", id)
		}
		p, err := filecoin.PoStProofFromID(uint64(id))
		if err != nil {
			return 0, fmt.Errorf("--registered-proof: %w", err)
		}
		if p.Type() != kind {
			return 0, fmt.Errorf("--registered-proof %d (%v) is a %v proof, --kind is %v (%s)", id, p, p.Type(), kind, postIDRange(kind))
		}
		if p.SectorSize() != size {
			return 0, fmt.Errorf("--registered-proof %d (%v) is for %v sectors, the sector is %v", id, p, p.SectorSize(), size)
		}
		return p, nil
	}
	for _, p := range filecoin.PoStProofs() {
		if p.Type() == kind && p.SectorSize() == size && (kind == filecoin.WinningPoSt || p.APIVersion() == filecoin.V1_2_0) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no %v PoSt proof for %v sectors", kind, size)
}

func postIDRange(kind filecoin.PoStType) string {
	if kind == filecoin.WinningPoSt {
		return "ids 0..4"
	}
	return "ids 5..14"
}

// parsePoStKind reads window-post or winning-post by any of their names
// (proofkind's aliases, window and winning among them).
func parsePoStKind(s string) (filecoin.PoStType, error) {
	if s == "" {
		return 0, fmt.Errorf("--kind is required (window-post or winning-post)")
	}
	switch k, _ := proofkind.Parse(s); k {
	case proofkind.WindowPoSt:
		return filecoin.WindowPoSt, nil
	case proofkind.WinningPoSt:
		return filecoin.WinningPoSt, nil
	}
	return 0, fmt.Errorf("--kind %q: want window-post or winning-post", s)
}

func runPostVanilla(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("post vanilla", stderr)
	var dirs listFlag
	kindFlag := fs.String("kind", "", "proof `kind`: window-post or winning-post (window and winning work too)")
	fs.Var(&dirs, "sector-dir", "sector `directory` written by 'cuzk seal --out' or 'cuzk snap encode' (repeat or comma-separate: window, the partition's sectors in order; winning, the sector set to draw from)")
	randFlag := fs.String("randomness", "", "PoSt randomness, 64 hex characters (a canonical field element)")
	out := fs.String("out", "", "output `file`: JSON array of base64 bincode FallbackPoStSectorProof, as Curio sends vanilla_proofs")
	pubPath := fs.String("public", "", "public-values `file` for verify-post (default: --out with .public.json)")
	proofID := fs.Int64("registered-proof", -1, "registered PoSt proof id: winning 0..4, window 5..9 (V1 challenges) or 10..14 (V1_2; default)")
	partition := fs.Int("partition", 0, "window partition index k (before V1_2 it numbers the sectors in the challenges)")
	workers := fs.Int("workers", 0, "worker goroutines for the self-check (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk post vanilla")
	if *workers <= 0 {
		*workers = runtime.NumCPU()
	}
	kind, err := parsePoStKind(*kindFlag)
	if err != nil {
		return fail("%v", err)
	}
	if len(dirs) == 0 || *randFlag == "" || *out == "" {
		return fail("--sector-dir, --randomness and --out are required")
	}
	rnd, err := parseRandomness(*randFlag)
	if err != nil {
		return fail("--randomness: %v", err)
	}
	if *partition < 0 || kind == filecoin.WinningPoSt && *partition != 0 {
		return fail("--partition %d: winning has partition 0 only, window takes k >= 0", *partition)
	}
	sectors := make([]*sectordir.Sector, len(dirs))
	seen := map[uint64]string{}
	for i, d := range dirs {
		if sectors[i], err = sectordir.Load(d); err != nil {
			return fail("%v", err)
		}
		s := sectors[i]
		if prev, dup := seen[s.ID]; dup {
			return fail("sector dirs %s and %s both hold sector %d", prev, d, s.ID)
		}
		seen[s.ID] = d
		if i > 0 && s.SectorSize() != sectors[0].SectorSize() {
			return fail("sector dir %s holds a %v sector, %s a %v one", d, s.SectorSize(), dirs[0], sectors[0].SectorSize())
		}
		if i > 0 && s.ProverID != sectors[0].ProverID {
			return fail("sector dir %s has prover id %x, %s has %x (one proof covers one miner's sectors)", d, s.ProverID, dirs[0], sectors[0].ProverID)
		}
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "registered-proof" })
	p, err := postProofFor(kind, sectors[0].SectorSize(), *proofID, given)
	if err != nil {
		return fail("%v", err)
	}

	pub := postPublic{Kind: kind.String(), RegisteredProof: int64(p), RegisteredProofAPI: p.String(),
		Randomness: hex.EncodeToString(rnd[:]), MinerID: sectors[0].MinerID,
		ProverID: hex.EncodeToString(sectors[0].ProverID[:]), PartitionIndex: *partition}
	// prove[i] is proven as the i-th sector of partition k.
	prove := sectors
	if kind == filecoin.WinningPoSt {
		// generate_winning_post_sector_challenge draws the proven sector
		// from the whole set; its challenges are then those of sector
		// index 0 (generate_fallback_sector_challenges over that sector).
		idx, err := post.WinningSectorChallenges(p, rnd, sectors[0].ProverID, uint64(len(sectors)))
		if err != nil {
			return fail("%v", err)
		}
		prove = []*sectordir.Sector{sectors[idx[0]]}
		pub.WinningSectorIndex = &idx[0]
		for _, s := range sectors {
			pub.SectorSet = append(pub.SectorSet, s.ID)
		}
	} else if len(sectors) > p.SectorCount() {
		return fail("%d sector dirs, a %v partition holds at most %d sectors", len(sectors), p, p.SectorCount())
	}

	entries, err := post.GenerateVanillaProofs(ctx, p, rnd, prove, *partition, *workers)
	if err != nil {
		return fail("%v", err)
	}
	for _, s := range prove {
		pub.Sectors = append(pub.Sectors, publicSector{SectorID: s.ID, CommR: frHex(&s.CommR)})
	}

	if *pubPath == "" {
		*pubPath = strings.TrimSuffix(*out, ".json") + ".public.json"
	}
	pub.VanillaProofs = *out
	if err := writeBase64List(*out, entries); err != nil {
		return fail("%v", err)
	}
	pj, _ := json.MarshalIndent(&pub, "", "  ")
	if err := os.WriteFile(*pubPath, append(pj, '\n'), 0o644); err != nil {
		return fail("%v", err)
	}
	ids := make([]string, len(pub.Sectors))
	for i, s := range pub.Sectors {
		ids[i] = fmt.Sprintf("%d:%s", s.SectorID, s.CommR)
	}
	fmt.Fprintf(stdout, "%v vanilla proofs (%v, partition %d): %d sector(s), wrote %s and %s\n", kind, p, *partition, len(entries), *out, *pubPath)
	fmt.Fprintf(stdout, "verify a proof of them with: cuzk verify-post --vk FILE --proof FILE --public %s\n  (or --registered-proof %d --randomness %s --sectors %s --partition %d)\n",
		*pubPath, p, pub.Randomness, strings.Join(ids, ","), *partition)
	return exitOK
}

// writeBase64List writes entries as Curio's vanilla_proofs JSON: an array
// of standard base64 strings, compact, newline-terminated (the form of
// the rustref files).
func writeBase64List(path string, entries [][]byte) error {
	l := make([]string, len(entries))
	for i, e := range entries {
		l[i] = base64.StdEncoding.EncodeToString(e)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func frHex(e *fr.Element) string {
	b := fr32.FromElement(e)
	return hex.EncodeToString(b[:])
}
