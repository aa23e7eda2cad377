package codetools

import (
	"fmt"
	"sync"
	"testing"
)

func TestConcurrentUse(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				name := fmt.Sprintf("t%d_%d", g, i)
				c.SetTools([]ToolDoc{{Name: name, Description: "concurrent"}})
				if err := c.Register(Doc{Name: "doc_" + name, Documentation: "concurrent"}); err != nil {
					t.Error(err)
				}
				if _, err := c.Search(ctx, SearchQuery{Query: "concurrent"}); err != nil {
					t.Error(err)
				}
				if _, err := c.Definition(ctx, DefinitionQuery{Name: "main.(*T).Ptr"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	res, err := c.Search(ctx, SearchQuery{Query: "doc_t"})
	if err != nil || res.Total != 8*20 {
		t.Errorf("registered docs after concurrent use: %v %d", err, res.Total)
	}
}
