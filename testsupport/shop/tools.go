package shop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/embedmcp/mcp"
)

// Permissions of the shop's tools.
const (
	PermOrdersRead  = "shop.orders.read"
	PermOrdersWrite = "shop.orders.write"
	PermStockRead   = "shop.stock.read"
	PermBasketWrite = "shop.basket.write"
)

// Prefix is the product prefix of the shop's tool names.
const Prefix = "shop"

// ErrFixture is what every shop tool answers: they exist to be described,
// not called.
var ErrFixture = errors.New("shop: fixture tool, not implemented")

// toolDef is one tool of the registry.
type toolDef struct {
	name, title, desc, perm, schema string
	readOnly                        bool
	guide                           *mcp.Guide
}

func example(args, outcome string) mcp.Example {
	return mcp.Example{Arguments: json.RawMessage(args), Outcome: outcome}
}

// defs is the shop's registry: orders, payments, stock and basket tools.
var defs = []toolDef{
	{
		name: "shop_find_orders", title: "Find orders", perm: PermOrdersRead, readOnly: true,
		desc: "Lists orders by customer, status and placement date, newest first; answers orders[] with id, status, total and placedAt, paged by offset.",
		schema: `{"type":"object","additionalProperties":false,"properties":{
 "customer":{"type":"string","description":"Customer id."},
 "status":{"type":"string","enum":["placed","paid","shipped","cancelled","refunded"]},
 "placedAfter":{"type":"string","format":"date"},
 "offset":{"type":"integer","minimum":0}}}`,
		guide: &mcp.Guide{
			Category:     "Orders",
			WhenToUse:    "Find the id of an order from what a customer says: who they are, roughly when they ordered, what state it is in.",
			WhenNotToUse: []string{"Stock of a product - use shop_stock_level."},
			Examples:     []mcp.Example{example(`{"customer":"c-1042","status":"paid"}`, "orders[] of customer c-1042 that are paid, newest first.")},
		},
	},
	{
		name: "shop_cancel_order", title: "Cancel an order", perm: PermOrdersWrite,
		desc: "Cancels an order that has not shipped, releases its reserved stock and voids the payment authorisation; answers the order's new status.",
		schema: `{"type":"object","additionalProperties":false,"required":["order"],"properties":{
 "order":{"type":"string","description":"Order id from shop_find_orders."},
 "reason":{"type":"string"}}}`,
		guide: &mcp.Guide{
			Category:     "Orders",
			WhenToUse:    "The customer no longer wants an order that has not shipped yet.",
			WhenNotToUse: []string{"The order has shipped or the payment was captured - use shop_refund_order."},
			Details:      "Cancelling is idempotent: cancelling a cancelled order answers its status unchanged. A shipped order answers error ORDER-SHIPPED.",
			Examples:     []mcp.Example{example(`{"order":"o-88121","reason":"ordered twice"}`, "status:cancelled, stock released.")},
			Workflows:    []string{"customer_changes_mind"},
		},
	},
	{
		name: "shop_refund_order", title: "Refund an order", perm: PermOrdersWrite,
		desc: "Refunds a captured payment of an order, in full or for some lines; answers the refund id and amount.",
		schema: `{"type":"object","additionalProperties":false,"required":["order"],"properties":{
 "order":{"type":"string"},
 "lines":{"type":"array","items":{"type":"string"},"description":"SKUs to refund; all lines when absent."}}}`,
		guide: &mcp.Guide{
			Category:     "Payments",
			WhenToUse:    "Give a customer their money back for an order that shipped or whose payment was captured.",
			WhenNotToUse: []string{"An order that has not shipped - use shop_cancel_order."},
			Details:      "A refund never exceeds the captured amount; a second full refund answers error PAY-409.",
			Examples:     []mcp.Example{example(`{"order":"o-88121","lines":["sku-tea-250g"]}`, "refund id and the amount of that line.")},
			Workflows:    []string{"customer_changes_mind"},
			ErrorCodes:   []string{"ORDER-SHIPPED"},
		},
	},
	{
		name: "shop_payment_status", title: "Payment status", perm: PermOrdersRead, readOnly: true,
		desc:   "Answers the payment of an order: authorised, captured, refunded or failed, with the provider's decline reason.",
		schema: `{"type":"object","additionalProperties":false,"required":["order"],"properties":{"order":{"type":"string"}}}`,
		guide: &mcp.Guide{
			Category:   "Payments",
			WhenToUse:  "Find out why a payment failed or whether a refund went through.",
			ErrorCodes: []string{"PAY-402", "PAY-409"},
		},
	},
	{
		name: "shop_stock_level", title: "Stock level", perm: PermStockRead, readOnly: true,
		desc:   "Answers how many units of a product the warehouse holds, how many are reserved by open orders, and when the warehouse feed last reported.",
		schema: `{"type":"object","additionalProperties":false,"required":["sku"],"properties":{"sku":{"type":"string"}}}`,
		guide: &mcp.Guide{
			Category:   "Stock",
			WhenToUse:  "A customer cannot add a product to their basket, or asks when it will be available.",
			Details:    "feedAge over five minutes means the numbers are stale; out-of-stock errors then usually come from the late feed.",
			Examples:   []mcp.Example{example(`{"sku":"sku-tea-250g"}`, "onHand, reserved and feedAge.")},
			ErrorCodes: []string{"STOCK-OUT"},
		},
	},
	{
		name: "shop_view_basket", title: "View a basket", perm: PermOrdersRead, readOnly: true,
		desc:   "Answers a customer's basket: lines with SKU, quantity and unit price, the total, and any promotion applied.",
		schema: `{"type":"object","additionalProperties":false,"required":["customer"],"properties":{"customer":{"type":"string"}}}`,
		guide: &mcp.Guide{
			Category:  "Basket",
			WhenToUse: "See what a customer is about to buy before checkout.",
		},
	},
	{
		name: "shop_apply_promotion", title: "Apply a promotion", perm: PermBasketWrite,
		desc: "Applies a promotion code to a customer's basket, replacing any other; answers the new basket total.",
		schema: `{"type":"object","additionalProperties":false,"required":["customer","code"],"properties":{
 "customer":{"type":"string"},"code":{"type":"string","description":"Promotion code, as printed."}}}`,
		guide: &mcp.Guide{
			Category:     "Basket",
			WhenToUse:    "A customer has a promotion code to use on their basket.",
			WhenNotToUse: []string{"Money back after an order - use shop_refund_order."},
			Details:      "One promotion per basket. An expired code answers error PROMO-EXPIRED and leaves the basket as it was.",
			ErrorCodes:   []string{"PROMO-EXPIRED"},
		},
	},
}

// Tools returns new tools of the shop's registry. They describe themselves
// fully but answer every call with a tool error wrapping ErrFixture.
func Tools() ([]mcp.Tool, error) {
	out := make([]mcp.Tool, 0, len(defs))
	for _, d := range defs {
		schema, err := mcp.ParseSchema([]byte(d.schema))
		if err != nil {
			return nil, fmt.Errorf("shop: tool %s: %w", d.name, err)
		}
		ann := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(d.readOnly), OpenWorldHint: mcp.Bool(false)}
		out = append(out, mcp.NewRawTool(mcp.ToolInfo{
			Name: d.name, Title: d.title, Description: d.desc, InputSchema: schema,
			Permission: d.perm, Annotations: ann, Guide: d.guide,
		}, func(context.Context, *mcp.Request) (*mcp.Result, error) { return nil, ErrFixture }))
	}
	return out, nil
}
