package c1

import (
	"strconv"
)

// MarshalJSON returns the C1 in serde_json's compact form; see AppendJSON.
func (o *Output) MarshalJSON() ([]byte, error) {
	return o.AppendJSON(make([]byte, 0, o.sizeHint())), nil
}

// AppendJSON appends the C1 exactly as serde_json::to_vec writes
// SealCommitPhase1Output: struct fields in declaration order, no
// whitespace, byte arrays as integer arrays, the Column PhantomData as
// null. It does not validate; a Merkle proof writes only the parts its
// Variant has.
func (o *Output) AppendJSON(b []byte) []byte {
	b = append(b, `{"registered_proof":"`...)
	b = append(b, o.RegisteredProof.String()...)
	b = append(b, `","vanilla_proofs":{"`...)
	b = append(b, o.VanillaProofsKey()...)
	b = append(b, `":`...)
	b = appendPartitions(b, o.VanillaProofs)
	b = append(b, `},"comm_r":`...)
	b = appendDomain(b, &o.CommR)
	b = append(b, `,"comm_d":`...)
	b = appendDomain(b, &o.CommD)
	b = append(b, `,"replica_id":`...)
	b = appendDomain(b, &o.ReplicaID)
	b = append(b, `,"seed":`...)
	b = appendDomain(b, &o.Seed)
	b = append(b, `,"ticket":`...)
	b = appendDomain(b, &o.Ticket)
	return append(b, '}')
}

// MarshalVanillaProofs writes rust-fil-proofs-level vanilla proofs (a bare
// Vec<Vec<Proof>>) as serde_json does.
func MarshalVanillaProofs(proofs [][]Proof) []byte {
	return appendPartitions(nil, proofs)
}

// sizeHint estimates the encoded size: about 4 bytes per domain byte.
func (o *Output) sizeHint() int {
	n := 1024
	for _, part := range o.VanillaProofs {
		for i := range part {
			p := &part[i]
			d := 2*len(p.LabelingProofs)*37 + 37 + 2*(len(p.CommDProofs.Base)+1)
			d += 15 * (p.CommRLastProof.Levels()*7 + 2 + len(p.ReplicaColumnProofs.CX.Column.Rows))
			n += d * 32 * 4
		}
	}
	return n
}

func appendPartitions(b []byte, parts [][]Proof) []byte {
	b = append(b, '[')
	for k, part := range parts {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for i := range part {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendProof(b, &part[i])
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

func appendProof(b []byte, p *Proof) []byte {
	b = append(b, `{"comm_d_proofs":`...)
	b = appendMerkleProof(b, &p.CommDProofs)
	b = append(b, `,"comm_r_last_proof":`...)
	b = appendMerkleProof(b, &p.CommRLastProof)
	b = append(b, `,"replica_column_proofs":{"c_x":`...)
	r := &p.ReplicaColumnProofs
	b = appendColumnProof(b, &r.CX)
	b = append(b, `,"drg_parents":`...)
	b = appendColumnProofs(b, r.DRGParents)
	b = append(b, `,"exp_parents":`...)
	b = appendColumnProofs(b, r.ExpParents)
	b = append(b, `},"labeling_proofs":[`...)
	for i := range p.LabelingProofs {
		if i > 0 {
			b = append(b, ',')
		}
		l := &p.LabelingProofs[i]
		b = appendLabeling(b, l.Parents, l.LayerIndex, l.Node)
	}
	b = append(b, `],"encoding_proof":`...)
	e := &p.EncodingProof
	b = appendLabeling(b, e.Parents, e.LayerIndex, e.Node)
	return append(b, '}')
}

func appendLabeling(b []byte, parents [][32]byte, layer uint32, node uint64) []byte {
	b = append(b, `{"parents":`...)
	b = appendDomains(b, parents)
	b = append(b, `,"layer_index":`...)
	b = strconv.AppendUint(b, uint64(layer), 10)
	b = append(b, `,"node":`...)
	b = strconv.AppendUint(b, node, 10)
	return append(b, '}')
}

func appendColumnProofs(b []byte, cs []ColumnProof) []byte {
	b = append(b, '[')
	for i := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendColumnProof(b, &cs[i])
	}
	return append(b, ']')
}

func appendColumnProof(b []byte, c *ColumnProof) []byte {
	b = append(b, `{"column":{"index":`...)
	b = strconv.AppendUint(b, uint64(c.Column.Index), 10)
	b = append(b, `,"rows":`...)
	b = appendDomains(b, c.Column.Rows)
	b = append(b, `,"_h":null},"inclusion_proof":`...)
	b = appendMerkleProof(b, &c.InclusionProof)
	return append(b, '}')
}

func appendMerkleProof(b []byte, m *MerkleProof) []byte {
	b = append(b, `{"data":{"`...)
	b = append(b, m.Variant.String()...)
	b = append(b, `":{`...)
	switch m.Variant {
	case Single:
		b = append(b, `"root":`...)
		b = appendDomain(b, &m.Root)
		b = append(b, `,"leaf":`...)
		b = appendDomain(b, &m.Leaf)
		b = append(b, `,"path":`...)
		b = appendInclusionPath(b, m.Base)
	default:
		b = append(b, `"base_proof":`...)
		b = appendInclusionPath(b, m.Base)
		b = append(b, `,"sub_proof":`...)
		b = appendInclusionPath(b, m.Sub)
		if m.Variant == Top {
			b = append(b, `,"top_proof":`...)
			b = appendInclusionPath(b, m.Top)
		}
		b = append(b, `,"root":`...)
		b = appendDomain(b, &m.Root)
		b = append(b, `,"leaf":`...)
		b = appendDomain(b, &m.Leaf)
	}
	return append(b, "}}}"...)
}

func appendInclusionPath(b []byte, path []PathElement) []byte {
	b = append(b, `{"path":[`...)
	for i := range path {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"hashes":`...)
		b = appendDomains(b, path[i].Hashes)
		b = append(b, `,"index":`...)
		b = strconv.AppendUint(b, path[i].Index, 10)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func appendDomains(b []byte, ds [][32]byte) []byte {
	b = append(b, '[')
	for i := range ds {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendDomain(b, &ds[i])
	}
	return append(b, ']')
}

// byteText holds the decimal text of every byte value.
var byteText = func() (t [256]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return
}()

func appendDomain(b []byte, d *[32]byte) []byte {
	b = append(b, '[')
	for i, v := range d {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, byteText[v]...)
	}
	return append(b, ']')
}
