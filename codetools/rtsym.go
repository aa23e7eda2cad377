package codetools

import "strings"

// linkSym is a function symbol of the linker, parsed for attribution to
// the declaration it belongs to.
//
// The compiler names a closure after the function that contains it
// (F.func1, T.M.func2, F.func1.1, F.gowrap1, F.deferwrap1, F-range1, and
// glob..func1 for package-level variables). When the containing function
// was inlined, the closure's name also holds the bare names of the
// inlined functions, outermost first, and the package of the function it
// was inlined into: main.main.RequireToken.func3 is a closure of
// RequireToken (of whatever package), inlined into main.main. Method
// values add -fm, assembly ABI wrappers .abi0.
type linkSym struct {
	raw string
	pkg string // import path, unescaped ("main" for the main package)
	// rd[:nrd] are the possible (outer declaration, inlined callee)
	// splits, most likely first; more than one when a name A.B.func1
	// could be a closure of method A.B or of function B inlined into A.
	rd  [2]symReading
	nrd int
	// own reports the declaration's own code, not a closure or wrapper.
	own bool
	// glob reports code of a package-level variable's initializer.
	glob bool
}

// symReading is one reading of a symbol.
type symReading struct {
	// outer is the outer declaration: "F", "T.M", "(*T).M", "init.0".
	outer string
	// method reports that outer is a method.
	method bool
	// prefix is the symbol (without type arguments) of the function the
	// inlined callee was inlined into ("" if nothing was inlined).
	prefix string
	// inner are the candidate bare names of the innermost inlined
	// function, most specific first; empty if nothing was inlined.
	inner []string
}

// parseLinkSym parses a function symbol of the function table. It
// returns false for symbols that are not Go declarations of a package
// (type equality functions, go: symbols, C and assembly entry points
// without a package).
func parseLinkSym(raw string) (linkSym, bool) {
	// Type arguments go first: the shapes of generic instantiations may
	// hold spaces and dots (F[go.shape.interface { M() }]).
	s := stripBrackets(raw)
	if s == "" || strings.HasPrefix(s, "type:") || strings.HasPrefix(s, "go:") || strings.HasPrefix(s, "go.") ||
		strings.ContainsAny(s, " \t\n") {
		return linkSym{}, false
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot <= 0 {
		return linkSym{}, false
	}
	cut := slash + 1 + dot
	sym := linkSym{raw: raw, pkg: unescapeSymbol(s[:cut]), own: true}
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
		base := trimWrapper(t)
		if base != t {
			if sym.own {
				orig = append([]string(nil), toks...)
			}
			sym.own = false
			toks[i] = base
		}
		named[i] = base != "" && !isClosureSegment(base)
	}
	if len(toks) > 1 && (toks[0] == "glob" && toks[1] == "" || toks[0] == "map" && toks[1] == "init") {
		// A closure in, or the outlined initialization of, a package-level
		// variable.
		sym.glob, sym.own = true, false
		return sym, true
	}
	if !named[0] {
		return linkSym{}, false
	}
	if toks[0] == "init" && len(toks) > 1 && !isDigits(toks[1]) && !named[1] {
		// A closure of the package initializer: code of a package-level
		// variable's initializer.
		sym.glob, sym.own = true, false
		return sym, true
	}
	own := sym.own
	sym.own = false
	add := func(outer string, method bool, rest int) {
		r := symReading{outer: outer, method: method}
		if rest == len(toks) {
			sym.own = own
		}
		// The innermost run of named tokens after the outer declaration
		// names the inlined function whose code this is.
		end := len(toks)
		for end > rest && !named[end-1] {
			end--
		}
		start := end
		for start > rest && named[start-1] {
			start--
		}
		if start < end {
			r.prefix = s[:cut+1] + strings.Join(orig[:start], ".")
			run := toks[start:end]
			switch {
			case len(run) >= 2 && strings.HasPrefix(run[len(run)-2], "(*"):
				r.inner = []string{run[len(run)-2] + "." + run[len(run)-1]}
			case len(run) >= 2:
				r.inner = []string{run[len(run)-2] + "." + run[len(run)-1], run[len(run)-1]}
			default:
				r.inner = []string{run[0]}
			}
		}
		sym.rd[sym.nrd] = r
		sym.nrd++
	}
	switch {
	case strings.HasPrefix(toks[0], "(*"):
		if len(toks) < 2 || !named[1] || !validIdent(strings.TrimSuffix(strings.TrimPrefix(toks[0], "(*"), ")")) {
			return linkSym{}, false
		}
		add(toks[0]+"."+toks[1], true, 2)
	case toks[0] == "init" && len(toks) > 1 && isDigits(toks[1]):
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

// readings returns the possible (outer declaration, inlined callee)
// splits of the symbol, most likely first.
func (s *linkSym) readings() []symReading { return s.rd[:s.nrd] }

// declID returns the id of declaration name (as in symReading.outer or
// inner) of package pkg.
func declID(pkg, name string) string {
	return pkg + "." + name
}
