package circuit

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/gadgets"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

var (
	// ErrSectorSize is returned for a sector size EmptySectorUpdate does not
	// support.
	ErrSectorSize = errors.New("snap circuit: unsupported sector size")
	// ErrInputs is returned when the inputs do not fit the circuit's
	// parameters (dimensions, k, h, partition path).
	ErrInputs = errors.New("snap circuit: inputs do not fit the circuit")
	// ErrLeafRNew is returned by Synthesize when a challenge's leaf_r_new
	// differs from leaf_r_old + leaf_d_new·ρ (upstream asserts this).
	ErrLeafRNew = errors.New("snap circuit: leaf_r_new is not the encoding of leaf_r_old and leaf_d_new")
)

// HSelectBits is the number of h values the circuit can select from
// (hs(sector_nodes) has 6 entries).
const HSelectBits = 6

// Params are storage_proofs_update::PublicParams plus the TreeR shape:
// everything that fixes the circuit's structure.
type Params struct {
	SectorNodes   uint64
	Challenges    int // challenge_count per partition
	ChallengeBits int // challenge_bit_len = log2(sector_nodes)
	Partitions    int
	PartitionBits int
	ApexLeafs     int
	ApexLeafBits  int
	Hs            [HSelectBits]int
	Tree          merkle.Shape // TreeR (old and new)
	TreeRLevels   int          // path length in TreeR: base levels, then sub, then top
}

// Sector sizes in nodes (32-byte leaves).
const (
	nodes1KiB   = 1 << 5
	nodes2KiB   = 1 << 6
	nodes4KiB   = 1 << 7
	nodes8KiB   = 1 << 8
	nodes16KiB  = 1 << 9
	nodes32KiB  = 1 << 10
	nodes8MiB   = 1 << 18
	nodes16MiB  = 1 << 19
	nodes512MiB = 1 << 24
	nodes32GiB  = 1 << 30
	nodes64GiB  = 1 << 31
)

// treeRShapes is validate_tree_r_shape: the TreeR arities per sector size
// (ALLOWED_SECTOR_SIZES).
var treeRShapes = map[uint64]merkle.Shape{
	nodes1KiB:   {Base: 8, Sub: 4},
	nodes2KiB:   {Base: 8},
	nodes4KiB:   {Base: 8, Sub: 2},
	nodes8KiB:   {Base: 8, Sub: 4},
	nodes16KiB:  {Base: 8, Sub: 8},
	nodes32KiB:  {Base: 8, Sub: 8, Top: 2},
	nodes8MiB:   {Base: 8},
	nodes16MiB:  {Base: 8, Sub: 2},
	nodes512MiB: {Base: 8},
	nodes32GiB:  {Base: 8, Sub: 8},
	nodes64GiB:  {Base: 8, Sub: 8, Top: 2},
}

// ParamsFor returns the parameters for a sector of sectorBytes bytes
// (PublicParams::from_sector_size), for every size upstream allows.
func ParamsFor(sectorBytes uint64) (Params, error) {
	n := sectorBytes / 32
	tree, ok := treeRShapes[n]
	if !ok || sectorBytes%32 != 0 {
		return Params{}, fmt.Errorf("%w: %d bytes", ErrSectorSize, sectorBytes)
	}
	p := Params{SectorNodes: n, Tree: tree}
	switch {
	case n <= nodes8KiB:
		p.Partitions = 1
	case n <= nodes32KiB:
		p.Partitions = 2
	case n <= nodes16MiB:
		p.Partitions = 4
	default:
		p.Partitions = 16
	}
	p.Challenges = 86
	if n <= nodes16MiB {
		p.Challenges = 10
	}
	p.ApexLeafs = 128
	if n <= nodes8KiB {
		p.ApexLeafs = 8
	}
	p.Hs = [HSelectBits]int{7, 8, 9, 10, 11, 12}
	if n <= nodes32KiB {
		p.Hs = [HSelectBits]int{1, 1, 1, 1, 1, 1}
	}
	p.ChallengeBits = bits.TrailingZeros64(n)
	p.PartitionBits = bits.TrailingZeros(uint(p.Partitions))
	p.ApexLeafBits = bits.TrailingZeros(uint(p.ApexLeafs))
	rem := p.ChallengeBits
	p.TreeRLevels = 0
	if tree.Sub != 0 {
		rem -= bits.TrailingZeros(uint(tree.Sub))
		p.TreeRLevels++
	}
	if tree.Top != 0 {
		rem -= bits.TrailingZeros(uint(tree.Top))
		p.TreeRLevels++
	}
	p.TreeRLevels += rem / bits.TrailingZeros(uint(tree.Base))
	return p, nil
}

