package codeindex

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// RefsHeader starts the references section of an index, which follows
// the declarations:
//
//	refs embedmcp-codetools-refs/1 <files> <symbols> <sites>
//	F src/example.com/app/main.go.txt
//	P example.com/app
//	S f main
//	S m (*Server).Handle
//	S a Store.Get 0 14
//	I 3 7 9*
//	M 3 Mutex 12 13
//	E 0
//	D 1
//	12 2c 5r
//	0 3v
//
// Its records begin with an upper-case letter or a digit, so that readers
// of the declarations skip them:
//
//   - F names a file of the snapshot by its path (files are numbered from
//     0 in order).
//   - P sets the package of the S records that follow.
//   - S is a symbol (numbered from 0 in order; sorted by id, the package
//     path, a dot and the name): its [SymKind] and its name as the
//     declaration index names it ("F", "T", "(*T).M", "T.M"), or "I.M" for
//     a method of interface I and "T.F" for a field of struct T, which
//     also give their file and line. The symbols are the declarations of
//     the snapshot that take part in a reference and the declarations of
//     other packages they refer to.
//   - I lists the interfaces a type implements; "*" marks one that only
//     the pointer type implements.
//   - M lists methods of a type promoted through its embedded field Via
//     (for an interface: the methods of an embedded interface).
//   - E starts the reference sites of a file, D sets the declaration that
//     encloses the sites that follow, and a line of numbers is one source
//     line: its distance from the previous site line of the file, then each
//     symbol referred to on it with its [RefKind].
//
// All numbers are decimal. Readers skip records of kinds they do not know.
const RefsHeader = "refs embedmcp-codetools-refs/1"

// SymKind is the kind of a symbol of the references.
type SymKind byte

// Symbol kinds.
const (
	SymFunc      SymKind = 'f'
	SymMethod    SymKind = 'm'
	SymType      SymKind = 't'
	SymInterface SymKind = 'i'
	SymVar       SymKind = 'v'
	SymConst     SymKind = 'c'
	// SymAbstract is a method of an interface type.
	SymAbstract SymKind = 'a'
	// SymField is a field of a struct type.
	SymField SymKind = 'd'
)

func (k SymKind) valid() bool {
	switch k {
	case SymFunc, SymMethod, SymType, SymInterface, SymVar, SymConst, SymAbstract, SymField:
		return true
	}
	return false
}

// RefKind says how a site refers to a symbol.
type RefKind byte

// Reference kinds.
const (
	// RefCall is a static call of a function or method.
	RefCall RefKind = 'c'
	// RefDynamic is a call of an interface method: which method runs is
	// decided at run time.
	RefDynamic RefKind = 'd'
	// RefValue takes a function or method as a value (a method value, a
	// method expression, a function passed as an argument), to be called
	// later.
	RefValue RefKind = 'v'
	// RefRead is any other use: a type in a signature, a read of a
	// variable or field, a constant.
	RefRead RefKind = 'r'
	// RefWrite assigns to a variable or field (an assignment, ++ or --,
	// or a field key of a composite literal).
	RefWrite RefKind = 'w'
)

func (k RefKind) valid() bool {
	switch k {
	case RefCall, RefDynamic, RefValue, RefRead, RefWrite:
		return true
	}
	return false
}

// Sym is a symbol of the references.
type Sym struct {
	Pkg  string
	Name string
	Kind SymKind
	// File and Line locate interface methods and fields (File indexes
	// Refs.Files); File is -1 otherwise.
	File, Line int32
}

// ID returns the symbol's id: its package path, a dot and its name.
func (s *Sym) ID() string { return s.Pkg + "." + s.Name }

// Site is one reference: a line of a file where declaration From refers
// to symbol To.
type Site struct {
	File, Line int32
	From, To   int32
	Kind       RefKind
}

// Impl records that type Type implements interface Iface; PtrOnly that
// only the pointer type does.
type Impl struct {
	Type, Iface int32
	PtrOnly     bool
}

// Promoted records a method of type Type promoted through its embedded
// field Via.
type Promoted struct {
	Type, Method int32
	Via          string
}

// Refs are the references of a snapshot.
type Refs struct {
	Files []string
	// Syms are sorted by ID.
	Syms     []Sym
	Impls    []Impl
	Promoted []Promoted
	// Sites are sorted by file, line, enclosing declaration, symbol and
	// kind, without duplicates.
	Sites []Site
}

