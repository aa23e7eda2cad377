package gofunc

import "strings"

// Symbol is a function symbol of the linker (a name of the function
// table), read for attribution to the declaration it belongs to.
//
// The compiler names a closure after the function that contains it
// (F.func1, T.M.func2, F.func1.1, F.gowrap1, F.deferwrap1, F-range1, and
// glob..func1 for package-level variables). When the containing function
// was inlined, the closure's name also holds the bare names of the
// inlined functions, outermost first, and the package of the function it
// was inlined into: main.main.RequireToken.func3 is a closure of
// RequireToken (of whatever package), inlined into main.main. Method
// values add -fm, assembly ABI wrappers .abi0.
type Symbol struct {
	Raw string // the symbol as the table holds it
	Pkg string // import path, unescaped ("main" for the main package)
	// Own reports the declaration's own code, not a closure or wrapper.
	Own bool
	// Glob reports code of a package-level variable's initializer.
	Glob bool
	// rd[:nrd] are the possible (outer declaration, inlined callee)
	// splits, most likely first; more than one when a name A.B.func1
	// could be a closure of method A.B or of function B inlined into A.
	rd  [2]Reading
	nrd int
}

// Reading is one reading of a symbol: the declaration its code belongs
// to and, when it was inlined, the function it was inlined from.
type Reading struct {
	// Outer is the outer declaration: "F", "T.M", "(*T).M", "init.0".
	Outer string
	// Method reports that Outer is a method.
	Method bool
	// Prefix is the symbol (without type arguments) of the function the
	// inlined callee was inlined into ("" if nothing was inlined).
	Prefix string
	// Inner are the candidate bare names of the innermost inlined
	// function, most specific first; empty if nothing was inlined.
	Inner []string
}

// Readings returns the possible (outer declaration, inlined callee)
// splits of the symbol, most likely first.
func (s *Symbol) Readings() []Reading { return s.rd[:s.nrd] }

// ParseSymbol parses a function symbol of the function table. It returns
// false for symbols that are not Go declarations of a package (type
// equality functions, go: symbols, C and assembly entry points without a
// package).
func ParseSymbol(raw string) (Symbol, bool) {
	// Type arguments go first: the shapes of generic instantiations may
	// hold spaces and dots (F[go.shape.interface { M() }]).
	s := StripTypeArgs(raw)
	if s == "" || strings.HasPrefix(s, "type:") || strings.HasPrefix(s, "go:") || strings.HasPrefix(s, "go.") ||
		strings.ContainsAny(s, " \t\n") {
		return Symbol{}, false
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot <= 0 {
		return Symbol{}, false
	}
	cut := slash + 1 + dot
	sym := Symbol{Raw: raw, Pkg: Unescape(s[:cut]), Own: true}
	toks := strings.Split(s[cut+1:], ".")
	orig := toks // replaced by a copy if a token is trimmed
	if n := len(toks); n > 1 && (toks[n-1] == "abi0" || toks[n-1] == "abiinternal") {
		toks = toks[:n-1] // an assembly function's ABI name
	}
	var small [8]bool
	named := small[:0]
	if len(toks) > len(small) {
		named = make([]bool, 0, len(toks))
	}
	named = named[:len(toks)]
	for i, t := range toks {
		base := TrimWrapper(t)
		if base != t {
			if sym.Own {
				orig = append([]string(nil), toks...)
			}
			sym.Own = false
			toks[i] = base
		}
		named[i] = base != "" && !IsClosureSegment(base)
	}
	if globCode(toks, named) {
		sym.Glob, sym.Own = true, false
		return sym, true
	}
	if !named[0] {
		return Symbol{}, false
	}
	own := sym.Own
	sym.Own = false
	add := func(outer string, method bool, rest int) {
		if rest == len(toks) {
			sym.Own = own
		}
		r := Reading{Outer: outer, Method: method}
		r.Prefix, r.Inner = inlined(s[:cut+1], orig, toks, named, rest)
		sym.rd[sym.nrd] = r
		sym.nrd++
	}
	switch {
	case strings.HasPrefix(toks[0], "(*"):
		if len(toks) < 2 || !named[1] || !ValidIdent(strings.TrimSuffix(strings.TrimPrefix(toks[0], "(*"), ")")) {
			return Symbol{}, false
		}
		add(toks[0]+"."+toks[1], true, 2)
	case toks[0] == "init" && len(toks) > 1 && IsDigits(toks[1]):
		add("init."+toks[1], false, 2)
	case len(toks) == 2 && named[1]:
		add(toks[0]+"."+toks[1], true, 2)
	case len(toks) > 2 && named[1]:
		add(toks[0]+"."+toks[1], true, 2)
		add(toks[0], false, 1)
	default:
		add(toks[0], false, 1)
	}
	return sym, true
}

// globCode reports whether the tokens of a symbol name code of a
// package-level variable's initializer: a closure in it (glob..func1), its
// outlined initialization (map.init.0), or a closure of the package
// initializer (init.func1).
func globCode(toks []string, named []bool) bool {
	return len(toks) > 1 && (toks[0] == "glob" && toks[1] == "" || toks[0] == "map" && toks[1] == "init" ||
		toks[0] == "init" && !IsDigits(toks[1]) && !named[1])
}

// inlined returns the Prefix and Inner of the reading whose outer
// declaration takes toks[:rest] (pkg is the package part of the symbol,
// with its dot; orig are the tokens before their wrapper suffixes were
// trimmed; named tells the tokens that are names): the innermost run of
// named tokens after the outer declaration names the inlined function
// whose code this is.
func inlined(pkg string, orig, toks []string, named []bool, rest int) (string, []string) {
	end := len(toks)
	for end > rest && !named[end-1] {
		end--
	}
	start := end
	for start > rest && named[start-1] {
		start--
	}
	if start == end {
		return "", nil
	}
	prefix := pkg + strings.Join(orig[:start], ".")
	run := toks[start:end]
	switch {
	case len(run) >= 2 && strings.HasPrefix(run[len(run)-2], "(*"):
		return prefix, []string{run[len(run)-2] + "." + run[len(run)-1]}
	case len(run) >= 2:
		return prefix, []string{run[len(run)-2] + "." + run[len(run)-1], run[len(run)-1]}
	default:
		return prefix, []string{run[0]}
	}
}

// StripTypeArgs removes balanced type-argument lists "[...]". The shape
// names of generic instantiations inside them may hold spaces, nested
// brackets ("go.shape.[]uint8") and quoted struct tags, whose brackets do
// not count.
func StripTypeArgs(s string) string {
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] != '[' {
			b.WriteByte(s[i])
			i++
			continue
		}
		i = typeArgsEnd(s, i)
	}
	return b.String()
}

