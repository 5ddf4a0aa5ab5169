package sectordir

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/merkle"
)

// The layout's names (slash-separated, relative to the sector directory)
// and version.
const (
	Format        = "cuzk-sector"
	Version       = 1
	ManifestName  = "sector.json"
	SealedName    = "sealed"
	PAuxName      = "cache/p_aux"
	TreeRLastName = "cache/tree-r-last.dat"
)

// MaxSectorSize is the largest sector Load and Write take: both hold the
// whole replica and tree in memory (Load about twice the sector size at
// its peak), and cuzk seals nothing larger.
const MaxSectorSize = filecoin.SectorSize512MiB

// Errors returned by Load and Write.
var (
	// ErrNotSector is returned when a directory has no sector.json.
	ErrNotSector = errors.New("sectordir: not a sector directory")
	// ErrFormat is returned when sector.json is not a cuzk-sector
	// manifest or a field of it is malformed.
	ErrFormat = errors.New("sectordir: malformed manifest")
	// ErrVersion is returned for a manifest of another layout version.
	ErrVersion = errors.New("sectordir: unsupported layout version")
	// ErrCorrupt is returned when a file disagrees with the manifest, with
	// the sector size, or with another file.
	ErrCorrupt = errors.New("sectordir: corrupt sector")
	// ErrTooLarge is returned for sectors above MaxSectorSize.
	ErrTooLarge = errors.New("sectordir: sector too large to hold in memory")
	// ErrInconsistent is returned by Write for a Sector whose values do not
	// fit together (tree shape, sizes, comm_r); nothing is written.
	ErrInconsistent = errors.New("sectordir: inconsistent sector")
)

// Update describes a sector updated by SnapDeals: the update proof and the
// commitments of the sector key it replaced.
type Update struct {
	Proof    filecoin.RegisteredUpdateProof
	CommROld fr.Element
	CommDOld [32]byte
}

// Sector is a sector on disk. Commitments in the Poseidon domain (comm_r,
// comm_c) are field elements; comm_d, a SHA-254 digest, is kept as bytes.
// For an updated sector CommD and CommR are comm_d_new and comm_r_new.
type Sector struct {
	SealProof filecoin.RegisteredSealProof
	ID        uint64
	// MinerID is the miner actor id, or nil when the prover id is not
	// filecoin.ProverID of a known miner.
	MinerID  *uint64
	ProverID [32]byte
	Ticket   [32]byte
	CommD    [32]byte
	CommR    fr.Element
	CommC    fr.Element
	Update   *Update
	// TreeRLast is the replica's tree; its leaves are the replica.
	TreeRLast *merkle.PoseidonTree
}

// SectorSize is the sector's padded size.
func (s *Sector) SectorSize() filecoin.SectorSize { return s.SealProof.SectorSize() }

// CommRLast is tree_r_last's root.
func (s *Sector) CommRLast() fr.Element { return s.TreeRLast.Root() }

// CC reports whether the replica holds committed capacity: a sealed (not
// updated) sector whose comm_d is that of an all-zero sector.
func (s *Sector) CC() bool {
	return s.Update == nil && s.CommD == merkle.EmptySha254Root(s.SealProof.SealSpec().TreeDDepth())
}

// CommR is a sector's comm_r = Poseidon2(comm_c, comm_r_last), comm_r_last
// the root of its tree_r_last (of tree_r_new for an updated sector): the
// one definition PoRep, PoSt and SnapDeals share.
func CommR(commC, commRLast fr.Element) fr.Element {
	return hash.Poseidon(2).Hash([]fr.Element{commC, commRLast})
}

// treeNodes is the number of tree_r_last nodes above the leaves of a
// sealed sector of size, and the tree's shape.
func treeNodes(p filecoin.RegisteredSealProof) (merkle.Shape, int, error) {
	shape := p.SealSpec().Tree()
	arities, err := shape.Arities(int(p.SectorSize().Nodes()))
	if err != nil {
		return shape, 0, err
	}
	n, total := int(p.SectorSize().Nodes()), 0
	for _, a := range arities {
		n /= a
		total += n
	}
	return shape, total, nil
}

