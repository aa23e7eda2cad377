package shop

// basketGo is example.com/shop/basket/basket.go as the snapshot holds it.
// It is Go source kept in a raw string, so that the recorded hashes do not
// depend on how a checkout writes line endings.
const basketGo = `// Package basket holds a customer's basket: the lines they mean to buy,
// before checkout turns them into an order.
package basket

import (
	"errors"
	"fmt"
)

// MaxLines bounds the number of distinct products in a basket.
const MaxLines = 50

// ErrOutOfStock reports a quantity the warehouse cannot supply.
var ErrOutOfStock = errors.New("basket: out of stock")

// Line is one product of a basket.
type Line struct {
	SKU      string
	Quantity int
	// UnitPence is the unit price when the line was added, in pence.
	UnitPence int64
}

// Basket is a customer's basket. The zero value is an empty basket.
type Basket struct {
	Customer string
	Lines    []Line
}

// Add adds qty units of sku at unitPence each, merging with a line of the
// same product. It fails when qty is not positive, when the basket already
// holds MaxLines products, or with ErrOutOfStock when stock is short.
func (b *Basket) Add(sku string, qty int, unitPence int64, stock int) error {
	if qty <= 0 {
		return fmt.Errorf("basket: quantity %d of %s must be positive", qty, sku)
	}
	for i := range b.Lines {
		if b.Lines[i].SKU == sku {
			if b.Lines[i].Quantity+qty > stock {
				return ErrOutOfStock
			}
			b.Lines[i].Quantity += qty
			return nil
		}
	}
	if len(b.Lines) >= MaxLines {
		return fmt.Errorf("basket: more than %d products", MaxLines)
	}
	if qty > stock {
		return ErrOutOfStock
	}
	b.Lines = append(b.Lines, Line{SKU: sku, Quantity: qty, UnitPence: unitPence})
	return nil
}

// Total is the price of the basket in pence.
func (b Basket) Total() int64 {
	var sum int64
	for _, l := range b.Lines {
		sum += int64(l.Quantity) * l.UnitPence
	}
	return sum
}
`

// pricingGo is example.com/shop/pricing/pricing.go as the snapshot holds it.
const pricingGo = `// Package pricing applies promotions to a basket total.
package pricing

// Promotion is a discount applied at checkout.
type Promotion struct {
	Code string
	// PercentOff is taken off the basket total, 0..100.
	PercentOff int
}

// Apply returns total after the promotion, rounded down to the penny.
func (p Promotion) Apply(total int64) int64 {
	return total - total*int64(p.PercentOff)/100
}
`

// checkoutGo is example.com/shop/checkout/checkout.go as the snapshot holds
// it.
const checkoutGo = `// Package checkout turns a basket into a priced order.
package checkout

import (
	"errors"
	"fmt"

	"example.com/shop/basket"
	"example.com/shop/pricing"
)

// Discount is what checkout takes off a basket total.
type Discount interface {
	Apply(total int64) int64
}

// ErrEmpty reports the checkout of an empty basket.
var ErrEmpty = errors.New("checkout: empty basket")

// Order is a priced basket.
type Order struct {
	Customer   string
	TotalPence int64
}

// Price prices basket b and takes discount d off the total (nil for none).
func Price(b basket.Basket, d Discount) (Order, error) {
	if len(b.Lines) == 0 {
		return Order{}, ErrEmpty
	}
	total := b.Total()
	if d != nil {
		total = d.Apply(total)
	}
	return Order{Customer: b.Customer, TotalPence: total}, nil
}

// WithCode prices basket b with the promotion of the given code.
func WithCode(b basket.Basket, code string, percentOff int) (Order, error) {
	return Price(b, pricing.Promotion{Code: code, PercentOff: percentOff})
}

// String is the order as a receipt prints it.
func (o Order) String() string {
	return fmt.Sprintf("%s: %d pence", o.Customer, o.TotalPence)
}

// Receipt is the text of a receipt for v.
func Receipt(v fmt.Stringer) string {
	return "Receipt\n" + v.String() + "\n"
}
`

// goMod is the go.mod of example.com/shop.
const goMod = `module example.com/shop

go 1.26
`

// stubs are the parts of the standard library the shop's packages use,
// for type-checking them without the go command: what the references
// need is each function's package, name and signature.
var stubs = map[string]string{
	"errors": "package errors\n\nfunc New(text string) error { return nil }\n",
	"fmt": "package fmt\n\nfunc Errorf(format string, a ...any) error { return nil }\n\n" +
		"func Sprintf(format string, a ...any) string { return \"\" }\n\ntype Stringer interface{ String() string }\n",
}