// HDefault is h_default: hs[3] (10 for production sizes, 1 for tiny ones).
func (p Params) HDefault() int { return p.Hs[3] }

// HSelect is h_select(sector_nodes, h): 2^i for the first i with hs[i] = h.
func (p Params) HSelect(h int) (uint64, error) {
	for i, v := range p.Hs {
		if v == h {
			return 1 << uint(i), nil
		}
	}
	return 0, fmt.Errorf("%w: h = %d is none of %v", ErrInputs, h, p.Hs)
}

// treeRArities is the arity of each TreeR path level.
func (p Params) treeRArities() []int {
	out := make([]int, 0, p.TreeRLevels)
	extra := 0
	if p.Tree.Sub != 0 {
		extra++
	}
	if p.Tree.Top != 0 {
		extra++
	}
	for len(out) < p.TreeRLevels-extra {
		out = append(out, p.Tree.Base)
	}
	if p.Tree.Sub != 0 {
		out = append(out, p.Tree.Sub)
	}
	if p.Tree.Top != 0 {
		out = append(out, p.Tree.Top)
	}
	return out
}

// PublicInputs are the circuit's public inputs (after ONE, in this order).
type PublicInputs struct {
	KAndHSelect fr.Element // k | h_select << partition_bit_len
	CommROld    fr.Element
	CommDNew    fr.Element
	CommRNew    fr.Element
}

// NewPublicInputs is PublicInputs::new for partition k and h.
func NewPublicInputs(p Params, k, h int, commROld, commDNew, commRNew fr.Element) (PublicInputs, error) {
	if k < 0 || k >= p.Partitions {
		return PublicInputs{}, fmt.Errorf("%w: partition %d of %d", ErrInputs, k, p.Partitions)
	}
	hs, err := p.HSelect(h)
	if err != nil {
		return PublicInputs{}, err
	}
	var kh fr.Element
	kh.SetUint64(uint64(k) | hs<<uint(p.PartitionBits))
	return PublicInputs{KAndHSelect: kh, CommROld: commROld, CommDNew: commDNew, CommRNew: commRNew}, nil
}

// Vector is PublicInputs::to_vec, the order the verifier uses (ONE not
// included).
func (pi PublicInputs) Vector() []fr.Element {
	return []fr.Element{pi.KAndHSelect, pi.CommROld, pi.CommDNew, pi.CommRNew}
}

// Partition decodes k from KAndHSelect and checks the value as upstream's
// synthesize asserts: k < partitions, exactly one h-select bit, no other bit.
func (pi PublicInputs) Partition(p Params) (int, error) {
	if !pi.KAndHSelect.IsUint64() {
		return 0, fmt.Errorf("%w: k_and_h_select above 64 bits", ErrInputs)
	}
	v := pi.KAndHSelect.Uint64()
	k := int(v & (1<<uint(p.PartitionBits) - 1))
	hsel := v >> uint(p.PartitionBits)
	if k >= p.Partitions {
		return 0, fmt.Errorf("%w: partition-index %d exceeds partition count %d", ErrInputs, k, p.Partitions)
	}
	if hsel == 0 || hsel&(hsel-1) != 0 || hsel >= 1<<HSelectBits {
		return 0, fmt.Errorf("%w: h_select %#x does not have exactly one of %d bits set", ErrInputs, hsel, HSelectBits)
	}
	return k, nil
}