// EncodeRefs writes the references section of an index.
func EncodeRefs(w io.Writer, r *Refs) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s %d %d %d\n", RefsHeader, len(r.Files), len(r.Syms), len(r.Sites))
	for _, f := range r.Files {
		bw.WriteString("F ")
		bw.WriteString(f)
		bw.WriteByte('\n')
	}
	var num []byte
	putInt := func(n int32) {
		num = strconv.AppendInt(append(num[:0], ' '), int64(n), 10)
		bw.Write(num)
	}
	pkg := "\x00"
	for _, s := range r.Syms {
		if s.Pkg != pkg {
			pkg = s.Pkg
			bw.WriteString("P ")
			bw.WriteString(pkg)
			bw.WriteByte('\n')
		}
		bw.WriteString("S ")
		bw.WriteByte(byte(s.Kind))
		bw.WriteByte(' ')
		bw.WriteString(s.Name)
		if s.File >= 0 {
			putInt(s.File)
			putInt(s.Line)
		}
		bw.WriteByte('\n')
	}
	for i := 0; i < len(r.Impls); {
		t := r.Impls[i].Type
		bw.WriteString("I")
		putInt(t)
		for ; i < len(r.Impls) && r.Impls[i].Type == t; i++ {
			putInt(r.Impls[i].Iface)
			if r.Impls[i].PtrOnly {
				bw.WriteByte('*')
			}
		}
		bw.WriteByte('\n')
	}
	for i := 0; i < len(r.Promoted); {
		p := r.Promoted[i]
		bw.WriteString("M")
		putInt(p.Type)
		bw.WriteByte(' ')
		bw.WriteString(p.Via)
		for ; i < len(r.Promoted) && r.Promoted[i].Type == p.Type && r.Promoted[i].Via == p.Via; i++ {
			putInt(r.Promoted[i].Method)
		}
		bw.WriteByte('\n')
	}
	file, line, from := int32(-1), int32(0), int32(-1)
	open := false
	for _, s := range r.Sites {
		if s.File != file {
			if open {
				bw.WriteByte('\n')
				open = false
			}
			file, line, from = s.File, 0, -1
			bw.WriteString("E")
			putInt(file)
			bw.WriteByte('\n')
		}
		if s.From != from {
			if open {
				bw.WriteByte('\n')
				open = false
			}
			from = s.From
			bw.WriteString("D")
			putInt(from)
			bw.WriteByte('\n')
		}
		if !open || s.Line != line {
			if open {
				bw.WriteByte('\n')
			}
			bw.Write(strconv.AppendInt(num[:0], int64(s.Line-line), 10))
			line, open = s.Line, true
		}
		putInt(s.To)
		bw.WriteByte(byte(s.Kind))
	}
	if open {
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ErrNoRefs reports an index without a references section (written by an
// earlier mcpsnapshot).
var ErrNoRefs = fmt.Errorf("the snapshot index holds no references")

// ReadRefs reads the references section of the index read from r. It
// returns an error wrapping ErrNoRefs when there is none, and one wrapping
// ErrFormat when it is malformed.
func ReadRefs(r io.Reader) (*Refs, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	ln := 0
	errorf := func(format string, args ...any) error {
		return fmt.Errorf("%w: line %d: %s", ErrFormat, ln, fmt.Sprintf(format, args...))
	}
	var out Refs
	found := false
	for sc.Scan() {
		ln++
		b := sc.Bytes()
		if rest, ok := bytes.CutPrefix(b, []byte(RefsHeader+" ")); ok {
			f := bytes.Fields(rest)
			if len(f) != 3 {
				return nil, errorf("bad references header")
			}
			var n [3]int32
			for i := range n {
				v, ok := atoi(f[i])
				if !ok {
					return nil, errorf("bad references header")
				}
				n[i] = v
			}
			// The counts size the tables; a damaged index cannot make them huge.
			const most = 1 << 22
			out.Files = make([]string, 0, min(n[0], most))
			out.Syms = make([]Sym, 0, min(n[1], most))
			out.Sites = make([]Site, 0, min(n[2], most))
			found = true
			break
		}
	}
	if !found {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, ErrNoRefs
	}
	pkg := ""
	file, line, from := int32(-1), int32(0), int32(-1)
	sym := func(b []byte) (int32, bool) {
		v, ok := atoi(b)
		return v, ok && int(v) < len(out.Syms)
	}
	for sc.Scan() {
		ln++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		switch c := b[0]; {
		case c == 'F' && len(b) > 2 && b[1] == ' ':
			out.Files = append(out.Files, string(b[2:]))
		case c == 'P' && len(b) > 2 && b[1] == ' ':
			pkg = string(b[2:])
		case c == 'S' && len(b) > 4 && b[1] == ' ' && b[3] == ' ':
			s := Sym{Pkg: pkg, Kind: SymKind(b[2]), File: -1}
			if !s.Kind.valid() {
				return nil, errorf("unknown symbol kind %q", b[2])
			}
			f := bytes.Fields(b[4:])
			switch len(f) {
			case 1:
			case 3:
				fi, ok1 := atoi(f[1])
				l, ok2 := atoi(f[2])
				if !ok1 || !ok2 || int(fi) >= len(out.Files) {
					return nil, errorf("bad symbol position")
				}
				s.File, s.Line = fi, l
			default:
				return nil, errorf("bad symbol record")
			}
			s.Name = string(f[0])
			if n := len(out.Syms); n > 0 && compareIDs(&out.Syms[n-1], &s) >= 0 {
				return nil, errorf("symbols out of order")
			}
			out.Syms = append(out.Syms, s)
		case c == 'I':
			f := bytes.Fields(b[1:])
			t, ok := sym(f0(f))
			if !ok || len(f) < 2 {
				return nil, errorf("bad implementation record")
			}
			for _, x := range f[1:] {
				ptr := bytes.HasSuffix(x, []byte("*"))
				i, ok := sym(bytes.TrimSuffix(x, []byte("*")))
				if !ok {
					return nil, errorf("bad implementation record")
				}
				out.Impls = append(out.Impls, Impl{Type: t, Iface: i, PtrOnly: ptr})
			}
		case c == 'M':
			f := bytes.Fields(b[1:])
			t, ok := sym(f0(f))
			if !ok || len(f) < 3 {
				return nil, errorf("bad promoted-method record")
			}
			via := string(f[1])
			for _, x := range f[2:] {
				m, ok := sym(x)
				if !ok {
					return nil, errorf("bad promoted-method record")
				}
				out.Promoted = append(out.Promoted, Promoted{Type: t, Method: m, Via: via})
			}
		case c == 'E':
			v, ok := atoi(bytes.TrimSpace(b[1:]))
			if !ok || int(v) >= len(out.Files) {
				return nil, errorf("bad file number")
			}
			file, line, from = v, 0, -1
		case c == 'D':
			v, ok := sym(bytes.TrimSpace(b[1:]))
			if !ok {
				return nil, errorf("bad declaration number")
			}
			from = v
		case '0' <= c && c <= '9':
			if file < 0 || from < 0 {
				return nil, errorf("site before its file or declaration")
			}
			f := bytes.Fields(b)
			d, ok := atoi(f[0])
			if !ok || len(f) < 2 || line > math.MaxInt32-d {
				return nil, errorf("bad site record")
			}
			line += d
			for _, x := range f[1:] {
				k := RefKind(x[len(x)-1])
				to, ok := sym(x[:len(x)-1])
				if !ok || !k.valid() {
					return nil, errorf("bad reference %.20q", x)
				}
				out.Sites = append(out.Sites, Site{File: file, Line: line, From: from, To: to, Kind: k})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return &out, nil
}

// compareIDs compares the ids of a and b, as strings.Compare would,
// without making them.
func compareIDs(a, b *Sym) int {
	if a.Pkg == b.Pkg {
		return strings.Compare(a.Name, b.Name)
	}
	at := func(s *Sym, i int) int {
		switch {
		case i < len(s.Pkg):
			return int(s.Pkg[i])
		case i == len(s.Pkg):
			return '.'
		case i-len(s.Pkg)-1 < len(s.Name):
			return int(s.Name[i-len(s.Pkg)-1])
		}
		return -1 // past the end
	}
	for i := 0; ; i++ {
		x, y := at(a, i), at(b, i)
		if x != y || x < 0 {
			return cmp.Compare(x, y)
		}
	}
}

func f0(f [][]byte) []byte {
	if len(f) == 0 {
		return nil
	}
	return f[0]
}
