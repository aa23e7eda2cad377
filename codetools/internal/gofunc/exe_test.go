package gofunc

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A Windows executable has no section of its own for the function table:
// the runtime.pclntab and runtime.epclntab symbols locate it.
func TestSectionOfAWindowsExecutable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an executable")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	src := "package main\n\nfunc main() { println(\"hello\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/hello\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goCmd, "build", "-o", "hello.exe", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot cross-compile for Windows: %v\n%s", err, out)
	}
	tab := tableOf(t, filepath.Join(dir, "hello.exe"))
	if tab.NameOffset("main.main") < 0 || tab.NameOffset("runtime.main") < 0 {
		t.Errorf("the table of %d functions has no main.main or runtime.main", tab.NFunc)
	}
}
