package filecoin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/cuzk-dev/cuzk/merkle"
)

// ParameterVersion is the version prefix of parameter file names
// (parameter_cache.rs VERSION); it changes only when circuits change.
const ParameterVersion = 28

// File extensions of a parameter set (parameter_cache.rs).
const (
	ParamsExt       = ".params"
	VerifyingKeyExt = ".vk"
	MetadataExt     = ".meta"
)

// Hasher names as rust-fil-proofs prints them (Hasher::name).
const (
	poseidonHasherName = "poseidon_hasher"
	sha256HasherName   = "sha256_hasher"
)

// ParameterSetID is upstream's cache identifier of a circuit: the cache
// prefix, a dash and the lower-case hex sha256 of the public-params
// identifier, e.g.
// "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a3…".
// File names add "v28-" and an extension.
type ParameterSetID string

// NewParameterSetID hashes identifier as CacheableParameters::cache_identifier does.
func NewParameterSetID(prefix, identifier string) ParameterSetID {
	sum := sha256.Sum256([]byte(identifier))
	return ParameterSetID(prefix + "-" + hex.EncodeToString(sum[:]))
}

func (id ParameterSetID) fileName(ext string) string {
	return fmt.Sprintf("v%d-%s%s", ParameterVersion, string(id), ext)
}

// ParamsFileName is the Groth16 parameter file name ("v28-….params").
func (id ParameterSetID) ParamsFileName() string { return id.fileName(ParamsExt) }

// VerifyingKeyFileName is the verifying key file name ("v28-….vk").
func (id ParameterSetID) VerifyingKeyFileName() string { return id.fileName(VerifyingKeyExt) }

// MetadataFileName is the metadata file name ("v28-….meta").
func (id ParameterSetID) MetadataFileName() string { return id.fileName(MetadataExt) }

// StackedGraphIdentifier is the identifier of the stacked DRG over nodes
// nodes with the Poseidon tree hasher (StackedGraph::identifier wrapping
// BucketGraph::identifier). It appears in the PoRep params identifier and in
// the parent cache file name; porep_id and api version are not part of it.
func StackedGraphIdentifier(nodes uint64) string {
	return fmt.Sprintf("stacked_graph::StackedGraph{expansion_degree: %d base_graph: drgraph::BucketGraph{size: %d; degree: %d; hasher: %s} }",
		ExpansionDegree, nodes, DRGDegree, poseidonHasherName)
}

// PoRepIdentifier is the stacked PoRep PublicParams::identifier for this
// shape (storage-proofs-porep/src/stacked/vanilla/params.rs).
func (s Shape) PoRepIdentifier() string {
	return fmt.Sprintf("layered_drgporep::PublicParams{ graph: %s, challenges: LayerChallenges { layers: %d, max_count: %d }, tree: %s }",
		StackedGraphIdentifier(s.Nodes()), s.layers, s.ChallengesPerPartition(Interactive), TreeDisplay(s.tree))
}

// PoRepCachePrefix is StackedCompound::cache_prefix for a tree shape.
func PoRepCachePrefix(t merkle.Shape) string {
	return "stacked-proof-of-replication-" + TreeDisplay(t) + "-" + sha256HasherName
}

// PoRepParameterSetID names the PoRep circuit of this shape. Every
// registered seal proof of the size (V1, V1_1, synthetic, NI) uses it.
func (s Shape) PoRepParameterSetID() ParameterSetID {
	return NewParameterSetID(PoRepCachePrefix(s.tree), s.PoRepIdentifier())
}

// PoStCachePrefix is FallbackPoStCompound::cache_prefix for a tree shape.
func PoStCachePrefix(t merkle.Shape) string {
	return "proof-of-spacetime-fallback-" + TreeDisplay(t)
}

// PoStIdentifier is fallback::PublicParams::identifier.
func PoStIdentifier(size SectorSize, challengeCount, sectorCount int) string {
	return fmt.Sprintf("FallbackPoSt::PublicParams{sector_size: %d, challenge_count: %d, sector_count: %d}",
		uint64(size), challengeCount, sectorCount)
}

// Environment variables and defaults of rust-fil-proofs settings.rs.
const (
	ParameterCacheEnv        = "FIL_PROOFS_PARAMETER_CACHE"
	DefaultParameterCacheDir = "/var/tmp/filecoin-proof-parameters/"
	ParentCacheEnv           = "FIL_PROOFS_PARENT_CACHE"
	CacheDirEnv              = "FIL_PROOFS_CACHE_DIR"
	DefaultCacheDir          = "/var/tmp/"
)

// LookupEnv looks up an environment variable; os.LookupEnv fits.
type LookupEnv func(key string) (value string, ok bool)

// ParameterCacheDir is the directory holding .params/.vk files:
// $FIL_PROOFS_PARAMETER_CACHE if set and non-empty, else
// /var/tmp/filecoin-proof-parameters/. A nil lookup means an empty
// environment.
func ParameterCacheDir(lookup LookupEnv) string {
	if v, ok := lookupNonEmpty(lookup, ParameterCacheEnv); ok {
		return v
	}
	return DefaultParameterCacheDir
}

// ParentCacheDir is the directory holding parent cache files:
// $FIL_PROOFS_PARENT_CACHE if set, else $FIL_PROOFS_CACHE_DIR (default
// /var/tmp/) followed by "filecoin-parents". Like upstream it concatenates
// without inserting a separator, so FIL_PROOFS_CACHE_DIR should end in '/'.
func ParentCacheDir(lookup LookupEnv) string {
	if v, ok := lookupNonEmpty(lookup, ParentCacheEnv); ok {
		return v
	}
	base := DefaultCacheDir
	if v, ok := lookupNonEmpty(lookup, CacheDirEnv); ok {
		base = v
	}
	return base + "filecoin-parents"
}

// lookupNonEmpty treats an empty value as unset: an empty directory name
// would silently mean the working directory.
func lookupNonEmpty(lookup LookupEnv, key string) (string, bool) {
	if lookup == nil {
		return "", false
	}
	v, ok := lookup(key)
	if !ok || strings.TrimSpace(v) == "" {
		return "", false
	}
	return v, true
}
