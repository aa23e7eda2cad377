package enquiry

import (
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

// Options configure the enquiry tools. The zero value is ready to use.
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
}

// DefaultWeights returns the default field weights, which favour the fields
// written to say what a tool is for: Name 3, Title 2, Description 1.5,
// WhenToUse 1.5, Details 0.75, Examples 0.5.
func DefaultWeights() Weights {
	return Weights{Name: 3, Title: 2, Description: 1.5, WhenToUse: 1.5, Details: 0.75, Examples: 0.5}
}

// Source is what the enquiry tools read; *mcp.ToolSet implements it.
type Source interface {
	// Tools returns every registered tool, whoever asks.
	Tools() []mcp.Tool
	// Generation changes whenever the set of tools changes.
	Generation() uint64
}

// Tools returns the tool_detail and tool_catalogue tools over src. az must
// be the Authorizer the host gives mcp.NewServer: it decides which tools
// each caller is shown.
func Tools(src Source, az mcp.Authorizer, opts Options) ([]mcp.Tool, error) {
	if src == nil {
		return nil, errors.New("enquiry: nil Source")
	}
	if az == nil {
		return nil, errors.New("enquiry: nil Authorizer")
	}
	w := DefaultWeights()
	if opts.Weights != nil {
		w = *opts.Weights
	}
	for _, f := range w.fields() {
		if f < 0 || f != f { // negative or NaN
			return nil, fmt.Errorf("enquiry: field weights must be ≥ 0, got %+v", w)
		}
	}
	if opts.DetailName == "" {
		opts.DetailName = DefaultDetailName
	}
	if opts.CatalogueName == "" {
		opts.CatalogueName = DefaultCatalogueName
	}
	if opts.Category == "" {
		opts.Category = "Enquiry"
	}
	for _, n := range []string{opts.DetailName, opts.CatalogueName} {
		if !mcp.ValidToolName(n) {
			return nil, fmt.Errorf("enquiry: %w: %q", mcp.ErrInvalidToolName, n)
		}
	}
	if opts.DetailName == opts.CatalogueName {
		return nil, fmt.Errorf("enquiry: %w: both tools are named %q", mcp.ErrDuplicateTool, opts.DetailName)
	}
	e := &enquirer{
		src:     src,
		az:      az,
		prefix:  strings.ToLower(strings.TrimSpace(opts.Prefix)),
		weights: w.fields(),
		opts:    opts,
	}
	detail, err := e.detailTool()
	if err != nil {
		return nil, err
	}
	catalogue, err := e.catalogueTool()
	if err != nil {
		return nil, err
	}
	return []mcp.Tool{detail, catalogue}, nil
}

// Register adds tool_detail and tool_catalogue over ts to ts. az must be the
// Authorizer the host gives mcp.NewServer.
func Register(ts *mcp.ToolSet, az mcp.Authorizer, opts Options) error {
	if ts == nil {
		return errors.New("enquiry: nil ToolSet")
	}
	tools, err := Tools(ts, az, opts)
	if err != nil {
		return err
	}
	return ts.Register(tools...)
}

// fields returns the weights in field order.
func (w Weights) fields() [numFields]float64 {
	return [numFields]float64{w.Name, w.Title, w.Description, w.WhenToUse, w.Details, w.Examples}
}