// manifest is sector.json.
type manifest struct {
	Format                 string          `json:"format"`
	Version                int             `json:"version"`
	RegisteredSealProof    int64           `json:"registered_seal_proof"`
	RegisteredSealProofAPI string          `json:"registered_seal_proof_api"`
	SectorSize             uint64          `json:"sector_size"`
	SectorID               uint64          `json:"sector_id"`
	MinerID                *uint64         `json:"miner_id,omitempty"`
	ProverID               string          `json:"prover_id"`
	Ticket                 string          `json:"ticket"`
	CommD                  string          `json:"comm_d"`
	CommR                  string          `json:"comm_r"`
	TreeRLastShape         string          `json:"tree_r_last_shape"`
	Update                 *manifestUpdate `json:"update,omitempty"`
	Files                  []manifestFile  `json:"files"`
}

type manifestUpdate struct {
	RegisteredUpdateProof    int64  `json:"registered_update_proof"`
	RegisteredUpdateProofAPI string `json:"registered_update_proof_api"`
	CommROld                 string `json:"comm_r_old"`
	CommDOld                 string `json:"comm_d_old"`
}

type manifestFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

func hexOf(b [32]byte) string { return hex.EncodeToString(b[:]) }

func frHex(e *fr.Element) string { return hexOf(fr32.FromElement(e)) }

// Write stores s in dir (created if missing) in the version 1 layout. The
// manifest is removed first and written last, each file through a
// temporary name, so that an interrupted write leaves no directory Load
// would accept.
func Write(dir string, s *Sector) error {
	p := s.SealProof
	if !p.Valid() {
		return fmt.Errorf("%w: registered seal proof %d", ErrInconsistent, int64(p))
	}
	if p.SectorSize() > MaxSectorSize {
		return fmt.Errorf("%v sector: %w (at most %v)", p.SectorSize(), ErrTooLarge, MaxSectorSize)
	}
	if s.TreeRLast == nil {
		return fmt.Errorf("%w: no tree_r_last", ErrInconsistent)
	}
	shape, _, err := treeNodes(p)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInconsistent, err)
	}
	t := s.TreeRLast
	if t.Shape() != shape || uint64(t.NumLeaves()) != p.SectorSize().Nodes() {
		return fmt.Errorf("%w: tree_r_last %s over %d leaves, a %v sector has %s over %d", ErrInconsistent, t.Shape(), t.NumLeaves(), p.SectorSize(), shape, p.SectorSize().Nodes())
	}
	if CommR(s.CommC, t.Root()) != s.CommR {
		return fmt.Errorf("%w: comm_r is not Poseidon2(comm_c, comm_r_last)", ErrInconsistent)
	}
	if s.MinerID != nil && filecoin.ProverID(*s.MinerID) != s.ProverID {
		return fmt.Errorf("%w: prover id %x is not miner %d's", ErrInconsistent, s.ProverID, *s.MinerID)
	}
	if u := s.Update; u != nil && (!u.Proof.Valid() || u.Proof.SectorSize() != p.SectorSize()) {
		return fmt.Errorf("%w: update proof %v for a %v sector", ErrInconsistent, u.Proof, p.SectorSize())
	}

	leaves := t.Level(0)
	sealed := make([]byte, 0, 32*len(leaves))
	for i := range leaves {
		b := fr32.FromElement(&leaves[i])
		sealed = append(sealed, b[:]...)
	}
	commC, root := fr32.FromElement(&s.CommC), t.Root()
	commRLast := fr32.FromElement(&root)
	paux := append(commC[:], commRLast[:]...)
	var tree []byte
	for l := 1; l <= len(t.Arities()); l++ {
		lvl := t.Level(l)
		for i := range lvl {
			b := fr32.FromElement(&lvl[i])
			tree = append(tree, b[:]...)
		}
	}

	m := manifest{
		Format: Format, Version: Version,
		RegisteredSealProof: int64(p), RegisteredSealProofAPI: p.String(),
		SectorSize: uint64(p.SectorSize()), SectorID: s.ID, MinerID: s.MinerID,
		ProverID: hexOf(s.ProverID), Ticket: hexOf(s.Ticket),
		CommD: hexOf(s.CommD), CommR: frHex(&s.CommR), TreeRLastShape: shape.String(),
	}
	if u := s.Update; u != nil {
		m.Update = &manifestUpdate{RegisteredUpdateProof: int64(u.Proof), RegisteredUpdateProofAPI: u.Proof.String(),
			CommROld: frHex(&u.CommROld), CommDOld: hexOf(u.CommDOld)}
	}
	files := []struct {
		name string
		data []byte
	}{{SealedName, sealed}, {PAuxName, paux}, {TreeRLastName, tree}}

	if err := os.MkdirAll(filepath.Join(dir, "cache"), 0o755); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, ManifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(f.name)), f.data); err != nil {
			return err
		}
		sum := sha256.Sum256(f.data)
		m.Files = append(m.Files, manifestFile{Name: f.name, Size: int64(len(f.data)), SHA256: hex.EncodeToString(sum[:])})
	}
	raw, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, ManifestName), append(raw, '\n'))
}

