package post

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/jsonfile"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// PublicFile is the public-values file `cuzk post vanilla` writes next
// to the vanilla proofs: everything verify-post needs. Its field names are
// those of the rustref PoSt files (testdata/rustref/post), so it reads
// those too.
type PublicFile struct {
	Kind               string             `json:"kind,omitempty"`
	RegisteredProof    int64              `json:"registered_proof"`
	RegisteredProofAPI string             `json:"registered_proof_api,omitempty"`
	Randomness         string             `json:"randomness"`
	MinerID            *uint64            `json:"miner_id,omitempty"`
	ProverID           string             `json:"prover_id,omitempty"`
	PartitionIndex     int                `json:"partition_index"`
	Sectors            []PublicFileSector `json:"sectors"`
	// SectorSet and WinningSectorIndex: for WinningPoSt, the sectors it
	// chose among and the index generate_winning_post_sector_challenge drew.
	SectorSet          []uint64 `json:"sector_set,omitempty"`
	WinningSectorIndex *uint64  `json:"winning_sector_index,omitempty"`
	VanillaProofs      string   `json:"vanilla_proofs_file,omitempty"`
	// MadeWithoutSealing is set on the public values of made-up sectors
	// (`cuzk post gen`): what they are, so that no one takes them for a
	// sealed sector's.
	MadeWithoutSealing string `json:"made_without_sealing,omitempty"`
}

// PublicFileSector is a proven sector in a PublicFile: its id and comm_r
// (32 little-endian bytes in hex).
type PublicFileSector struct {
	SectorID uint64 `json:"sector_id"`
	CommR    string `json:"comm_r"`
}

// ReadPublicFile reads a public-values file (WriteVanilla's, or a rustref
// PoSt JSON: unknown fields are ignored).
func ReadPublicFile(path string) (*PublicFile, error) {
	return jsonfile.Read(path, ParsePublicFile)
}

// ParsePublicFile decodes a public-values file's contents; one without
// its registered proof, randomness or sectors is an error.
func ParsePublicFile(raw []byte) (*PublicFile, error) {
	var pub PublicFile
	if err := json.Unmarshal(raw, &pub); err != nil {
		return nil, err
	}
	switch {
	case !jsonfile.Has(raw, "registered_proof"): // not 0, WinningPoSt 2 KiB
		return nil, errors.New("no registered_proof")
	case pub.Randomness == "":
		return nil, errors.New("no randomness")
	case len(pub.Sectors) == 0:
		return nil, errors.New("no sectors")
	}
	return &pub, nil
}

// LoadSectors loads the sector directories one PoSt covers (sectordir's
// layout), in order: distinct sectors of one size and one prover.
func LoadSectors(dirs []string) ([]*sectordir.Sector, error) {
	sectors := make([]*sectordir.Sector, len(dirs))
	seen := map[uint64]string{}
	for i, d := range dirs {
		s, err := sectordir.Load(d)
		if err != nil {
			return nil, err
		}
		sectors[i] = s
		if prev, dup := seen[s.ID]; dup {
			return nil, fmt.Errorf("sector dirs %s and %s both hold sector %d", prev, d, s.ID)
		}
		seen[s.ID] = d
		if i > 0 && s.SectorSize() != sectors[0].SectorSize() {
			return nil, fmt.Errorf("sector dir %s holds a %v sector, %s a %v one", d, s.SectorSize(), dirs[0], sectors[0].SectorSize())
		}
		if i > 0 && s.ProverID != sectors[0].ProverID {
			return nil, fmt.Errorf("sector dir %s has prover id %x, %s has %x (one proof covers one miner's sectors)", d, s.ProverID, dirs[0], sectors[0].ProverID)
		}
	}
	return sectors, nil
}

// WriteVanilla makes the vanilla proofs of partition k of p over sectors
// (LoadSectors) with randomness and writes them to out as Curio sends
// them, and their public values to pubPath. A WindowPoSt proves the
// sectors in order; a WinningPoSt draws its sector from them as
// generate_winning_post_sector_challenge does.
func WriteVanilla(ctx context.Context, p filecoin.RegisteredPoStProof, randomness [32]byte, sectors []*sectordir.Sector, k, workers int, out, pubPath string) (*PublicFile, error) {
	if len(sectors) == 0 {
		return nil, errors.New("no sectors")
	}
	kind := p.Type()
	pub := &PublicFile{Kind: kind.String(), RegisteredProof: int64(p), RegisteredProofAPI: p.String(),
		Randomness: hex.EncodeToString(randomness[:]), MinerID: sectors[0].MinerID,
		ProverID: hex.EncodeToString(sectors[0].ProverID[:]), PartitionIndex: k, VanillaProofs: out}
	// prove[i] is proven as the i-th sector of partition k.
	prove := sectors
	if kind == filecoin.WinningPoSt {
		// The challenges of the drawn sector are then those of sector
		// index 0 (generate_fallback_sector_challenges over that sector).
		idx, err := WinningSectorChallenges(p, randomness, sectors[0].ProverID, uint64(len(sectors)))
		if err != nil {
			return nil, err
		}
		prove = []*sectordir.Sector{sectors[idx[0]]}
		pub.WinningSectorIndex = &idx[0]
		for _, s := range sectors {
			pub.SectorSet = append(pub.SectorSet, s.ID)
		}
	} else if len(sectors) > p.SectorCount() {
		return nil, fmt.Errorf("%d sector dirs, a %v partition holds at most %d sectors", len(sectors), p, p.SectorCount())
	}
	entries, err := GenerateVanillaProofs(ctx, p, randomness, prove, k, workers)
	if err != nil {
		return nil, err
	}
	for _, s := range prove {
		b := fr32.FromElement(&s.CommR)
		pub.Sectors = append(pub.Sectors, PublicFileSector{SectorID: s.ID, CommR: hex.EncodeToString(b[:])})
	}
	if err := sectordir.WriteProofList(out, entries); err != nil {
		return nil, err
	}
	pj, err := json.MarshalIndent(pub, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(pubPath, append(pj, '\n'), 0o644); err != nil {
		return nil, err
	}
	return pub, nil
}
