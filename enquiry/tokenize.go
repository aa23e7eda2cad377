package enquiry

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are dropped from indexed text and from queries: they carry no
// meaning about what a tool does. The list is deliberately small.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true,
	"be": true, "by": true, "can": true, "do": true, "does": true, "for": true,
	"from": true, "how": true, "i": true, "in": true, "into": true, "is": true,
	"it": true, "its": true, "me": true, "my": true, "of": true, "on": true,
	"or": true, "so": true, "than": true, "that": true, "the": true, "then": true,
	"this": true, "to": true, "use": true, "want": true, "what": true, "which": true,
	"with": true, "you": true, "your": true,
}

// words splits s into lower-case, stemmed words: runs of letters and digits,
// with snake_case, kebab-case and dotted names split at their separators and
// camelCase and PascalCase split at case changes ("insertedLineRange" →
// inserted, line, range; "JSONSchema" → json, schema). Letters and digits
// that touch are kept together ("ek9", "E11066" → e11066). Stop words are
// kept; see terms.
func words(s string) []string { return appendWords(nil, s, false) }

// terms is words without the stop words: what is indexed and searched.
func terms(s string) []string { return appendWords(nil, s, true) }

// appendTerms appends the terms of s to dst.
func appendTerms(dst []string, s string) []string { return appendWords(dst, s, true) }

// appendWords appends the words of s to dst, without the stop words when
// dropStop is set.
func appendWords(dst []string, s string, dropStop bool) []string {
	start := -1 // byte offset of the current word, -1 outside a word
	var prev rune
	flush := func(end int) {
		if start >= 0 && end > start {
			w := stem(strings.ToLower(s[start:end]))
			if !dropStop || !stopWords[w] {
				dst = append(dst, w)
			}
		}
		start = -1
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case !isWordRune(r):
			flush(i)
		case start < 0:
			start = i
		case isUpper(r) && isLower(prev):
			flush(i) // fooBar: split before B
			start = i
		case isUpper(r) && isUpper(prev):
			// JSONSchema: split before the S when a lower-case letter follows.
			next, _ := utf8.DecodeRuneInString(s[i+size:])
			if isLower(next) {
				flush(i)
				start = i
			}
		}
		prev = r
		i += size
	}
	flush(len(s))
	return dst
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}

// stem is a light, deterministic plural stemmer: "-sses" → "-ss"
// (classes), "-ies" → "-y" (dependencies), "-xes", "-ches", "-shes" lose
// "-es" (matches), "-us", "-ss" and "-is" stay (status, class, analysis), any
// other final "s" goes (parameters, files). Words of three letters or fewer
// are left alone. It changes nothing but plurals, so "parameters" meets
// "parameter" while "extracted" and "extract" stay apart.
func stem(w string) string {
	n := len(w)
	if n <= 3 || w[n-1] != 's' {
		return w
	}
	switch {
	case strings.HasSuffix(w, "sses"):
		return w[:n-2]
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:n-2]
	case strings.HasSuffix(w, "us"), strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "is"):
		return w
	}
	return w[:n-1]
}

// normalize maps a tool name or a name-like query to its lookup key: lower
// case, surrounding space trimmed, runs of white space to "_", and a leading
// product prefix (already lower case, e.g. "ek9") followed by "_", "-" or
// "." removed. "EK9 Edit File" and "ek9_edit_file" both become "edit_file"
// with prefix "ek9".
func normalize(s, prefix string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), "_")
	if prefix != "" && len(s) > len(prefix)+1 && strings.HasPrefix(s, prefix) {
		switch s[len(prefix)] {
		case '_', '-', '.':
			s = s[len(prefix)+1:]
		}
	}
	return s
}