// writeFile writes data to path through a temporary file in the same
// directory, renamed into place once complete.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	// CreateTemp makes the file private; the sector's files are ordinary.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// Load reads and checks the sector in dir (see the package comment for
// what is checked). Errors name dir, the file and the field or node.
func Load(dir string) (*Sector, error) {
	s, err := load(dir)
	if err != nil {
		return nil, fmt.Errorf("sector dir %s: %w", dir, err)
	}
	return s, nil
}

func load(dir string) (*Sector, error) {
	raw, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		if _, derr := os.Stat(dir); derr != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotSector, derr)
		}
		return nil, fmt.Errorf("%w: no %s (written by cuzk seal --out or cuzk snap encode)", ErrNotSector, ManifestName)
	}
	if err != nil {
		return nil, err
	}
	m, err := parseManifest(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestName, err)
	}
	s, err := m.sector()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestName, err)
	}
	p := s.SealProof
	_, above, err := treeNodes(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", ManifestName, ErrFormat, err)
	}
	want := map[string]int64{SealedName: int64(p.SectorSize()), PAuxName: 64, TreeRLastName: 32 * int64(above)}
	if len(m.Files) != len(want) {
		return nil, fmt.Errorf("%s: files: %d entries, version %d lists %d (%s, %s, %s): %w", ManifestName, len(m.Files), Version, len(want), SealedName, PAuxName, TreeRLastName, ErrFormat)
	}
	data := map[string][]byte{}
	for i, f := range m.Files {
		size, known := want[f.Name]
		switch {
		case !known:
			return nil, fmt.Errorf("%s: files[%d]: unknown file %q: %w", ManifestName, i, f.Name, ErrFormat)
		case data[f.Name] != nil:
			return nil, fmt.Errorf("%s: files[%d]: %s listed twice: %w", ManifestName, i, f.Name, ErrFormat)
		case f.Size != size:
			return nil, fmt.Errorf("%s: files[%d]: %s of %d bytes, a %v sector's is %d: %w", ManifestName, i, f.Name, f.Size, p.SectorSize(), size, ErrCorrupt)
		}
		sum, err := hex.DecodeString(f.SHA256)
		if err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("%s: files[%d].sha256: want 64 hex characters: %w", ManifestName, i, ErrFormat)
		}
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		// The size first, so that a wrong file is not read whole.
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", f.Name, ErrCorrupt, err)
		}
		if st.Size() != size {
			return nil, fmt.Errorf("%s: %d bytes, a %v sector's is %d (truncated, or from another sector): %w", f.Name, st.Size(), p.SectorSize(), size, ErrCorrupt)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", f.Name, ErrCorrupt, err)
		}
		if int64(len(b)) != size {
			return nil, fmt.Errorf("%s: %d bytes, a %v sector's is %d (changed while read): %w", f.Name, len(b), p.SectorSize(), size, ErrCorrupt)
		}
		if got := sha256.Sum256(b); !bytes.Equal(got[:], sum) {
			return nil, fmt.Errorf("%s: sha256 %x, %s records %x (changed, or from another sector): %w", f.Name, got, ManifestName, sum, ErrCorrupt)
		}
		data[f.Name] = b
	}

	if err := assemble(s, data[SealedName], data[PAuxName], data[TreeRLastName]); err != nil {
		return nil, err
	}
	return s, nil
}