// ChallengeProof is one challenge's three Merkle proofs (circuit.rs
// ChallengeProof): leaf and siblings per level, leaf to root.
type ChallengeProof struct {
	LeafROld fr.Element
	PathROld [][]fr.Element // TreeR levels, arity−1 siblings each
	LeafDNew fr.Element
	PathDNew [][]fr.Element // ChallengeBits levels of TreeDNew, one sibling each
	LeafRNew fr.Element
	PathRNew [][]fr.Element
}

// PrivateInputs are the circuit's private inputs (circuit.rs PrivateInputs).
type PrivateInputs struct {
	CommC     fr.Element
	RootROld  fr.Element // comm_r_last of the old replica
	RootRNew  fr.Element // root of TreeRNew
	ApexLeafs []fr.Element
	// Challenges in the order gen_challenge_bits derives them.
	Challenges []ChallengeProof
}

// EmptySectorUpdate is the circuit of one partition. It implements
// r1cs.Circuit; it keeps scratch space, so one value must not be
// synthesised by two goroutines at once.
type EmptySectorUpdate struct {
	Params  Params
	Public  PublicInputs
	Private PrivateInputs

	sha  gadgets.Sha254Hasher
	por  gadgets.PoRNoChallenge
	apex []gadgets.AllocatedNum
	cb   []gadgets.AllocatedBit
	sel  []gadgets.Boolean
}

// New checks that the inputs have the parameters' dimensions everywhere and
// that k_and_h_select is valid, and returns the circuit.
func New(p Params, pub PublicInputs, priv PrivateInputs) (*EmptySectorUpdate, error) {
	if _, err := pub.Partition(p); err != nil {
		return nil, err
	}
	if err := checkDims(p, &priv); err != nil {
		return nil, err
	}
	return &EmptySectorUpdate{Params: p, Public: pub, Private: priv}, nil
}

func checkDims(p Params, priv *PrivateInputs) error {
	if len(priv.ApexLeafs) != p.ApexLeafs {
		return fmt.Errorf("%w: %d apex leafs, want %d", ErrInputs, len(priv.ApexLeafs), p.ApexLeafs)
	}
	if len(priv.Challenges) != p.Challenges {
		return fmt.Errorf("%w: %d challenge proofs, want %d", ErrInputs, len(priv.Challenges), p.Challenges)
	}
	ar := p.treeRArities()
	checkR := func(i int, what string, path [][]fr.Element) error {
		if len(path) != len(ar) {
			return fmt.Errorf("%w: challenge %d: %s has %d levels, want %d", ErrInputs, i, what, len(path), len(ar))
		}
		for l, a := range ar {
			if len(path[l]) != a-1 {
				return fmt.Errorf("%w: challenge %d: %s level %d has %d siblings, arity %d", ErrInputs, i, what, l, len(path[l]), a)
			}
		}
		return nil
	}
	tail := p.ChallengeBits - p.PartitionBits
	for i := range priv.Challenges {
		c := &priv.Challenges[i]
		if err := checkR(i, "path_r_old", c.PathROld); err != nil {
			return err
		}
		if err := checkR(i, "path_r_new", c.PathRNew); err != nil {
			return err
		}
		if len(c.PathDNew) != p.ChallengeBits {
			return fmt.Errorf("%w: challenge %d: path_d_new has %d levels, want %d", ErrInputs, i, len(c.PathDNew), p.ChallengeBits)
		}
		for l := range c.PathDNew {
			if len(c.PathDNew[l]) != 1 {
				return fmt.Errorf("%w: challenge %d: path_d_new level %d has %d siblings", ErrInputs, i, l, len(c.PathDNew[l]))
			}
			// Every challenge's path ends with the partition path.
			if l >= tail && !c.PathDNew[l][0].Equal(&priv.Challenges[0].PathDNew[l][0]) {
				return fmt.Errorf("%w: challenge %d: path_d_new level %d differs from challenge 0's partition path", ErrInputs, i, l)
			}
		}
	}
	return nil
}

