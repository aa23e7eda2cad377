package codetools

import (
	"sort"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// Consistency says whether the snapshot source of an entry is the source
// the running binary was compiled from.
//
// Two kinds of evidence are weighed, for the module that holds the entry
// (the standard library counts as one module):
//
//   - lines: the binary's line table against the snapshot's declarations.
//     Every linked function, closure and inlined body of the module must
//     lie in the same file as its declaration in the snapshot, start on
//     the declaration's line and stay within its lines. One difference
//     makes the whole module stale.
//   - version: the snapshot manifest against the binary's build
//     information. The standard library must be of the same Go version;
//     a dependency of the same version and go.sum hash; the main module
//     must have been built from a clean checkout (a VCS stamp with
//     vcs.modified=false), which holds the committed snapshot.
//
// Status is "stale" when either shows a difference, "match" when both
// positively agree, and "unverified" when a difference could not be seen:
// a module replaced by a local directory has no version to compare, a
// binary without a VCS stamp (go run, -buildvcs=false) or built from a
// modified tree may hold edits that move no line.
type Consistency struct {
	Status string `json:"status" jsonschema:"match, stale or unverified."`
	Reason string `json:"reason,omitempty" jsonschema:"Why the status is what it is (left out of a compact match)."`
	// Lines and Version are the two checks behind Status.
	Lines   Check `json:"lines,omitzero" jsonschema:"The binary's line table against the snapshot's declarations, for the entry's module."`
	Version Check `json:"version,omitzero" jsonschema:"The snapshot manifest against the binary's build information, for the entry's module."`
	// FirstDifference is the first function (in snapshot file and line
	// order) whose lines differ, when Lines is stale.
	FirstDifference *Difference `json:"firstDifference,omitempty" jsonschema:"First function whose lines differ between the snapshot and the binary."`
}

// Check is one consistency check.
type Check struct {
	// Status is "match", "stale", "unverified" or "not-applicable".
	Status   string `json:"status" jsonschema:"match, stale, unverified or not-applicable."`
	Snapshot string `json:"snapshot,omitempty" jsonschema:"Value on the snapshot side."`
	Binary   string `json:"binary,omitempty" jsonschema:"Value on the binary side."`
	Reason   string `json:"reason,omitempty" jsonschema:"Why the status is what it is."`
}

// Difference locates a function whose lines differ between the snapshot
// and the binary.
type Difference struct {
	Name         string `json:"name" jsonschema:"Id of the declaration."`
	SnapshotFile string `json:"snapshotFile,omitempty" jsonschema:"File of the declaration in the snapshot."`
	SnapshotLine int    `json:"snapshotLine,omitempty" jsonschema:"Line of the declaration in the snapshot."`
	BinaryFile   string `json:"binaryFile" jsonschema:"File of the code in the binary's line table."`
	BinaryLine   int    `json:"binaryLine,omitempty" jsonschema:"Line of the code in the binary's line table."`
	What         string `json:"what" jsonschema:"What differs."`
}

// Consistency and check states.
const (
	StatusMatch         = "match"
	StatusStale         = "stale"
	StatusUnverified    = "unverified"
	StatusNotApplicable = "not-applicable"
)

// moduleCheck is the consistency of one module of the snapshot.
type moduleCheck struct {
	lines, version Check
	first          *Difference
	status, reason string
}

// checkModules weighs the evidence for every module of the snapshot.
func (c *Catalog) checkModules(s *snapshot.Snapshot, ev map[string]*index.LineEvidence) map[string]*moduleCheck {
	if s == nil {
		return nil
	}
	keys := map[string]bool{}
	for _, p := range s.Manifest.Packages {
		if !s.Pkgs[p.ImportPath] {
			continue
		}
		if p.Standard {
			keys["std"] = true
		} else if mi, ok := s.ModOf[p.ImportPath]; ok {
			keys[s.Manifest.Modules[mi].Path] = true
		}
	}
	target := c.targetCheck(s)
	out := make(map[string]*moduleCheck, len(keys))
	for k := range keys {
		m := &moduleCheck{lines: linesCheck(k, ev[k])}
		if e := ev[k]; e != nil && e.First != nil {
			d := e.First
			m.first = &Difference{Name: d.Name, SnapshotFile: d.SnapFile, SnapshotLine: int(d.SnapLine),
				BinaryFile: d.BinFile, BinaryLine: int(d.BinLine), What: d.What}
			if d.SnapFile == "" || d.SnapLine == 0 {
				m.first.SnapshotFile, m.first.SnapshotLine = "", 0
			}
		}
		switch {
		case target.Status == StatusStale:
			m.version = target
		case k == "std":
			m.version = c.stdCheck(s)
		default:
			for _, mm := range s.Manifest.Modules {
				if mm.Path == k {
					if mm.Main {
						m.version = c.mainCheck(s, mm)
					} else {
						m.version = c.depCheck(mm)
					}
				}
			}
		}
		m.status, m.reason = combine(m.lines, m.version)
		out[k] = m
	}
	return out
}

// combine weighs two checks.
func combine(lines, version Check) (status, reason string) {
	switch {
	case lines.Status == StatusStale:
		return StatusStale, lines.Reason
	case version.Status == StatusStale:
		return StatusStale, version.Reason
	case lines.Status == StatusMatch && version.Status == StatusMatch:
		return StatusMatch, lines.Reason + "; " + version.Reason
	case lines.Status == StatusUnverified && version.Status == StatusUnverified:
		return StatusUnverified, lines.Reason + "; " + version.Reason
	case lines.Status == StatusUnverified:
		return StatusUnverified, lines.Reason
	default:
		return StatusUnverified, version.Reason
	}
}

func linesCheck(module string, e *index.LineEvidence) Check {
	what := "module " + module
	if module == "std" {
		what = "the standard library"
	}
	switch {
	case e == nil || e.Compared == 0:
		return Check{Status: StatusUnverified, Reason: "no linked function of " + what + " could be compared with the line table"}
	case e.Diffs > 0:
		d := e.First
		return Check{Status: StatusStale, Snapshot: fileLine(d.SnapFile, d.SnapLine), Binary: fileLine(d.BinFile, d.BinLine),
			Reason: "the binary's line table differs from the snapshot in " + what + ": " + d.Name + " " + d.What +
				" (" + itoa(e.Diffs) + " of " + itoa(e.Compared) + " functions differ); regenerate the snapshot"}
	default:
		return Check{Status: StatusMatch, Reason: "the line table agrees with the snapshot for all " + itoa(e.Compared) +
			" linked functions of " + what}
	}
}

func fileLine(file string, line int32) string {
	if file == "" {
		return ""
	}
	if line <= 0 {
		return file
	}
	return file + ":" + itoa(int(line))
}

// targetCheck compares the snapshot's target platform and build tags
// with the binary's; a difference changes which files are compiled.
func (c *Catalog) targetCheck(s *snapshot.Snapshot) Check {
	bi := c.build.info
	snapTarget, binTarget := s.Manifest.GOOS+"/"+s.Manifest.GOARCH, bi.GOOS+"/"+bi.GOARCH
	if bi.GOOS != "" && bi.GOARCH != "" && snapTarget != binTarget {
		return Check{Status: StatusStale, Snapshot: snapTarget, Binary: binTarget,
			Reason: "the snapshot was made for " + snapTarget + ", the binary is built for " + binTarget}
	}
	snapTags, binTags := normTags(strings.Join(s.Manifest.Tags, ",")), normTags(bi.Tags)
	if snapTags != binTags {
		return Check{Status: StatusStale, Snapshot: snapTags, Binary: binTags,
			Reason: "the snapshot was made with build tags " + quoteOrNone(snapTags) + ", the binary with " + quoteOrNone(binTags)}
	}
	return Check{Status: StatusMatch}
}

func normTags(s string) string {
	var tags []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	sort.Strings(tags)
	return strings.Join(tags, ",")
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return `"` + s + `"`
}

func (c *Catalog) stdCheck(s *snapshot.Snapshot) Check {
	snap, bin := s.Manifest.GoVersion, c.build.info.GoVersion
	ch := Check{Snapshot: snap, Binary: bin}
	switch {
	case snap == "" || bin == "":
		ch.Status, ch.Reason = StatusUnverified, "the Go version is not recorded in both the snapshot and the binary"
	case snap != bin:
		ch.Status, ch.Reason = StatusStale, "the snapshot holds the standard library of "+snap+", the binary was built with "+bin
	case strings.Contains(bin, "devel"):
		ch.Status, ch.Reason = StatusUnverified, "both are "+bin+", a development toolchain whose library has no fixed content"
	default:
		ch.Status, ch.Reason = StatusMatch, "both are "+bin
	}
	return ch
}

func (c *Catalog) mainCheck(s *snapshot.Snapshot, mm codesnap.Module) Check {
	bi := c.build.info
	ch := Check{Snapshot: mm.Path, Binary: bi.MainModule.Path}
	switch {
	case bi.MainModule.Path != "" && bi.MainModule.Path != mm.Path:
		ch.Status, ch.Reason = StatusStale, "the snapshot is of module "+mm.Path+", the binary's main module is "+bi.MainModule.Path
		return ch
	case bi.Path != "" && bi.Path != "command-line-arguments" && bi.Path != s.Manifest.MainPackage:
		ch.Snapshot, ch.Binary = s.Manifest.MainPackage, bi.Path
		ch.Status, ch.Reason = StatusStale, "the snapshot was made for main package "+s.Manifest.MainPackage+", the binary is "+bi.Path
		return ch
	}
	ch.Snapshot, ch.Binary = "", bi.VCSRevision
	switch bi.VCSModified {
	case "false":
		ch.Status = StatusMatch
		ch.Reason = "the binary was built from a clean " + orDefault(bi.VCS, "VCS") + " checkout at " + shortRev(bi.VCSRevision) +
			", which holds the committed snapshot (keep it fresh with mcpsnapshot -check in CI)"
	case "true":
		ch.Status = StatusUnverified
		ch.Reason = "the binary was built from a modified working tree, so edits that move no line cannot be seen"
	default:
		ch.Status = StatusUnverified
		ch.Reason = "the binary has no VCS stamp (go run, -buildvcs=false or no repository), so edits that move no line cannot be seen"
	}
	return ch
}

func (c *Catalog) depCheck(mm codesnap.Module) Check {
	dep, ok := c.build.deps[mm.Path]
	snap := versionOf(mm.Version, mm.Sum, mm.Replace, mm.Local)
	ch := Check{Snapshot: snap}
	if !ok {
		ch.Status, ch.Reason = StatusStale, "module "+mm.Path+" is in the snapshot but not in the binary's build"
		return ch
	}
	local := dep.Replace != "" && (dep.replaceVersion == "" || dep.replaceVersion == "(devel)")
	ch.Binary = versionOf(dep.Version, dep.Sum, dep.Replace, local)
	switch {
	case local && mm.Local:
		ch.Status = StatusUnverified
		ch.Reason = "module " + mm.Path + " is replaced by the local directory " + dep.replacePath +
			", whose content has no version or checksum to compare"
	case ch.Snapshot != ch.Binary:
		ch.Status, ch.Reason = StatusStale, "module "+mm.Path+" is "+ch.Snapshot+" in the snapshot, "+ch.Binary+" in the binary"
	case mm.Sum == "" && mm.Replace == "":
		ch.Status, ch.Reason = StatusUnverified, "module "+mm.Path+" has no go.sum checksum to compare"
	default:
		ch.Status, ch.Reason = StatusMatch, "module "+mm.Path+" is "+ch.Binary+" in both"
	}
	return ch
}

// versionOf formats a module's version for comparison: version and
// checksum, or the replacement.
func versionOf(version, sum, replace string, local bool) string {
	v := version
	if replace != "" {
		v += " => " + replace
		if local {
			v += " (local)"
		}
	}
	if sum != "" {
		v += " " + sum
	}
	return v
}

func shortRev(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	if r == "" {
		return "an unknown revision"
	}
	return r
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// consistency returns the consistency of entry e.
func (x renderer) consistency(e *index.Entry) Consistency {
	b := x.base
	switch {
	case e.Snap < 0 && e.Sources&index.SrcRegistered != 0 && e.Sources&index.SrcRuntime == 0:
		u := Check{Status: StatusNotApplicable, Reason: "registered entries are not compared with the binary"}
		return Consistency{Status: StatusUnverified, Reason: u.Reason, Lines: u, Version: u}
	case e.Snap < 0:
		reason := "no snapshot source for this entry, so there is nothing to compare"
		if b.SnapshotErr != nil && b.Snap == nil {
			reason = "no snapshot source: " + b.SnapshotErr.Error()
		}
		u := Check{Status: StatusNotApplicable, Reason: reason}
		return Consistency{Status: StatusUnverified, Reason: reason, Lines: u, Version: u}
	}
	key := "std"
	if mi, ok := b.Snap.ModOf[e.Pkg]; ok {
		key = b.Snap.Manifest.Modules[mi].Path
	}
	m := b.modules[key]
	if m == nil {
		u := Check{Status: StatusUnverified, Reason: "the package's module is not described by the snapshot manifest"}
		return Consistency{Status: StatusUnverified, Reason: u.Reason, Lines: u, Version: u}
	}
	out := Consistency{Status: m.status, Reason: m.reason, Lines: m.lines, Version: m.version, FirstDifference: m.first}
	if !b.Snap.Verify(e.Snap) {
		out.Status = StatusStale
		out.Reason = "the snapshot file " + b.Snap.Files[e.Snap].Path + " does not match the sha256 in its manifest: the snapshot is damaged; regenerate it"
	}
	return out
}