// assemble decodes the contents of the sector's files (the replica, p_aux
// and tree_r_last above the leaves), checks them against each other and
// against s, the manifest's values, and sets s's comm_c and tree. Load
// has checked each file's size and SHA-256 against the manifest; assemble
// checks the sizes again so that it holds on its own for any bytes
// (FuzzAssemble), and cannot slice past a short file.
func assemble(s *Sector, sealed, pauxB, treeB []byte) error {
	p := s.SealProof
	shape, above, err := treeNodes(p)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", ManifestName, ErrFormat, err)
	}
	for _, f := range []struct {
		name string
		b    []byte
		want int64
	}{{SealedName, sealed, int64(p.SectorSize())}, {PAuxName, pauxB, 64}, {TreeRLastName, treeB, 32 * int64(above)}} {
		if int64(len(f.b)) != f.want {
			return fmt.Errorf("%s: %d bytes, a %v sector's is %d: %w", f.name, len(f.b), p.SectorSize(), f.want, ErrCorrupt)
		}
	}
	leaves, err := elements(sealed, SealedName)
	if err != nil {
		return err
	}
	paux, err := elements(pauxB, PAuxName)
	if err != nil {
		return err
	}
	nodes, err := elements(treeB, TreeRLastName)
	if err != nil {
		return err
	}
	arities, _ := shape.Arities(len(leaves))
	levels := make([][]fr.Element, 1, len(arities)+1)
	levels[0] = leaves
	n := len(leaves)
	for _, a := range arities {
		n /= a
		levels, nodes = append(levels, nodes[:n:n]), nodes[n:]
	}
	if root := levels[len(levels)-1][0]; root != paux[1] {
		return fmt.Errorf("%s: root %s is not %s's comm_r_last %s: %w", TreeRLastName, frHex(&root), PAuxName, frHex(&paux[1]), ErrCorrupt)
	}
	if CommR(paux[0], paux[1]) != s.CommR {
		return fmt.Errorf("%s: Poseidon2(comm_c, comm_r_last) is not %s's comm_r %s: %w", PAuxName, ManifestName, frHex(&s.CommR), ErrCorrupt)
	}
	t, err := merkle.PoseidonFromLevels(shape, levels)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", TreeRLastName, ErrCorrupt, err)
	}
	s.CommC, s.TreeRLast = paux[0], t
	return nil
}

// elements reads b as 32-byte little-endian canonical field elements.
func elements(b []byte, name string) ([]fr.Element, error) {
	out := make([]fr.Element, len(b)/32)
	for i := range out {
		var err error
		if out[i], err = fr.LittleEndian.Element((*[32]byte)(b[32*i:])); err != nil {
			return nil, fmt.Errorf("%s: node %d (offset %d) is not a canonical field element: %w", name, i, 32*i, ErrCorrupt)
		}
	}
	return out, nil
}

// parseManifest decodes sector.json: its format and version first, so
// that another layout is named as such, then every field strictly.
func parseManifest(raw []byte) (*manifest, error) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if head.Format != Format {
		return nil, fmt.Errorf("format %q, want %q: %w", head.Format, Format, ErrFormat)
	}
	if head.Version != Version {
		return nil, fmt.Errorf("version %d, this cuzk reads version %d: %w", head.Version, Version, ErrVersion)
	}
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return &m, nil
}

