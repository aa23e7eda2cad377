package codetools

// ManifestName is the name of the manifest at the root of a snapshot.
const ManifestName = "manifest.json"

// IndexName is the name of the declaration index at the root of a
// snapshot: the declarations of every file with their lines and byte
// spans, so that a catalog never parses Go at run time.
const IndexName = "index.txt"

// SnapshotFormat identifies the snapshot layout described in the package
// documentation; it is stored in Manifest.Format. A catalog ignores a
// snapshot of another format (and says why in every answer).
const SnapshotFormat = "embedmcp-codetools-snapshot/2"

// SourceSuffix is appended to the names of copied source files so that the
// go command does not treat them as packages of the host module.
const SourceSuffix = ".txt"

// Manifest describes a source snapshot. The mcpsnapshot generator writes
// it; a Catalog reads it from Options.Snapshot. It holds nothing that
// changes when the source does not (no revision, no time), so that
// generating twice, or after a commit, writes the same bytes.
type Manifest struct {
	Format string `json:"format"`
	// MainPackage is the import path of the main package the snapshot
	// was made for.
	MainPackage string `json:"mainPackage"`
	// GoVersion is the Go version whose standard library the snapshot
	// holds; empty when it holds none.
	GoVersion string   `json:"goVersion,omitempty"`
	GOOS      string   `json:"goos"`
	GOARCH    string   `json:"goarch"`
	Tags      []string `json:"tags,omitempty"`
	// Selection says which packages were copied.
	Selection Selection `json:"selection"`
	// Modules lists the modules of the build.
	Modules []ManifestModule `json:"modules"`
	// Packages lists the packages whose source is in the snapshot.
	Packages []ManifestPackage `json:"packages"`
}

// ManifestModule is a module of a snapshot's build.
type ManifestModule struct {
	Path    string `json:"path" jsonschema:"Module path."`
	Version string `json:"version,omitempty" jsonschema:"Module version required by the build."`
	Sum     string `json:"sum,omitempty" jsonschema:"Checksum from go.sum."`
	// Replace is the replacement: path@version for a module, the
	// directory as written in go.mod for a local one.
	Replace string `json:"replace,omitempty" jsonschema:"Replacement: path@version, or the local directory as written in go.mod."`
	// Local reports a replacement by a local directory, whose content has
	// no version or checksum.
	Local bool `json:"local,omitempty" jsonschema:"Whether the module is replaced by a local directory."`
	Main  bool `json:"main,omitempty" jsonschema:"Whether this is the main module."`
}

// ManifestPackage is a package of a snapshot.
type ManifestPackage struct {
	ImportPath string `json:"importPath"`
	Name       string `json:"name"`
	Module     string `json:"module,omitempty"`
	Standard   bool   `json:"standard,omitempty"`
	// Files are the package's Go files of the build, in the order the go
	// command compiles them.
	Files []ManifestFile `json:"files"`
}

// ManifestFile is a source file of a snapshot.
type ManifestFile struct {
	// Name is the file's base name, as in the package directory.
	Name string `json:"name"`
	// Path is the slash-separated location in the snapshot file system.
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}
