package post

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/detstream"
	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// MadeUpProvenance is what the made_without_sealing field of a made-up
// input's public values and its marker file say.
const MadeUpProvenance = "cuzk post gen: consistent PoSt vanilla proofs of sectors made up without sealing (sparse tree_r_last: the challenged leaves and comm_c pseudo-random, every other leaf zero); for proving and benchmarks, never a sealed sector"

// madeUpTag separates the made-up values from anything else hashed with a
// prover id.
const madeUpTag = "cuzk-post-gen-v1"

// RandomnessLabel is the detstream label of the default PoSt randomness,
// the rustref PoSt goldens' (tools/rustref post.rs randomness()).
const RandomnessLabel = "cuzk-post-randomness-v1"

// DefaultRandomness is the randomness `cuzk post gen` uses when given
// none: the first 32 bytes of detstream(RandomnessLabel), top two bits
// cleared, as the rustref PoSt goldens draw it.
func DefaultRandomness() [32]byte {
	e := detstream.New(RandomnessLabel).Fr()
	return fr32.FromElement(&e)
}

// MadeUpParams say which proof to make up inputs for.
type MadeUpParams struct {
	Proof      filecoin.RegisteredPoStProof
	MinerID    uint64
	Randomness [32]byte
	// Sectors is, for a WindowPoSt, the number of sectors proven (ids
	// FirstSector, FirstSector+1, …, in partitions of Proof.SectorCount());
	// for a WinningPoSt, the size of the sector set (those ids) the proven
	// sector is drawn from.
	Sectors     int
	FirstSector uint64
}

// MadeUp is a made-up PoSt input: per partition, the vanilla_proofs entries
// Curio would send and the sectors' public values.
type MadeUp struct {
	Params   MadeUpParams
	ProverID [32]byte
	// Partitions[k] is WindowPoSt partition k (one for a WinningPoSt).
	Partitions []MadeUpPartition
	// WinningIndex is, for a WinningPoSt, the index into the sector set
	// generate_winning_post_sector_challenge drew.
	WinningIndex *uint64
}

// MadeUpPartition is one partition's vanilla proofs (bincode
// FallbackPoStSectorProof, one per sector) and its sectors in order.
type MadeUpPartition struct {
	Entries [][]byte
	Sectors []PublicSector
}

// Public are the public values of the whole proof: every sector, the
// partitions numbered from 0.
func (m *MadeUp) Public() Public {
	pub := Public{Proof: m.Params.Proof, Randomness: m.Params.Randomness}
	for _, pt := range m.Partitions {
		pub.Sectors = append(pub.Sectors, pt.Sectors...)
	}
	return pub
}

// madeUpElement is sha256(tag ‖ prover_id ‖ u64_le(sector) ‖ what ‖
// u64_le(n)) trimmed to 254 bits: the same sector gets the same values
// every time.
func madeUpElement(proverID *[32]byte, sector uint64, what byte, n uint64) fr.Element {
	var msg [len(madeUpTag) + 32 + 8 + 1 + 8]byte
	o := copy(msg[:], madeUpTag)
	o += copy(msg[o:], proverID[:])
	binary.LittleEndian.PutUint64(msg[o:], sector)
	msg[o+8] = what
	binary.LittleEndian.PutUint64(msg[o+9:], n)
	d := sha256.Sum256(msg[:])
	fr32.TrimToFr32(&d)
	e, err := fr32.ToElement(d)
	if err != nil {
		panic(err) // below 2^254 < r
	}
	return e
}

