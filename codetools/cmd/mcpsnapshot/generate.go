package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// config holds the command-line settings.
type config struct {
	dir   string   // working directory for the go command; "" means current
	env   []string // environment of the go command; nil means this process's
	warn  io.Writer
	out   string
	sel   codetools.Selection
	tags  string
	pkg   string
	check bool
	// embedURL, embedModel, embedKey, embedDocModel, embedQueryPrefix and
	// embedDocPrefix configure the vectors (-embed-url).
	embedURL, embedModel, embedKey                  string
	embedDocModel, embedQueryPrefix, embedDocPrefix string
}

// listedPackage is the subset of "go list -json" output used here.
type listedPackage struct {
	ImportPath string
	Name       string
	Dir        string
	Standard   bool
	GoFiles    []string
	CgoFiles   []string
	SFiles     []string
	CFiles     []string
	CXXFiles   []string
	HFiles     []string
	Module     *listedModule
	Error      *struct{ Err string }
}

type listedModule struct {
	Path    string
	Version string
	Sum     string
	GoMod   string
	Main    bool
	Replace *listedModule
}

// snapshotFiles is what generate writes: slash-separated paths relative
// to the output directory, and their contents.
type snapshotFiles struct {
	man   *codesnap.Manifest
	files map[string][]byte
}

// generate computes the snapshot described by cfg. It writes nothing.
func generate(ctx context.Context, cfg config) (*snapshotFiles, error) {
	if err := cfg.sel.Validate(); err != nil {
		return nil, err
	}
	pkgs, err := listPackages(ctx, cfg)
	if err != nil {
		return nil, err
	}
	root := pkgs[len(pkgs)-1] // -deps lists the named package last
	if root.Name != "main" {
		return nil, fmt.Errorf("package %s is not a main package", root.ImportPath)
	}
	m := &codesnap.Manifest{Format: codesnap.Format, MainPackage: root.ImportPath, Selection: codesnap.Selection(cfg.sel)}
	env, err := run(ctx, cfg, "go", "env", "GOOS", "GOARCH", "GOVERSION")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(env))
	if len(f) != 3 {
		return nil, fmt.Errorf("go env GOOS GOARCH GOVERSION printed %q", env)
	}
	m.GOOS, m.GOARCH = f[0], f[1]
	for _, t := range strings.Split(cfg.tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			m.Tags = append(m.Tags, t)
		}
	}
	out := &snapshotFiles{man: m, files: map[string][]byte{}}
	mods := map[string]codesnap.Module{}
	goMods := map[string]string{} // module path → its go.mod, for the modules with selected packages
	var sources [][]codeindex.Source
	var importPaths []string
	goFiles := map[string]snapFile{}
	for _, p := range pkgs {
		mod, main := "", false
		if p.Module != nil {
			mods[p.Module.Path] = manifestModule(p.Module)
			mod, main = p.Module.Path, p.Module.Main
		} else if !p.Standard {
			continue // no module: not part of a module build
		}
		if !cfg.sel.Includes(p.ImportPath, mod, main) {
			continue
		}
		if p.Standard {
			m.GoVersion = f[2]
		}
		if p.Module != nil {
			goMods[p.Module.Path] = p.Module.GoMod
			if r := p.Module.Replace; r != nil && r.GoMod != "" {
				goMods[p.Module.Path] = r.GoMod
			}
		}
		mp := codesnap.Package{ImportPath: p.ImportPath, Name: p.Name, Module: mod, Standard: p.Standard}
		var srcs []codeindex.Source
		// The compiler gets the Go files, then the cgo files, each sorted:
		// that order numbers the package's init functions.
		for i, name := range append(sorted(p.GoFiles), sorted(p.CgoFiles)...) {
			abs := filepath.Join(p.Dir, name)
			mf, data, err := out.add(abs, path.Join(p.ImportPath, name))
			if err != nil {
				return nil, err
			}
			mp.Files = append(mp.Files, mf)
			srcs = append(srcs, codeindex.Source{Path: mf.Path, Name: abs, Src: data})
			goFiles[filepath.Clean(abs)] = snapFile{path: mf.Path, order: i}
		}
		if !p.Standard {
			// Assembly and C of the build; the standard library's are left
			// out (the runtime's alone would double a -std snapshot).
			for _, name := range sorted(append(append(append(append([]string(nil), p.SFiles...), p.CFiles...), p.CXXFiles...), p.HFiles...)) {
				mf, _, err := out.add(filepath.Join(p.Dir, name), path.Join(p.ImportPath, name))
				if err != nil {
					return nil, err
				}
				mp.OtherFiles = append(mp.OtherFiles, mf)
			}
		}
		m.Packages = append(m.Packages, mp)
		sources = append(sources, srcs)
		importPaths = append(importPaths, p.ImportPath)
	}
	for _, mm := range mods {
		if gm := goMods[mm.Path]; gm != "" {
			mf, _, err := out.add(gm, path.Join(mm.Path, "go.mod"))
			if err != nil {
				return nil, err
			}
			mm.Files = []codesnap.File{mf}
		}
		m.Modules = append(m.Modules, mm)
	}
	sort.Slice(m.Modules, func(i, j int) bool { return m.Modules[i].Path < m.Modules[j].Path })
	order := make([]int, len(m.Packages))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return m.Packages[order[i]].ImportPath < m.Packages[order[j]].ImportPath })
	sortedPkgs := make([]codesnap.Package, len(order))
	sortedSrcs := make([][]codeindex.Source, len(order))
	for i, k := range order {
		sortedPkgs[i], sortedSrcs[i] = m.Packages[k], sources[k]
	}
	m.Packages = sortedPkgs
	index, err := codeindex.Build(sortedSrcs...)
	if err != nil {
		return nil, fmt.Errorf("indexing: %w", err)
	}
	warn := cfg.warn
	if warn == nil {
		warn = io.Discard
	}
	refs, err := references(ctx, cfg, importPaths, goFiles, m.GOARCH, warn)
	if err != nil {
		return nil, err
	}
	var ib bytes.Buffer
	ib.Write(index)
	if err := codeindex.EncodeRefs(&ib, refs); err != nil {
		return nil, err
	}
	out.files[codesnap.IndexName] = ib.Bytes()
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	out.files[codesnap.ManifestName] = append(data, '\n')
	return out, nil
}

