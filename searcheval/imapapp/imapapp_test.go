package imapapp

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/emersion/go-imap"
	"github.com/emersion/go-imap/client"
)

const ticketMsg = "From: Ana <ana@customer.example>\r\n" +
	"To: support@helpdesk.example\r\n" +
	"Subject: Invoice 4411 charged twice\r\n" +
	"Date: Thu, 03 Dec 2026 09:00:00 +0000\r\n" +
	"Message-ID: <t-4411@customer.example>\r\n" +
	"Content-Type: text/plain\r\n" +
	"\r\n" +
	"Our card was charged twice for invoice 4411.\r\n"

// archive starts an archive with two agents and a billing queue, serves
// its intake API and logs in as sam over loopback.
func archive(t *testing.T) (*Archive, *httptest.Server, *client.Client) {
	t.Helper()
	_, a, h, err := NewService(nil, Config{Agents: map[string]string{"sam": "s3cret", "kim": "k3y"}, Queues: []string{"billing"},
		MaxFailures: 2, InsecureLogin: true}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); a.Close() })
	c, err := client.Dial(a.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Logout() })
	if err := c.Login("sam", "s3cret"); err != nil {
		t.Fatal(err)
	}
	return a, ts, c
}

func TestAgentReadsFlagsAndReassignsTickets(t *testing.T) {
	_, ts, c := archive(t)
	resp, err := http.Post(ts.URL+"/tickets/INBOX", "message/rfc822", strings.NewReader(ticketMsg))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("intake: %d", resp.StatusCode)
	}
	mbox, err := c.Select("INBOX", false)
	if err != nil {
		t.Fatal(err)
	}
	if mbox.Messages != 1 {
		t.Fatalf("INBOX has %d tickets, want 1", mbox.Messages)
	}
	ids, err := c.Search(&imap.SearchCriteria{Text: []string{"charged twice"}})
	if err != nil || len(ids) != 1 {
		t.Fatalf("search: %v %v", ids, err)
	}
	set := new(imap.SeqSet)
	set.AddNum(ids...)
	ch := make(chan *imap.Message, 1)
	if err := c.Fetch(set, []imap.FetchItem{imap.FetchEnvelope, imap.FetchUid}, ch); err != nil {
		t.Fatal(err)
	}
	if m := <-ch; m == nil || m.Envelope.Subject != "Invoice 4411 charged twice" || m.Uid != 1 {
		t.Fatalf("fetched %+v", m)
	}
	if err := c.Store(set, imap.FormatFlagsOp(imap.AddFlags, true), []any{imap.SeenFlag, "$Escalated"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Store(set, imap.FormatFlagsOp(imap.AddFlags, true), []any{imap.DeletedFlag}, nil); err == nil {
		t.Error("\\Deleted was accepted by a read-only archive")
	}
	if err := c.Expunge(nil); err == nil {
		t.Error("EXPUNGE was accepted by a read-only archive")
	}
	if err := c.Create("Personal"); err == nil {
		t.Error("CREATE was accepted by a read-only archive")
	}
	if err := c.Copy(set, "billing"); err != nil {
		t.Fatal(err)
	}
	st, err := c.Status("billing", []imap.StatusItem{imap.StatusMessages, imap.StatusUnseen})
	if err != nil || st.Messages != 1 || st.Unseen != 1 {
		t.Fatalf("billing after the copy: %+v %v", st, err)
	}
	resp, err = http.Get(ts.URL + "/queues")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "INBOX 1 0\nbilling 1 1\n"; string(body) != want {
		t.Errorf("queues: %q, want %q", body, want)
	}
}

func TestRepeatedFailedLoginsLockTheAddressOut(t *testing.T) {
	a, _, _ := archive(t)
	c, err := client.Dial(a.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Logout()
	for range 2 {
		if err := c.Login("kim", "guess"); err == nil {
			t.Fatal("a wrong password was accepted")
		}
	}
	err = c.Login("kim", "k3y")
	if err == nil || !strings.Contains(err.Error(), "too many failed logins") {
		t.Fatalf("login after the lockout: %v", err)
	}
}