// madeUpSector makes sector id's tree_r_last, sparse: the leaves the
// challenges open are pseudo-random, every other one is zero; comm_c is
// pseudo-random too, so comm_r = Poseidon2(comm_c, comm_r_last) differs
// from sector to sector as real ones do.
func madeUpSector(p filecoin.RegisteredPoStProof, proverID *[32]byte, randomness [32]byte, id uint64, sectorIndex int) (*VanillaProof, error) {
	challenges, err := VanillaChallenges(p, randomness, id, sectorIndex)
	if err != nil {
		return nil, err
	}
	shape, err := TreeShape(p.SectorSize())
	if err != nil {
		return nil, err
	}
	set := make(map[int]fr.Element, len(challenges))
	for _, c := range challenges {
		set[int(c)] = madeUpElement(proverID, id, 'L', c)
	}
	tree, err := merkle.BuildSparsePoseidon(shape, int(p.SectorSize().Nodes()), fr.Element{}, set)
	if err != nil {
		return nil, fmt.Errorf("sector %d: tree_r_last: %w", id, err)
	}
	return GenerateVanillaProof(p, randomness, id, sectorIndex, tree, madeUpElement(proverID, id, 'C', 0))
}

// GenerateMadeUp makes the vanilla proofs of p.Sectors made-up sectors
// (see madeUpSector) with challenges derived exactly as upstream derives
// them (VanillaChallenges; for a WinningPoSt the sector drawn by
// WinningSectorChallenges from the set), then checks every partition as
// the daemon will: decoded, laid out as the circuit's partition, verified
// natively. workers bounds the goroutines (< 1 means 1).
func GenerateMadeUp(ctx context.Context, p MadeUpParams, workers int) (*MadeUp, error) {
	pr := p.Proof
	if err := checkProof(pr); err != nil {
		return nil, err
	}
	if err := CheckRandomness(p.Randomness); err != nil {
		return nil, err
	}
	if p.Sectors < 1 {
		return nil, fmt.Errorf("%w: %d sectors", ErrSectors, p.Sectors)
	}
	if p.FirstSector+uint64(p.Sectors) < p.FirstSector {
		return nil, fmt.Errorf("%w: sector ids %d + %d overflow", ErrSectors, p.FirstSector, p.Sectors)
	}
	workers = max(workers, 1)
	m := &MadeUp{Params: p, ProverID: filecoin.ProverID(p.MinerID)}
	// ids[k] are partition k's sectors, each challenged as sector index
	// k·sector_count + i.
	var ids [][]uint64
	if pr.Type() == filecoin.WinningPoSt {
		idx, err := WinningSectorChallenges(pr, p.Randomness, m.ProverID, uint64(p.Sectors))
		if err != nil {
			return nil, err
		}
		m.WinningIndex = &idx[0]
		ids = [][]uint64{{p.FirstSector + idx[0]}}
	} else {
		per := pr.SectorCount()
		for lo := 0; lo < p.Sectors; lo += per {
			part := make([]uint64, min(per, p.Sectors-lo))
			for i := range part {
				part[i] = p.FirstSector + uint64(lo+i)
			}
			ids = append(ids, part)
		}
	}
	for k, part := range ids {
		entries := make([][]byte, len(part))
		sectors := make([]PublicSector, len(part))
		err := par.Do(ctx, len(part), 16, workers, func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				v, err := madeUpSector(pr, &m.ProverID, p.Randomness, part[i], k*pr.SectorCount()+i)
				if err != nil {
					return err
				}
				if entries[i], err = v.Encode(pr); err != nil {
					return fmt.Errorf("sector %d: %w", part[i], err)
				}
				sectors[i] = PublicSector{ID: v.SectorID, CommR: v.CommR}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("post: made-up partition %d: %w", k, err)
		}
		if err := checkEntries(ctx, pr, p.Randomness, entries, sectors, k, workers); err != nil {
			return nil, fmt.Errorf("post: made-up partition %d does not verify: %w", k, err)
		}
		m.Partitions = append(m.Partitions, MadeUpPartition{Entries: entries, Sectors: sectors})
	}
	return m, nil
}

// checkEntries checks vanilla_proofs entries of partition k as the daemon
// does (decode, NewPartition, Verify) and that they prove sectors.
func checkEntries(ctx context.Context, p filecoin.RegisteredPoStProof, randomness [32]byte, entries [][]byte, sectors []PublicSector, k, workers int) error {
	vs, err := DecodeVanillaProofs(entries, p)
	if err != nil {
		return err
	}
	pt, err := NewPartition(p, randomness, vs, k)
	if err != nil {
		return err
	}
	if err := pt.Verify(ctx, workers); err != nil {
		return err
	}
	return pt.CheckSectors(sectors)
}