// ElideTypeArgs replaces each type-argument list of a symbol with "[...]":
// one name for all instantiations of a generic function, which keeps
// where the lists were (F[...].G[...].func1).
func ElideTypeArgs(s string) string {
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '[' {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString("[...]")
		i = typeArgsEnd(s, i)
	}
	return b.String()
}

// PrintedName returns symbol s as the runtime prints it in stack traces,
// profiles and runtime.Frame.Function: everything from the first '[' to
// the last ']' becomes "[...]" (runtime.funcNameForPrint).
func PrintedName(s string) string {
	i := strings.IndexByte(s, '[')
	j := strings.LastIndexByte(s, ']')
	if i < 0 || j <= i {
		return s
	}
	return s[:i] + "[...]" + s[j+1:]
}

// typeArgsEnd returns the index just past the type-argument list that
// opens at s[i] ('['), or len(s) if it is not closed. Quoted strings (the
// tags of struct shapes) are skipped whole.
func typeArgsEnd(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return i + 1
			}
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		}
	}
	return len(s)
}

// Unescape undoes the linker's %xx escapes in a symbol's package path
// (such as %2e for '.').
func Unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// TrimWrapper removes compiler suffixes that start with '-', such as
// "-fm" (method values) and "-range1" (range-over-func bodies).
func TrimWrapper(s string) string {
	if i := strings.IndexByte(s, '-'); i >= 0 {
		return s[:i]
	}
	return s
}

// IsClosureSegment reports whether a dotted name segment is generated by
// the compiler for a closure or a go/defer wrapper.
func IsClosureSegment(seg string) bool {
	seg = TrimWrapper(seg)
	for _, p := range [...]string{"func", "gowrap", "deferwrap"} {
		if strings.HasPrefix(seg, p) && IsDigits(seg[len(p):]) {
			return true
		}
	}
	return IsDigits(seg)
}

// IsDigits reports whether s is a non-empty run of decimal digits, as the
// numbers in the names of closures and wrappers are.
func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ValidIdent reports whether s can be a receiver type's name in a symbol:
// not empty, and without the dots, parentheses, stars and slashes of
// other parts of a name.
func ValidIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r == '.' || r == '(' || r == ')' || r == '*' || r == '/' {
			return false
		}
	}
	return true
}