// Blank returns the circuit for p with every private value zero, k = 0 and
// h = HDefault: enough to count rows or generate parameters, which do not
// depend on the witness.
func Blank(p Params) (*EmptySectorUpdate, error) {
	var z fr.Element
	pub, err := NewPublicInputs(p, 0, p.HDefault(), z, z, z)
	if err != nil {
		return nil, err
	}
	priv := PrivateInputs{ApexLeafs: make([]fr.Element, p.ApexLeafs), Challenges: make([]ChallengeProof, p.Challenges)}
	ar := p.treeRArities()
	path := func(n int, sib func(l int) int) [][]fr.Element {
		out := make([][]fr.Element, n)
		for l := range out {
			out[l] = make([]fr.Element, sib(l))
		}
		return out
	}
	for i := range priv.Challenges {
		c := &priv.Challenges[i]
		c.PathROld = path(len(ar), func(l int) int { return ar[l] - 1 })
		c.PathRNew = path(len(ar), func(l int) int { return ar[l] - 1 })
		c.PathDNew = path(p.ChallengeBits, func(int) int { return 1 })
	}
	return New(p, pub, priv)
}

func allocPath(cs *r1cs.CS, path [][]fr.Element) [][]gadgets.AllocatedNum {
	out := make([][]gadgets.AllocatedNum, len(path))
	for l, sib := range path {
		out[l] = make([]gadgets.AllocatedNum, len(sib))
		for j, s := range sib {
			out[l][j] = gadgets.AllocNum(cs, s)
		}
	}
	return out
}

// Synthesize implements r1cs.Circuit: EmptySectorUpdateCircuit::synthesize.
func (u *EmptySectorUpdate) Synthesize(cs *r1cs.CS) error {
	p, pub, priv := &u.Params, &u.Public, &u.Private
	if err := checkDims(*p, priv); err != nil {
		return err
	}

	kh := gadgets.AllocNum(cs, pub.KAndHSelect)
	kh.Inputize(cs)
	// k and h_select as AllocatedBits, least significant first, and their
	// binary decomposition row (Σ 2^i·b_i)·(ONE) = (k_and_h_select).
	nb := p.PartitionBits + HSelectBits
	khBits := make([]gadgets.AllocatedBit, nb)
	limbs := pub.KAndHSelect.Bits()
	for i := range khBits {
		khBits[i] = gadgets.AllocBit(cs, limbs[i/64]>>(uint(i)%64)&1 == 1)
	}
	cs.Enforce(func(a, b, c *r1cs.LC) {
		var pw fr.Element
		pw.SetOne()
		for i := range khBits {
			a.AddScaled(&pw, khBits[i].Variable())
			pw.Double(&pw)
		}
		b.AddOne()
		c.Add(kh.V)
	})
	partitionBits := khBits[:p.PartitionBits]
	hSelectBits := khBits[p.PartitionBits:]
	partition := gadgets.PackBits(cs, gadgets.Booleans(nil, partitionBits))

	commROld := gadgets.AllocNum(cs, pub.CommROld)
	commROld.Inputize(cs)
	commDNew := gadgets.AllocNum(cs, pub.CommDNew)
	commDNew.Inputize(cs)
	commRNew := gadgets.AllocNum(cs, pub.CommRNew)
	commRNew.Inputize(cs)

	cs.Push("phi")
	phi := gadgets.PoseidonGenRandomness(cs, commDNew, commROld)
	cs.Pop()

	commC := gadgets.AllocNum(cs, priv.CommC)
	rootROld := gadgets.AllocNum(cs, priv.RootROld)
	rootRNew := gadgets.AllocNum(cs, priv.RootRNew)
	apex := make([]gadgets.AllocatedNum, len(priv.ApexLeafs))
	for i, l := range priv.ApexLeafs {
		apex[i] = gadgets.AllocNum(cs, l)
	}
	tail := p.ChallengeBits - p.PartitionBits
	partitionPath := allocPath(cs, priv.Challenges[0].PathDNew[tail:])

	cs.Push("comm_r_old_calc")
	h := gadgets.PoseidonHasher{}.Hash2(cs, commC, rootROld)
	cs.Pop()
	gadgets.Equal(cs, h, commROld)
	cs.Push("comm_r_new_calc")
	h = gadgets.PoseidonHasher{}.Hash2(cs, commC, rootRNew)
	cs.Pop()
	gadgets.Equal(cs, h, commRNew)

	cs.Push("apex_gadget")
	err := gadgets.ApexPoR(cs, &u.sha, &u.por, apex, partitionBits, partitionPath, commDNew)
	cs.Pop()
	if err != nil {
		return fmt.Errorf("snap circuit: apex por: %w", err)
	}

	cs.Push("gen_challenge_bits")
	generated, err := gadgets.GenChallengeBits(cs, commRNew, partition, p.Challenges, tail)
	cs.Pop()
	if err != nil {
		return fmt.Errorf("snap circuit: %w", err)
	}

	toApex := p.ChallengeBits - p.PartitionBits - p.ApexLeafBits
	for ci, gen := range generated {
		cs.PushIdx("challenge", ci)
		err := u.challenge(cs, ci, gen, partitionBits, hSelectBits, phi, rootROld, rootRNew, apex, toApex)
		cs.Pop()
		if err != nil {
			return fmt.Errorf("snap circuit: challenge %d: %w", ci, err)
		}
	}
	return nil
}

