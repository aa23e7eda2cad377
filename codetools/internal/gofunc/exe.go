package gofunc

import (
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"errors"
	"fmt"
	"io"
)

// Section returns the Go function table (pclntab) of an
// executable. ELF, Mach-O and PE are supported; where the table has no
// section of its own (some external links), the runtime.pclntab and
// runtime.epclntab symbols locate it.
func Section(r io.ReaderAt) ([]byte, error) {
	if f, err := elf.NewFile(r); err == nil {
		defer f.Close()
		if s := f.Section(".gopclntab"); s != nil {
			return elfData(s)
		}
		syms, err := f.Symbols()
		if err != nil {
			return nil, errors.New("ELF executable has no .gopclntab section and no symbol table")
		}
		var start, end *elf.Symbol
		for i := range syms {
			switch syms[i].Name {
			case "runtime.pclntab":
				start = &syms[i]
			case "runtime.epclntab":
				end = &syms[i]
			}
		}
		if start == nil || end == nil || start.Section != end.Section || int(start.Section) >= len(f.Sections) {
			return nil, errors.New("ELF executable has no .gopclntab section and no runtime.pclntab symbol")
		}
		s := f.Sections[start.Section]
		if start.Value < s.Addr || end.Value < start.Value || end.Value-s.Addr > s.Size {
			return nil, errors.New("ELF runtime.pclntab bounds out of range")
		}
		data := make([]byte, end.Value-start.Value)
		if _, err := s.ReadAt(data, int64(start.Value-s.Addr)); err != nil {
			return nil, err
		}
		return data, nil
	}
	if f, err := macho.NewFile(r); err == nil {
		defer f.Close()
		s := f.Section("__gopclntab")
		if s == nil {
			return nil, errors.New("Mach-O executable has no __gopclntab section")
		}
		return s.Data()
	}
	if f, err := pe.NewFile(r); err == nil {
		defer f.Close()
		return pePclntab(f)
	}
	return nil, errors.New("executable format is not ELF, Mach-O or PE")
}

func pePclntab(f *pe.File) ([]byte, error) {
	var start, end *pe.Symbol
	for _, s := range f.Symbols {
		switch s.Name {
		case "runtime.pclntab":
			start = s
		case "runtime.epclntab":
			end = s
		}
	}
	if start == nil || end == nil || start.SectionNumber != end.SectionNumber || start.SectionNumber <= 0 ||
		int(start.SectionNumber) > len(f.Sections) {
		return nil, errors.New("PE executable has no runtime.pclntab symbols")
	}
	data, err := f.Sections[start.SectionNumber-1].Data()
	if err != nil {
		return nil, err
	}
	if end.Value < start.Value || int(end.Value) > len(data) {
		return nil, fmt.Errorf("PE runtime.pclntab bounds out of range")
	}
	return data[start.Value:end.Value], nil
}

// elfData returns the content of s: read at once into a buffer of its
// size when its last byte can be read (Section.Data reads a large section
// in chunks, copying it again as it grows).
func elfData(s *elf.Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_COMPRESSED != 0 || s.Size == 0 || s.Size > 1<<40 {
		return s.Data()
	}
	var last [1]byte
	if _, err := s.ReadAt(last[:], int64(s.Size)-1); err != nil {
		return s.Data()
	}
	data := make([]byte, s.Size)
	if _, err := s.ReadAt(data, 0); err != nil {
		return nil, err
	}
	return data, nil
}