// sector checks the manifest's public values and returns them (without
// comm_c and the tree, which the files give).
func (m *manifest) sector() (*Sector, error) {
	if m.RegisteredSealProof < 0 {
		return nil, fmt.Errorf("registered_seal_proof %d: %w", m.RegisteredSealProof, ErrFormat)
	}
	p, err := filecoin.SealProofFromID(uint64(m.RegisteredSealProof))
	if err != nil {
		return nil, fmt.Errorf("registered_seal_proof: %w: %w", ErrFormat, err)
	}
	if m.RegisteredSealProofAPI != p.String() {
		return nil, fmt.Errorf("registered_seal_proof_api %q is not registered_seal_proof %d (%v): %w", m.RegisteredSealProofAPI, m.RegisteredSealProof, p, ErrFormat)
	}
	if m.SectorSize != uint64(p.SectorSize()) {
		return nil, fmt.Errorf("sector_size %d, %v seals %v sectors: %w", m.SectorSize, p, p.SectorSize(), ErrFormat)
	}
	if p.SectorSize() > MaxSectorSize {
		return nil, fmt.Errorf("%v sector: %w (at most %v)", p.SectorSize(), ErrTooLarge, MaxSectorSize)
	}
	if want := p.SealSpec().Tree().String(); m.TreeRLastShape != want {
		return nil, fmt.Errorf("tree_r_last_shape %q, a %v sector's is %s: %w", m.TreeRLastShape, p.SectorSize(), want, ErrFormat)
	}
	s := &Sector{SealProof: p, ID: m.SectorID, MinerID: m.MinerID}
	for _, f := range []struct {
		name string
		v    string
		dst  *[32]byte
	}{{"prover_id", m.ProverID, &s.ProverID}, {"ticket", m.Ticket, &s.Ticket}, {"comm_d", m.CommD, &s.CommD}} {
		if *f.dst, err = parse32(f.name, f.v); err != nil {
			return nil, err
		}
	}
	if s.CommR, err = parseFr("comm_r", m.CommR); err != nil {
		return nil, err
	}
	if _, err := fr.LittleEndian.Element(&s.CommD); err != nil {
		return nil, fmt.Errorf("comm_d: not a canonical field element: %w", ErrFormat)
	}
	if m.MinerID != nil && filecoin.ProverID(*m.MinerID) != s.ProverID {
		return nil, fmt.Errorf("prover_id %x is not miner_id %d's: %w", s.ProverID, *m.MinerID, ErrFormat)
	}
	if u := m.Update; u != nil {
		if u.RegisteredUpdateProof < 0 {
			return nil, fmt.Errorf("update.registered_update_proof %d: %w", u.RegisteredUpdateProof, ErrFormat)
		}
		up, err := filecoin.UpdateProofFromID(uint64(u.RegisteredUpdateProof))
		if err != nil {
			return nil, fmt.Errorf("update.registered_update_proof: %w: %w", ErrFormat, err)
		}
		if u.RegisteredUpdateProofAPI != up.String() {
			return nil, fmt.Errorf("update.registered_update_proof_api %q is not registered_update_proof %d (%v): %w", u.RegisteredUpdateProofAPI, u.RegisteredUpdateProof, up, ErrFormat)
		}
		if up.SectorSize() != p.SectorSize() {
			return nil, fmt.Errorf("update.registered_update_proof %v is for %v sectors, this one is %v: %w", up, up.SectorSize(), p.SectorSize(), ErrFormat)
		}
		s.Update = &Update{Proof: up}
		if s.Update.CommROld, err = parseFr("update.comm_r_old", u.CommROld); err != nil {
			return nil, err
		}
		if s.Update.CommDOld, err = parse32("update.comm_d_old", u.CommDOld); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func parse32(name, v string) ([32]byte, error) {
	var out [32]byte
	b, err := hex.DecodeString(v)
	if err != nil || len(b) != 32 {
		return out, fmt.Errorf("%s %q: want 64 hex characters: %w", name, v, ErrFormat)
	}
	copy(out[:], b)
	return out, nil
}

func parseFr(name, v string) (fr.Element, error) {
	b, err := parse32(name, v)
	if err != nil {
		return fr.Element{}, err
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		return fr.Element{}, fmt.Errorf("%s %s: not a canonical field element: %w", name, v, ErrFormat)
	}
	return e, nil
}

// WriteProofList writes vanilla proofs as Curio sends them in
// vanilla_proofs: a JSON array of standard base64 strings, compact and
// newline-terminated (the form of the rustref files), the file
// `cuzk post vanilla` and `cuzk snap encode` leave beside their sectors.
func WriteProofList(path string, proofs [][]byte) error {
	l := make([]string, len(proofs))
	for i, p := range proofs {
		l[i] = base64.StdEncoding.EncodeToString(p)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