// MadeUpMarkerSuffix names the file written beside every made-up vanilla
// proofs file, as `cuzk c1 gen` marks its C1 outputs: the vanilla proofs
// format has no field for it.
const MadeUpMarkerSuffix = ".MADE-WITHOUT-SEALING"

// MadeUpFiles are the files WriteFiles wrote: per partition the vanilla
// proofs, their public values and marker; Public is the whole proof's
// public values (the one partition's file when there is one partition).
type MadeUpFiles struct {
	Vanilla, PartitionPublic, Markers []string
	Public                            string
}

// PublicFile is partition k's public-values file (k < 0: the whole
// proof's, every sector, partition 0), naming vanilla as its vanilla
// proofs file.
func (m *MadeUp) PublicFile(k int, vanilla string) *PublicFile {
	p := m.Params.Proof
	pub := &PublicFile{Kind: p.Type().String(), RegisteredProof: int64(p), RegisteredProofAPI: p.String(),
		Randomness: hex.EncodeToString(m.Params.Randomness[:]), MinerID: &m.Params.MinerID,
		ProverID: hex.EncodeToString(m.ProverID[:]), PartitionIndex: max(k, 0), VanillaProofs: vanilla,
		MadeWithoutSealing: MadeUpProvenance}
	sectors := m.Public().Sectors
	if k >= 0 {
		sectors = m.Partitions[k].Sectors
	}
	for _, s := range sectors {
		b := fr32.FromElement(&s.CommR)
		pub.Sectors = append(pub.Sectors, PublicFileSector{SectorID: s.ID, CommR: hex.EncodeToString(b[:])})
	}
	if m.WinningIndex != nil {
		pub.WinningSectorIndex = m.WinningIndex
		for i := range m.Params.Sectors {
			pub.SectorSet = append(pub.SectorSet, m.Params.FirstSector+uint64(i))
		}
	}
	return pub
}

// WriteFiles writes m into dir (made if missing): with one partition
// vanilla.json (a JSON array of base64 bincode FallbackPoStSectorProofs,
// as Curio sends vanilla_proofs) and public.json (what prove-post,
// verify-post and rustref read); with several, vanilla-pK.json and
// public-pK.json per partition K and public.json for the whole proof.
// Every vanilla file gets a marker file beside it (MadeUpMarkerSuffix).
func (m *MadeUp) WriteFiles(dir string) (MadeUpFiles, error) {
	var f MadeUpFiles
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	one := len(m.Partitions) == 1
	for k, pt := range m.Partitions {
		vname, pname := "vanilla.json", "public.json"
		if !one {
			vname, pname = fmt.Sprintf("vanilla-p%d.json", k), fmt.Sprintf("public-p%d.json", k)
		}
		vpath, ppath := filepath.Join(dir, vname), filepath.Join(dir, pname)
		if err := sectordir.WriteProofList(vpath, pt.Entries); err != nil {
			return f, err
		}
		if err := writeJSON(ppath, m.PublicFile(k, vname)); err != nil {
			return f, err
		}
		marker := fmt.Sprintf("%s\n%s: %v, partition %d of %d, %d sector(s) from %d, randomness %x\n",
			MadeUpProvenance, vname, m.Params.Proof, k, len(m.Partitions), len(pt.Sectors), pt.Sectors[0].ID, m.Params.Randomness)
		if err := os.WriteFile(vpath+MadeUpMarkerSuffix, []byte(marker), 0o644); err != nil {
			return f, err
		}
		f.Vanilla = append(f.Vanilla, vpath)
		f.PartitionPublic = append(f.PartitionPublic, ppath)
		f.Markers = append(f.Markers, vpath+MadeUpMarkerSuffix)
	}
	f.Public = filepath.Join(dir, "public.json")
	if !one {
		if err := writeJSON(f.Public, m.PublicFile(-1, "")); err != nil {
			return f, err
		}
	}
	return f, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
