// Package snapshot reads the source snapshot mcpsnapshot writes: its
// manifest, the table of its files, the declarations its index lists and
// spans of its files. It is the lowest layer of the code catalog: it knows
// nothing of entries, search or navigation, which build on it.
package snapshot