func (u *EmptySectorUpdate) challenge(cs *r1cs.CS, ci int, gen, partitionBits, hSelectBits []gadgets.AllocatedBit,
	phi, rootROld, rootRNew gadgets.AllocatedNum, apex []gadgets.AllocatedNum, toApex int) error {
	p := &u.Params
	cp := &u.Private.Challenges[ci]
	cBits := append(append(u.cb[:0], gen...), partitionBits...)
	u.cb = cBits

	cHigh, err := gadgets.ChallengeHighBits(cs, cBits, hSelectBits, p.Hs[:])
	if err != nil {
		return err
	}
	cs.Push("rho")
	rho := gadgets.PoseidonGenRandomness(cs, phi, cHigh)
	cs.Pop()

	leafROld := gadgets.AllocNum(cs, cp.LeafROld)
	leafDNew := gadgets.AllocNum(cs, cp.LeafDNew)
	leafRNew := gadgets.LabelRNew(cs, leafROld, leafDNew, rho)
	if cs.WantsValues() && !leafRNew.Val.Equal(&cp.LeafRNew) {
		return ErrLeafRNew
	}

	u.por.Shape, u.por.Hasher = p.Tree, gadgets.PoseidonHasher{}
	cs.Push("por tree_r_old")
	err = u.por.Synthesize(cs, cBits, leafROld, allocPath(cs, cp.PathROld), rootROld)
	cs.Pop()
	if err != nil {
		return fmt.Errorf("tree_r_old: %w", err)
	}
	cs.Push("por tree_r_new")
	err = u.por.Synthesize(cs, cBits, leafRNew, allocPath(cs, cp.PathRNew), rootRNew)
	cs.Pop()
	if err != nil {
		return fmt.Errorf("tree_r_new: %w", err)
	}

	u.sel = gadgets.Booleans(u.sel[:0], cBits[toApex:toApex+p.ApexLeafBits])
	u.apex = append(u.apex[:0], apex...)
	cs.Push("select_apex_leaf")
	apexLeaf := gadgets.Select(cs, u.apex, u.sel)
	cs.Pop()

	u.por.Shape, u.por.Hasher = merkle.Shape{Base: 2}, &u.sha
	cs.Push("por to_apex_leaf")
	err = u.por.Synthesize(cs, cBits[:toApex], leafDNew, allocPath(cs, cp.PathDNew[:toApex]), apexLeaf)
	cs.Pop()
	if err != nil {
		return fmt.Errorf("tree_d_new: %w", err)
	}
	return nil
}
