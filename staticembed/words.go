package staticembed

import (
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// words calls fn with each word of text, normalized as BERT's uncased
// tokenizer normalizes it (see the package documentation), in order.
// The bytes given to fn are valid only during the call.
func (t *Table) words(text string, fn func([]byte)) {
	if t.lower {
		text = norm.NFD.String(text)
	}
	var buf []byte
	flush := func() {
		if len(buf) > 0 {
			fn(buf)
			buf = buf[:0]
		}
	}
	for _, r := range text {
		if r < 0x80 {
			// ASCII: the same rules, without the Unicode tables.
			switch {
			case r == ' ' || r == '\t' || r == '\n' || r == '\r':
				flush()
			case r < 0x20 || r == 0x7f:
			case isPunct(r):
				flush()
				buf = append(buf, byte(r))
				flush()
			case t.lower && 'A' <= r && r <= 'Z':
				buf = append(buf, byte(r+'a'-'A'))
			default:
				buf = append(buf, byte(r))
			}
			continue
		}
		switch {
		case r == 0 || r == unicode.ReplacementChar || isControl(r):
			continue
		case t.lower && unicode.Is(unicode.Mn, r):
			continue
		case isSpace(r):
			flush()
			continue
		}
		if t.lower {
			r = unicode.ToLower(r)
		}
		if isPunct(r) || isCJK(r) {
			flush()
			buf = append(buf[:0], string(r)...)
			flush()
			continue
		}
		buf = append(buf, string(r)...)
	}
	flush()
}

// isSpace reports white space: tab, newline, carriage return and the
// Unicode White_Space characters that are not control characters.
func isSpace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.White_Space, r)
}

// isControl reports the characters dropped: the Unicode C categories
// (control, format, private use, surrogates, unassigned) but tab, newline
// and carriage return.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if unicode.In(r, unicode.C) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isPunct reports the characters that are words of their own: ASCII
// punctuation and the Unicode P categories.
func isPunct(r rune) bool {
	if r < 0x80 {
		return r >= '!' && r <= '/' || r >= ':' && r <= '@' || r >= '[' && r <= '`' || r >= '{' && r <= '~'
	}
	return unicode.In(r, unicode.P)
}

// isCJK reports the CJK ideographs that BERT sets apart as words.
func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF ||
		r >= 0x3400 && r <= 0x4DBF ||
		r >= 0x20000 && r <= 0x2A6DF ||
		r >= 0x2A700 && r <= 0x2B73F ||
		r >= 0x2B740 && r <= 0x2B81F ||
		r >= 0x2B820 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF ||
		r >= 0x2F800 && r <= 0x2FA1F
}
