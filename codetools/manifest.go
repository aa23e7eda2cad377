package codetools

// ManifestName is the name of the manifest at the root of a snapshot.
const ManifestName = "manifest.json"

// SnapshotFormat identifies the snapshot layout described in the package
// documentation; it is stored in Manifest.Format.
const SnapshotFormat = "embedmcp-codetools-snapshot/1"

// SourceSuffix is appended to the names of copied source files so that the
// go command does not treat them as packages of the host module.
const SourceSuffix = ".txt"

// Manifest describes a source snapshot. The mcpsnapshot generator writes
// it; a Catalog reads it from Options.Snapshot.
type Manifest struct {
	Format string `json:"format"`
	// MainPackage is the import path of the main package the snapshot
	// was made for.
	MainPackage string `json:"mainPackage"`
	// Revision and Dirty describe the version-control state of the main
	// module when the snapshot was made ("" if unknown).
	Revision  string   `json:"revision,omitempty"`
	Dirty     bool     `json:"dirty"`
	GoVersion string   `json:"goVersion,omitempty"`
	GOOS      string   `json:"goos"`
	GOARCH    string   `json:"goarch"`
	Tags      []string `json:"tags,omitempty"`
	// Modules lists the modules whose packages were considered.
	Modules []ManifestModule `json:"modules"`
	// Packages lists the packages whose source is in the snapshot.
	Packages []ManifestPackage `json:"packages"`
}

// ManifestModule is a module of a snapshot.
type ManifestModule struct {
	Path    string `json:"path" jsonschema:"Module path."`
	Version string `json:"version,omitempty" jsonschema:"Module version."`
	Sum     string `json:"sum,omitempty" jsonschema:"Checksum from go.sum."`
	Main    bool   `json:"main,omitempty" jsonschema:"Whether this is the main module."`
}

// ManifestPackage is a package of a snapshot.
type ManifestPackage struct {
	ImportPath string `json:"importPath"`
	Name       string `json:"name"`
	Module     string `json:"module,omitempty"`
	Standard   bool   `json:"standard,omitempty"`
	// Files are the package's Go files of the build, in the order the go
	// command lists them.
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
