package enquiry

import "strings"

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
