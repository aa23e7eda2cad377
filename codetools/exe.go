package codetools

import (
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"errors"
	"fmt"
	"io"
)

// pclntab returns the Go function table (pclntab) of an executable and the
// start address of its text segment. ELF, Mach-O and PE are supported.
func pclntab(r io.ReaderAt) (data []byte, text uint64, err error) {
	if f, err := elf.NewFile(r); err == nil {
		defer f.Close()
		s := f.Section(".gopclntab")
		if s == nil {
			// Some linkers place it in .data.rel.ro (PIE, external linking).
			return nil, 0, errors.New("ELF executable has no .gopclntab section")
		}
		if data, err = s.Data(); err != nil {
			return nil, 0, err
		}
		if t := f.Section(".text"); t != nil {
			text = t.Addr
		}
		return data, text, nil
	}
	if f, err := macho.NewFile(r); err == nil {
		defer f.Close()
		s := f.Section("__gopclntab")
		if s == nil {
			return nil, 0, errors.New("Mach-O executable has no __gopclntab section")
		}
		if data, err = s.Data(); err != nil {
			return nil, 0, err
		}
		if t := f.Section("__text"); t != nil {
			text = t.Addr
		}
		return data, text, nil
	}
	if f, err := pe.NewFile(r); err == nil {
		defer f.Close()
		return pePclntab(f)
	}
	return nil, 0, errors.New("executable format is not ELF, Mach-O or PE")
}

func pePclntab(f *pe.File) ([]byte, uint64, error) {
	var imageBase uint64
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader32:
		imageBase = uint64(oh.ImageBase)
	case *pe.OptionalHeader64:
		imageBase = oh.ImageBase
	}
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
		return nil, 0, errors.New("PE executable has no runtime.pclntab symbols")
	}
	sect := f.Sections[start.SectionNumber-1]
	data, err := sect.Data()
	if err != nil {
		return nil, 0, err
	}
	if end.Value < start.Value || int(end.Value) > len(data) {
		return nil, 0, fmt.Errorf("PE runtime.pclntab bounds out of range")
	}
	var text uint64
	if t := f.Section(".text"); t != nil {
		text = imageBase + uint64(t.VirtualAddress)
	}
	return data[start.Value:end.Value], text, nil
}
