package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestServerErr: Err names each option that means nothing, and is nil for
// nil and valid options; a Server with such options still refuses every
// request (NewServer keeps working as before).
func TestServerErr(t *testing.T) {
	for _, opts := range []*mcp.Options{nil, {}, {Versions: []string{mcp.Version20251125}, LogLevel: mcp.LevelDebug, CacheScope: "public"}} {
		if err := mcp.NewServer(nil, mcp.AllowAll(), opts).Err(); err != nil {
			t.Errorf("options %+v: Err() = %v, want nil", opts, err)
		}
	}
	for i, tc := range []struct {
		opts mcp.Options
		want string
	}{
		{mcp.Options{Versions: []string{"2024-01-01"}}, `Options.Versions names "2024-01-01"`},
		{mcp.Options{LogLevel: "loud"}, `Options.LogLevel "loud"`},
		{mcp.Options{CacheScope: "shared"}, `Options.CacheScope "shared"`},
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			s := mcp.NewServer(nil, mcp.AllowAll(), &tc.opts)
			err := s.Err()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("options %+v: Err() = %v, want one that says %s", tc.opts, err, tc.want)
			}
			if status, _ := s.Handle(context.Background(), mcp.Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); status != 500 {
				t.Errorf("options %+v: a request answered %d, want 500", tc.opts, status)
			}
		})
	}
}

// A host that would rather not start with options that mean nothing checks
// Server.Err after NewServer.
func ExampleServer_Err() {
	server := mcp.NewServer(mcp.NewToolSet(), mcp.GrantsAuthorizer{}, &mcp.Options{CacheScope: "everyone"})
	if err := server.Err(); err != nil {
		fmt.Println("not starting:", err)
	}
	fmt.Println(errors.Is(mcp.NewServer(nil, nil, nil).Err(), nil))
	// Output:
	// not starting: mcp: Options.CacheScope "everyone" is neither "private" nor "public"
	// true
}
