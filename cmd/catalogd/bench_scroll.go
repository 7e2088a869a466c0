package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// scrollResult is what a scroll through every dataset read.
type scrollResult struct {
	entities, aspects, pages int
	elapsed, cpu             time.Duration
}

// benchScroll reads every dataset, with all its aspects, through the
// OpenAPI v3 scroll (GET /openapi/v3/entity/dataset), count a page, one
// page after the other as a client scrolls.
func benchScroll(ctx context.Context, c *http.Client, srv *benchServer, count int) (scrollResult, error) {
	var res scrollResult
	cpu0 := srv.cpu()
	start := time.Now()
	next := ""
	for {
		u := fmt.Sprintf("%s/openapi/v3/entity/dataset?count=%d", srv.url, count)
		if next != "" {
			u += "&scrollId=" + url.QueryEscape(next)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		req.Header.Set("Authorization", benchAuthorization())
		resp, err := c.Do(req)
		if err != nil {
			return res, err
		}
		var page struct {
			ScrollID string                       `json:"scrollId"`
			Entities []map[string]json.RawMessage `json:"entities"`
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return res, fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, b)
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return res, fmt.Errorf("GET %s: %w", u, err)
		}
		res.pages++
		res.entities += len(page.Entities)
		for _, e := range page.Entities {
			res.aspects += len(e) - 1 // less the urn
		}
		if next = page.ScrollID; next == "" {
			break
		}
	}
	res.elapsed = time.Since(start)
	res.cpu = srv.cpu() - cpu0
	return res, nil
}
