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
)

// config holds the command-line settings.
type config struct {
	dir  string // working directory for go and git; "" means current
	out  string
	deps bool
	std  bool
	tags string
	pkg  string
}

// listedPackage is the subset of "go list -json" output used here.
type listedPackage struct {
	ImportPath string
	Name       string
	Dir        string
	Standard   bool
	GoFiles    []string
	CgoFiles   []string
	Module     *listedModule
	Error      *struct{ Err string }
}

type listedModule struct {
	Path    string
	Version string
	Sum     string
	Main    bool
	Dir     string
	Replace *listedModule
}

// generate writes the snapshot described by cfg and returns its manifest.
func generate(ctx context.Context, cfg config) (*codetools.Manifest, error) {
	args := []string{"list", "-deps", "-json"}
	if cfg.tags != "" {
		args = append(args, "-tags", cfg.tags)
	}
	args = append(args, "--", cfg.pkg)
	out, err := run(ctx, cfg.dir, "go", args...)
	if err != nil {
		return nil, err
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
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
	root := pkgs[len(pkgs)-1] // -deps lists the named package last
	if root.Name != "main" {
		return nil, fmt.Errorf("package %s is not a main package", root.ImportPath)
	}
	m := &codetools.Manifest{Format: codetools.SnapshotFormat, MainPackage: root.ImportPath}
	env, err := run(ctx, cfg.dir, "go", "env", "GOOS", "GOARCH", "GOVERSION")
	if err != nil {
		return nil, err
	}
	if f := strings.Fields(string(env)); len(f) == 3 {
		m.GOOS, m.GOARCH, m.GoVersion = f[0], f[1], f[2]
	}
	if cfg.tags != "" {
		for _, t := range strings.Split(cfg.tags, ",") {
			if t = strings.TrimSpace(t); t != "" {
				m.Tags = append(m.Tags, t)
			}
		}
	}
	if root.Module != nil && root.Module.Dir != "" {
		m.Revision, m.Dirty = vcsState(ctx, root.Module.Dir)
	}
	if err := os.RemoveAll(filepath.Join(cfg.out, "src")); err != nil {
		return nil, err
	}
	mods := map[string]codetools.ManifestModule{}
	for _, p := range pkgs {
		if p.Module != nil {
			mm := codetools.ManifestModule{Path: p.Module.Path, Version: p.Module.Version, Sum: p.Module.Sum, Main: p.Module.Main}
			if p.Module.Replace != nil && mm.Version == "" {
				mm.Version = p.Module.Replace.Version
			}
			mods[mm.Path] = mm
		}
		include := p.Standard && cfg.std ||
			p.Module != nil && (p.Module.Main || cfg.deps)
		if !include {
			continue
		}
		mp := codetools.ManifestPackage{ImportPath: p.ImportPath, Name: p.Name, Standard: p.Standard}
		if p.Module != nil {
			mp.Module = p.Module.Path
		}
		files := append(append([]string(nil), p.GoFiles...), p.CgoFiles...)
		sort.Strings(files)
		for _, name := range files {
			data, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				return nil, err
			}
			rel := path.Join("src", p.ImportPath, name+codetools.SourceSuffix)
			dst := filepath.Join(cfg.out, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return nil, err
			}
			sum := sha256.Sum256(data)
			mp.Files = append(mp.Files, codetools.ManifestFile{Name: name, Path: rel,
				SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))})
		}
		m.Packages = append(m.Packages, mp)
	}
	for _, mm := range mods {
		m.Modules = append(m.Modules, mm)
	}
	sort.Slice(m.Modules, func(i, j int) bool { return m.Modules[i].Path < m.Modules[j].Path })
	sort.Slice(m.Packages, func(i, j int) bool { return m.Packages[i].ImportPath < m.Packages[j].ImportPath })
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cfg.out, codetools.ManifestName), append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	return m, nil
}

// vcsState returns the git revision of dir and whether its tree is
// modified; it returns "" when git or a repository is unavailable.
func vcsState(ctx context.Context, dir string) (rev string, dirty bool) {
	out, err := run(ctx, dir, "git", "rev-parse", "HEAD")
	if err != nil {
		return "", false
	}
	rev = strings.TrimSpace(string(out))
	st, err := run(ctx, dir, "git", "status", "--porcelain")
	return rev, err != nil || len(bytes.TrimSpace(st)) > 0
}

func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
