package enquiry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/embedmcp/mcp"
)

// Default names of the two tools.
const (
	DefaultDetailName    = "tool_detail"
	DefaultCatalogueName = "tool_catalogue"
)

// Options configure the enquiry tools. The zero value (or a nil *Options)
// is ready to use.
type Options struct {
	// Prefix is the product prefix stripped when names are normalised, e.g.
	// "ek9" so that "edit file" and "EK9 edit file" find "ek9_edit_file".
	// It is compared case-insensitively; "" strips nothing.
	Prefix string
	// Permission is the permission a caller needs to use the enquiry tools.
	// The default "" needs no grant under mcp.GrantsAuthorizer; the tools
	// only reveal tools the caller may use anyway.
	Permission string
	// DetailName and CatalogueName name the tools; "" means
	// DefaultDetailName and DefaultCatalogueName.
	DetailName    string
	CatalogueName string
	// Category is the category the enquiry tools are listed under; ""
	// means "Enquiry".
	Category string
	// Weights are the BM25F field weights; nil means DefaultWeights().
	Weights *Weights
}

// Weights are the BM25F weights of the searched fields. A field of weight 0
// is not searched; negative weights are an error.
type Weights struct {
	Name        float64 // the tokens of the normalised name
	Title       float64 // Title, or Annotations.Title
	Description float64
	WhenToUse   float64 // Guide.WhenToUse
	Details     float64 // Guide.Details
	Examples    float64 // Guide.Examples: arguments and outcomes
	// Parameters are the names and descriptions of the input schema's
	// top-level properties.
	Parameters float64
}

// DefaultWeights returns the default field weights, which favour the fields
// written to say what a tool is for: Name 3, Title 2, Description 1.5,
// WhenToUse 1.5, Details 0.75, Examples 0.5, Parameters 0.3.
func DefaultWeights() Weights {
	return Weights{Name: 3, Title: 2, Description: 1.5, WhenToUse: 1.5, Details: 0.75, Examples: 0.5, Parameters: 0.3}
}

// Source is what the enquiry tools read, and follow for changes;
// *mcp.ToolSet implements it.
type Source interface {
	mcp.Registry
	mcp.ChangeNotifier
}

// Tools returns the tool_detail and tool_catalogue tools over src. Each
// caller is shown the tools the Server's Authorizer lets it use: the tools
// ask the Authorizer the Server puts in the context of every call
// (mcp.AuthorizerFromContext), and show nothing outside a Server. opts may
// be nil.
func Tools(src Source, opts *Options) ([]mcp.Tool, error) {
	tools, _, err := newTools(src, opts)
	return tools, err
}

// newTools is Tools, and returns the stop function of its watch of src,
// for Register to end it when the tools are not registered. The watch
// starts only once the tools are made: a failure leaves none behind.
func newTools(src Source, opts *Options) ([]mcp.Tool, func(), error) {
	if src == nil {
		return nil, nil, errors.New("enquiry: nil Source")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	w := DefaultWeights()
	if o.Weights != nil {
		w = *o.Weights
	}
	for _, f := range w.fields() {
		if f < 0 || f != f { // negative or NaN
			return nil, nil, fmt.Errorf("enquiry: field weights must be ≥ 0, got %+v", w)
		}
	}
	if o.DetailName == "" {
		o.DetailName = DefaultDetailName
	}
	if o.CatalogueName == "" {
		o.CatalogueName = DefaultCatalogueName
	}
	if o.Category == "" {
		o.Category = "Enquiry"
	}
	for _, n := range []string{o.DetailName, o.CatalogueName} {
		if !mcp.ValidToolName(n) {
			return nil, nil, fmt.Errorf("enquiry: %w: %q", mcp.ErrInvalidToolName, n)
		}
	}
	if o.DetailName == o.CatalogueName {
		return nil, nil, fmt.Errorf("enquiry: %w: both tools are named %q", mcp.ErrDuplicateTool, o.DetailName)
	}
	e := &enquirer{
		src:     src,
		az:      contextAuthorizer{},
		prefix:  strings.ToLower(strings.TrimSpace(o.Prefix)),
		weights: w.fields(),
		opts:    o,
	}
	detail, err := e.detailTool()
	if err != nil {
		return nil, nil, err
	}
	catalogue, err := e.catalogueTool()
	if err != nil {
		return nil, nil, err
	}
	// The index is rebuilt on the first call after a change; the watch
	// lives as long as the source and the tools do.
	stop := src.Watch(func() { e.gen.Add(1) })
	return []mcp.Tool{detail, catalogue}, stop, nil
}

// Register adds tool_detail and tool_catalogue over ts to ts. opts may be
// nil.
func Register(ts *mcp.ToolSet, opts *Options) error {
	if ts == nil {
		return errors.New("enquiry: nil ToolSet")
	}
	tools, stop, err := newTools(ts, opts)
	if err != nil {
		return err
	}
	if err := ts.Register(tools...); err != nil {
		stop() // the tools are not there: nothing to keep up to date
		return err
	}
	return nil
}

// contextAuthorizer asks the Authorizer of the call's context: the
// Server's.
type contextAuthorizer struct{}

func (contextAuthorizer) Allowed(ctx context.Context, c mcp.Caller, permission string) bool {
	return mcp.AuthorizerFromContext(ctx).Allowed(ctx, c, permission)
}

// fields returns the weights in field order.
func (w Weights) fields() [numFields]float64 {
	return [numFields]float64{w.Name, w.Title, w.Description, w.WhenToUse, w.Details, w.Examples, w.Parameters}
}
