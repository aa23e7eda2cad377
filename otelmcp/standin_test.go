package otelmcp

import (
	"os"
	"os/exec"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// TestStandIn: the otel globals a program has not set are recognised as
// the stand-ins that delegate to nothing (run in a fresh process, where no
// test has set them), and nothing else is. If an otel release changes its
// stand-ins this fails, and the middleware without Options would lose its
// shortcut (not its spans).
func TestStandIn(t *testing.T) {
	if os.Getenv("OTELMCP_STANDIN_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStandIn$", "-test.count=1")
		cmd.Env = append(os.Environ(), "OTELMCP_STANDIN_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	if !standIn(otel.GetTracerProvider(), "tracerProvider") || !standIn(otel.GetTextMapPropagator(), "textMapPropagator") {
		t.Fatalf("the unset globals (%T, %T) are not recognised", otel.GetTracerProvider(), otel.GetTextMapPropagator())
	}
	if standIn(tracenoop.NewTracerProvider(), "tracerProvider") || standIn(propagation.TraceContext{}, "textMapPropagator") || standIn(nil, "tracerProvider") {
		t.Fatal("a provider or propagator of the program's taken for a stand-in")
	}
	otel.SetTextMapPropagator(propagation.TraceContext{})
	if standIn(otel.GetTextMapPropagator(), "textMapPropagator") {
		t.Fatal("a set global taken for a stand-in")
	}
}
