// Package codesnap describes the files of a codetools source snapshot: the
// names at its root and the manifest. The mcpsnapshot command writes them;
// a codetools catalog reads them. The declaration index and the references
// are the codeindex package's.
//
// A snapshot file system holds manifest.json ([ManifestName], a
// [Manifest]) and index.txt ([IndexName]) at its root, and the files of
// the snapshot under src/<importpath>/<file><SourceSuffix>: the Go files of
// each package, its other source files (assembly, C), and the go.mod of
// each module whose packages it holds, and, when an embedding model was
// given, vectors.bin ([VectorsName]), and search.bin ([SearchName]). The directory mcpsnapshot writes
// also holds a .mcpsnapshot marker, which //go:embed leaves out.
//
// Any file of a snapshot may be stored gzip-compressed under its name
// with [CompressedSuffix] added; the manifest and the index keep naming it
// without the suffix, and a reader opens the compressed file when the
// plain one is absent. mcpsnapshot stores the index and the files under
// src/ so.
package codesnap

// ManifestName is the name of the manifest at the root of a snapshot.
const ManifestName = "manifest.json"

// IndexName is the name of the declaration index at the root of a
// snapshot: the declarations of every file with their lines and byte
// spans, and the references between them, so that a catalog never parses
// Go at run time.
const IndexName = "index.txt"

// VectorsName is the name of the optional file of precomputed vectors
// at the root of a snapshot: one vector per declaration, written by
// mcpsnapshot -embed-url with an embedding model, so that a catalog with
// an Embedder of that model embeds only the query. Its format is the
// codetools package's (WriteVectors); a snapshot without it is complete.
const VectorsName = "vectors.bin"

// SearchName is the name of the optional search file at the root of a
// snapshot: the declarations of the index with their documentation
// prefixes, and the term index of the snapshot's declarations, as a
// catalog would otherwise compute them from the index and the source.
// mcpsnapshot writes it (compressed) so that a catalog builds its search
// index without reading the index or a source file, or tokenizing; its
// format is the codetools package's. A catalog ignores a search file made
// for another manifest or index (and builds at run time, as without
// one); a snapshot without it is complete.
const SearchName = "search.bin"

// Format identifies the snapshot layout; it is stored in Manifest.Format.
// A catalog ignores a snapshot of another format (and says why in every
// answer). Additions that older catalogs can ignore (new manifest fields,
// new index records) keep the format.
const Format = "embedmcp-codetools-snapshot/2"

// SourceSuffix is appended to the names of copied files so that the go
// command does not treat the copies as packages (or a go.mod as a module)
// of the host module.
const SourceSuffix = ".txt"

// CompressedSuffix is added to the name of a file of the snapshot stored
// gzip-compressed (compress/gzip, no name or time in its header, so that
// generating twice writes the same bytes).
const CompressedSuffix = ".gz"

// Manifest describes a source snapshot. It holds nothing that changes when
// the source does not (no revision, no time), so that generating twice, or
// after a commit, writes the same bytes.
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
	Modules []Module `json:"modules"`
	// Packages lists the packages whose source is in the snapshot.
	Packages []Package `json:"packages"`
}

// Selection is the package selection of a snapshot, as mcpsnapshot's
// flags set it (codetools.Selection has the same fields).
type Selection struct {
	Deps    bool     `json:"deps,omitempty"`
	Modules []string `json:"modules,omitempty"`
	Std     bool     `json:"std,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// Module is a module of a snapshot's build.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version,omitempty"`
	Sum     string `json:"sum,omitempty"`
	// Replace is the replacement: path@version for a module, the
	// directory as written in go.mod for a local one.
	Replace string `json:"replace,omitempty"`
	// Local reports a replacement by a local directory, whose content has
	// no version or checksum.
	Local bool `json:"local,omitempty"`
	Main  bool `json:"main,omitempty"`
	// Files are files of the module's root directory the snapshot holds
	// (its go.mod), when it holds packages of the module.
	Files []File `json:"files,omitempty"`
}

// Package is a package of a snapshot.
type Package struct {
	ImportPath string `json:"importPath"`
	Name       string `json:"name"`
	Module     string `json:"module,omitempty"`
	Standard   bool   `json:"standard,omitempty"`
	// Files are the package's Go files of the build, in the order the go
	// command compiles them.
	Files []File `json:"files"`
	// OtherFiles are the package's other source files of the build:
	// assembly, C, C++ and header files.
	OtherFiles []File `json:"otherFiles,omitempty"`
}

// File is a file of a snapshot.
type File struct {
	// Name is the file's base name, as in the package directory.
	Name string `json:"name"`
	// Path is the slash-separated location in the snapshot file system.
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}