// add reads the file abs into the snapshot as src/<rel> with the source
// suffix and returns its manifest entry and content.
func (out *snapshotFiles) add(abs, rel string) (codesnap.File, []byte, error) {
	data, err := os.ReadFile(abs)
	if err != nil {
		return codesnap.File{}, nil, err
	}
	loc := path.Join("src", rel+codesnap.SourceSuffix)
	out.files[loc] = data
	sum := sha256.Sum256(data)
	return codesnap.File{Name: path.Base(rel), Path: loc, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}, data, nil
}

// listPackages runs go list for cfg.pkg and its dependencies.
func listPackages(ctx context.Context, cfg config) ([]listedPackage, error) {
	args := []string{"list", "-deps", "-json=ImportPath,Name,Dir,Standard,GoFiles,CgoFiles,SFiles,CFiles,CXXFiles,HFiles,Module,Error"}
	if cfg.tags != "" {
		args = append(args, "-tags", cfg.tags)
	}
	args = append(args, "--", cfg.pkg)
	data, err := run(ctx, cfg, "go", args...)
	if err != nil {
		return nil, err
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: package %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, errors.New("go list returned no packages")
	}
	return pkgs, nil
}

func manifestModule(lm *listedModule) codesnap.Module {
	mm := codesnap.Module{Path: lm.Path, Version: lm.Version, Sum: lm.Sum, Main: lm.Main}
	if r := lm.Replace; r != nil {
		mm.Replace, mm.Sum = r.Path, r.Sum
		if r.Version != "" {
			mm.Replace += "@" + r.Version
		} else {
			mm.Local = true
		}
	}
	return mm
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func run(ctx context.Context, cfg config, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = cfg.dir, cfg.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
