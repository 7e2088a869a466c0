package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// runBench measures the whole service the way clients see it: it starts
// "catalogd serve" as a child process (so start-up time and memory are the
// server's own), loads a generated catalog of realistic datasets through
// ingestProposalBatch, reads them back through entitiesV2, then scrolls
// through every one of them with the OpenAPI v3 scroll.
func runBench(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	datasets := fs.Int("datasets", 100000, "number of generated datasets")
	storeDSN := fs.String("store", "", "store DSN for the server (default: SQLite in a temporary data dir)")
	workers := fs.Int("workers", 4, "concurrent client connections")
	reads := fs.Duration("reads", 10*time.Second, "how long to measure entitiesV2 reads")
	searches := fs.Int("searches", 0, "how many searches and autocompletes of each kind to time after the reads (0: none)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the server during the first 30 s of ingest to this file")
	order := fs.String("order", "connector", "order of the generated datasets: connector (table after table of a schema, schema after schema) or interleaved (consecutive datasets in different platforms and schemas)")
	scrollCount := fs.Int("scroll-count", 1000, "page size of the OpenAPI v3 scroll through every dataset after the reads (0: no scroll)")
	cut := fs.String("cut", "entity", "where batches end: entity (after the last aspect of a dataset, once a batch holds 200 aspects) or count (every 200 aspects, across datasets, as DataHub's REST emitter cuts them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *order != "connector" && *order != "interleaved" {
		return fmt.Errorf("bench: --order %q: want connector or interleaved", *order)
	}
	if *cut != "entity" && *cut != "count" {
		return fmt.Errorf("bench: --cut %q: want entity or count", *cut)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	dataDir, err := os.MkdirTemp("", "catalogd-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)

	serveArgs := []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--log-level", "warn"}
	if *storeDSN != "" {
		serveArgs = append(serveArgs, "--store", *storeDSN)
	}
	const debugAddr = "127.0.0.1:16060"
	if *cpuProfile != "" {
		serveArgs = append(serveArgs, "--debug-addr", debugAddr)
	}
	// Start-up: from exec to the first healthy answer, best of three starts.
	var startup time.Duration
	var srv *benchServer
	for i := 0; i < 3; i++ {
		s, d, err := startBenchServer(ctx, exe, serveArgs)
		if err != nil {
			return err
		}
		if i < 2 {
			s.stop()
		} else {
			srv = s
		}
		if startup == 0 || d < startup {
			startup = d
		}
	}
	defer srv.stop()
	fmt.Fprintf(stdout, "store: %s\n", describeStore(*storeDSN))
	fmt.Fprintf(stdout, "start-up (exec to healthy, best of 3): %s\n", startup.Round(time.Millisecond))
	fmt.Fprintf(stdout, "RSS idle: %s\n", srv.rss())

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers}}
	gen := catalogGenerator{n: *datasets, interleaved: *order == "interleaved"}
	batches := make(chan [][]byte, *workers)
	go func() {
		defer close(batches)
		cutBatches(gen, *datasets, *cut == "count", batches)
	}()
	var aspects atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, *workers)
	cpu0 := srv.cpu()
	start := time.Now()
	if *cpuProfile != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fetchProfile(ctx, "http://"+debugAddr+"/debug/pprof/profile?seconds=30", *cpuProfile); err != nil {
				fmt.Fprintln(stderr, "cpu profile:", err)
			}
		}()
	}
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				body := batchBody(b)
				if err := benchPost(ctx, client, srv.url+"/aspects?action=ingestProposalBatch", body); err != nil {
					errc <- err
					return
				}
				aspects.Add(int64(len(b)))
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "ingestProposalBatch: %d datasets, %d aspects in %s = %.0f aspects/s (batches of %d cut by %s, %d clients, %s order)\n",
		*datasets, aspects.Load(), elapsed.Round(time.Millisecond), float64(aspects.Load())/elapsed.Seconds(), ingestBatch, *cut, *workers, *order)
	if cpu := srv.cpu() - cpu0; cpu > 0 {
		// CPU time varies less than throughput on a shared machine,
		// whose other tenants take turns on the cores.
		fmt.Fprintf(stdout, "server CPU during ingest: %s = %.0f µs an aspect (%.0f%% of one core)\n",
			cpu.Round(10*time.Millisecond), float64(cpu.Microseconds())/float64(aspects.Load()), 100*cpu.Seconds()/elapsed.Seconds())
	}
	fmt.Fprintf(stdout, "RSS after loading %d datasets: %s\n", *datasets, srv.rss())

	// Reads: random datasets through entitiesV2, all aspects.
	var mu sync.Mutex
	var lat []time.Duration
	deadline := time.Now().Add(*reads)
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 1))
			var mine []time.Duration
			for time.Now().Before(deadline) {
				urn := gen.urn(r.IntN(*datasets))
				t0 := time.Now()
				if err := benchGet(ctx, client, srv.url+"/entitiesV2/"+pathEscapeURN(urn)); err != nil {
					fmt.Fprintln(stderr, "read:", err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}(uint64(w))
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		fmt.Fprintf(stdout, "entitiesV2 (6 aspects, %d clients, %d reads): p50 %s p99 %s (%.0f reads/s)\n", *workers, len(lat),
			percentile(lat, 50), percentile(lat, 99), float64(len(lat))/reads.Seconds())
	}
	fmt.Fprintf(stdout, "RSS after reads: %s\n", srv.rss())
	if *scrollCount > 0 {
		sr, err := benchScroll(ctx, client, srv, *scrollCount)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "OpenAPI v3 scroll of every dataset (all aspects, pages of %d): %d datasets, %d aspects in %d pages, %s = %.0f aspects/s, %.1f µs of server CPU an aspect\n",
			*scrollCount, sr.entities, sr.aspects, sr.pages, sr.elapsed.Round(time.Millisecond), float64(sr.aspects)/sr.elapsed.Seconds(), float64(sr.cpu.Microseconds())/float64(max(sr.aspects, 1)))
	}
	if *searches > 0 {
		return benchSearches(ctx, client, srv.url, *searches, stdout)
	}
	return nil
}

// benchQueries are the searches the bench times, on the generated
// catalog: a number in some names and descriptions (the last word is a
// prefix: 123, 1230-1239, 12300-12399), a word of none, words of every
// dataset (in the key's name, its description, its column descriptions),
// three words of which two are in every description, and a prefix typed
// into a search box.
var benchQueries = []struct{ name, action, body string }{
	{"search, one word", "search", `{"input":"123","entity":"dataset","start":0,"count":10}`},
	{"search, no hits", "search", `{"input":"nosuchword","entity":"dataset","start":0,"count":10}`},
	{"search, broad: every name", "search", `{"input":"analytics","entity":"dataset","start":0,"count":10}`},
	{"search, broad: every description", "search", `{"input":"snapshot","entity":"dataset","start":0,"count":10}`},
	{"search, broad: every name and column", "search", `{"input":"table","entity":"dataset","start":0,"count":10}`},
	{"search, two words", "search", `{"input":"business entity 42","entity":"dataset","start":0,"count":10}`},
	{"autocomplete", "autocomplete", `{"query":"table_12","entity":"dataset","limit":10}`},
}

// benchSearches times n requests of each of benchQueries, one at a time,
// after a few unmeasured ones, and prints their p50 and p99 with the
// number of hits (search) or suggestions (autocomplete).
func benchSearches(ctx context.Context, c *http.Client, url string, n int, stdout io.Writer) error {
	for _, q := range benchQueries {
		var lat []time.Duration
		var found string
		for i := -min(n, 20); i < n; i++ {
			t0 := time.Now()
			body, err := benchPostRead(ctx, c, url+"/entities?action="+q.action, []byte(q.body))
			if err != nil {
				return err
			}
			if i >= 0 {
				lat = append(lat, time.Since(t0))
			}
			if found == "" {
				var v struct {
					Value struct {
						NumEntities *int     `json:"numEntities"`
						Suggestions []string `json:"suggestions"`
					} `json:"value"`
				}
				if err := json.Unmarshal(body, &v); err != nil {
					return fmt.Errorf("%s: %w", q.name, err)
				}
				found = fmt.Sprintf("%d suggestions", len(v.Value.Suggestions))
				if v.Value.NumEntities != nil {
					found = fmt.Sprintf("%d hits", *v.Value.NumEntities)
				}
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Fprintf(stdout, "%s (%s), %s: p50 %s p99 %s\n", q.name, found, q.body, percentile(lat, 50), percentile(lat, 99))
	}
	return nil
}

// fetchProfile saves the server's CPU profile from its debug listener.
func fetchProfile(ctx context.Context, url, file string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func describeStore(dsn string) string {
	if dsn == "" {
		return "embedded SQLite"
	}
	if u, _, ok := strings.Cut(dsn, "@"); ok {
		return strings.SplitN(u, "://", 2)[0] + "://...@" + strings.SplitN(dsn, "@", 2)[1]
	}
	return dsn
}

func percentile(sorted []time.Duration, p int) time.Duration {
	i := len(sorted) * p / 100
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i].Round(time.Microsecond)
}

type benchServer struct {
	cmd *exec.Cmd
	url string
}

// benchSecret is the system client secret of the bench's server, fresh for
// each run.
var benchSecret = fmt.Sprintf("%x", rand.Uint64())

func benchAuthorization() string { return "Basic __datahub_system:" + benchSecret }

func startBenchServer(ctx context.Context, exe string, args []string) (*benchServer, time.Duration, error) {
	cmd := exec.CommandContext(ctx, exe, args...)
	// The server runs with authentication on, as in production; the bench
	// calls it as the system client, so the figures include that cost.
	cmd.Env = append(os.Environ(), "DATAHUB_SYSTEM_CLIENT_ID=__datahub_system", "DATAHUB_SYSTEM_CLIENT_SECRET="+benchSecret)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	sc := bufio.NewScanner(out)
	var url string
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "catalogd listening on "); ok {
			url = rest
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if url == "" {
		_ = cmd.Process.Kill()
		return nil, 0, errors.New("server did not start")
	}
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Since(t0) > 30*time.Second {
			_ = cmd.Process.Kill()
			return nil, 0, fmt.Errorf("server not healthy: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	return &benchServer{cmd: cmd, url: url}, time.Since(t0), nil
}

func (s *benchServer) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
}

// cpu reads the CPU time (user and system) the server has used from
// /proc; 0 where that is not available.
func (s *benchServer) cpu() time.Duration {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "stat"))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces; utime and stime
	// are the 12th and 13th fields after it, in clock ticks (USER_HZ,
	// 100 a second on Linux).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// rss reads the server's resident set size from /proc: the total, and its
// anonymous part (heap, stacks, SQLite's page caches). The rest is file
// pages mapped in, mostly the database file SQLite reads through mmap: the
// kernel's page cache, shared and dropped under memory pressure.
func (s *benchServer) rss() string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "status"))
	if err != nil {
		return "unknown"
	}
	kb := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(v, " kB") {
			kb[k], _ = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(v, " kB")), 64)
		}
	}
	return fmt.Sprintf("%.1f MB (anonymous %.1f MB, mapped files %.1f MB)", kb["VmRSS"]/1024, kb["RssAnon"]/1024, kb["RssFile"]/1024)
}

func benchPost(ctx context.Context, c *http.Client, url string, body []byte) error {
	_, err := benchPostRead(ctx, c, url, body)
	return err
}

// benchPostRead is benchPost returning the response body.
func benchPostRead(ctx context.Context, c *http.Client, url string, body []byte) ([]byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	req.Header.Set("Authorization", benchAuthorization())
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, b)
	}
	return b, nil
}

func benchGet(ctx context.Context, c *http.Client, url string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	req.Header.Set("Authorization", benchAuthorization())
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return nil
}

func pathEscapeURN(urn string) string {
	r := strings.NewReplacer(":", "%3A", "(", "%28", ")", "%29", ",", "%2C", "/", "%2F", " ", "%20")
	return r.Replace(urn)
}

// catalogGenerator makes realistic datasets: a 20-field schema, properties
// with custom properties, two owners, two tags, status and lineage to an
// earlier dataset — six aspects each, as a connector would emit them.
//
// The n datasets spread over five platforms and 97 schemas. In connector
// order dataset i+1 is the next table of the same schema, as a connector
// walking a database's schemas emits them; interleaved, consecutive
// datasets rotate through the platforms and schemas, so every dataset of a
// batch lands at its own place in every index keyed by URN.
type catalogGenerator struct {
	n           int
	interleaved bool
}

var benchPlatforms = []string{"hive", "snowflake", "bigquery", "postgres", "kafka"}

const benchSchemas = 97

// place returns the platform and schema of dataset i.
func (g catalogGenerator) place(i int) (platform string, schema int) {
	if g.interleaved || g.n <= 0 {
		return benchPlatforms[i%len(benchPlatforms)], i % benchSchemas
	}
	k := len(benchPlatforms)
	i %= g.n
	p := i * k / g.n
	// Platform p holds datasets first(p) to first(p+1)-1.
	first := func(p int) int { return (p*g.n + k - 1) / k }
	return benchPlatforms[p], (i - first(p)) * benchSchemas / (first(p+1) - first(p))
}

func (g catalogGenerator) urn(i int) string {
	platform, schema := g.place(i)
	return fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:%s,analytics.schema_%d.table_%d,PROD)", platform, schema, i)
}

func (g catalogGenerator) proposals(i int) []any {
	urn := g.urn(i)
	platform, _ := g.place(i)
	mcp := func(aspect string, v any) any {
		b, _ := json.Marshal(v)
		return map[string]any{"entityType": "dataset", "entityUrn": urn, "changeType": "UPSERT", "aspectName": aspect,
			"aspect": map[string]any{"value": string(b), "contentType": "application/json"}}
	}
	stamp := map[string]any{"time": 1700000000000 + int64(i), "actor": "urn:li:corpuser:ingestion"}
	fields := make([]any, 20)
	types := []string{"StringType", "NumberType", "BooleanType", "DateType"}
	for f := range fields {
		ty := types[(i+f)%len(types)]
		fields[f] = map[string]any{
			"fieldPath": fmt.Sprintf("column_%d", f), "nativeDataType": strings.ToLower(strings.TrimSuffix(ty, "Type")),
			"description": fmt.Sprintf("Column %d of table %d, holding %s values", f, i, ty),
			"nullable":    f%3 == 0, "type": map[string]any{"type": map[string]any{"com.linkedin.schema." + ty: map[string]any{}}},
		}
	}
	out := []any{
		mcp("datasetProperties", map[string]any{
			"name": fmt.Sprintf("table_%d", i), "description": fmt.Sprintf("Daily snapshot of business entity %d for analytics", i),
			"customProperties": map[string]any{"owner_team": fmt.Sprintf("team_%d", i%13), "retention_days": "90"},
		}),
		mcp("schemaMetadata", map[string]any{
			"schemaName": fmt.Sprintf("table_%d", i), "platform": "urn:li:dataPlatform:" + platform,
			"version": 0, "hash": "", "platformSchema": map[string]any{"com.linkedin.schema.MySqlDDL": map[string]any{"tableSchema": ""}},
			"fields": fields,
		}),
		mcp("ownership", map[string]any{"owners": []any{
			map[string]any{"owner": fmt.Sprintf("urn:li:corpuser:user_%d", i%500), "type": "DATAOWNER"},
			map[string]any{"owner": fmt.Sprintf("urn:li:corpGroup:group_%d", i%50), "type": "TECHNICAL_OWNER"},
		}, "lastModified": stamp}),
		mcp("globalTags", map[string]any{"tags": []any{
			map[string]any{"tag": fmt.Sprintf("urn:li:tag:tier_%d", i%3)}, map[string]any{"tag": fmt.Sprintf("urn:li:tag:domain_%d", i%20)},
		}}),
		mcp("status", map[string]any{"removed": false}),
	}
	if i > 0 {
		out = append(out, mcp("upstreamLineage", map[string]any{"upstreams": []any{
			map[string]any{"dataset": g.urn(i / 2), "type": "TRANSFORMED", "auditStamp": stamp},
		}}))
	}
	return out
}

// proposalsJSON returns the JSON of proposals(i), byte for byte what
// json.Marshal makes of each (TestProposalsJSON checks it), written
// directly: marshalling the generated maps cost the bench client, which
// shares the machine with the server, about as much CPU as the server
// spends decoding them.
func (g catalogGenerator) proposalsJSON(i int) [][]byte {
	urn := g.urn(i)
	platform, _ := g.place(i)
	stamp := `{"actor":"urn:li:corpuser:ingestion","time":` + strconv.FormatInt(1700000000000+int64(i), 10) + `}`
	mcp := func(aspect string, value []byte) []byte {
		v, _ := json.Marshal(string(value)) // the aspect value as a JSON string
		b := make([]byte, 0, len(v)+len(urn)+160)
		b = append(b, `{"aspect":{"contentType":"application/json","value":`...)
		b = append(b, v...)
		b = append(b, `},"aspectName":"`...)
		b = append(b, aspect...)
		b = append(b, `","changeType":"UPSERT","entityType":"dataset","entityUrn":`...)
		b = appendJSONString(b, urn)
		return append(b, '}')
	}
	var v []byte
	v = append(v, `{"customProperties":{"owner_team":"team_`...)
	v = strconv.AppendInt(v, int64(i%13), 10)
	v = append(v, `","retention_days":"90"},"description":"Daily snapshot of business entity `...)
	v = strconv.AppendInt(v, int64(i), 10)
	v = append(v, ` for analytics","name":"table_`...)
	v = strconv.AppendInt(v, int64(i), 10)
	v = append(v, `"}`...)
	out := [][]byte{mcp("datasetProperties", v)}

	types := []string{"StringType", "NumberType", "BooleanType", "DateType"}
	v = append(v[:0], `{"fields":[`...)
	for f := 0; f < 20; f++ {
		ty := types[(i+f)%len(types)]
		if f > 0 {
			v = append(v, ',')
		}
		v = append(v, `{"description":"Column `...)
		v = strconv.AppendInt(v, int64(f), 10)
		v = append(v, ` of table `...)
		v = strconv.AppendInt(v, int64(i), 10)
		v = append(v, `, holding `...)
		v = append(v, ty...)
		v = append(v, ` values","fieldPath":"column_`...)
		v = strconv.AppendInt(v, int64(f), 10)
		v = append(v, `","nativeDataType":"`...)
		v = append(v, strings.ToLower(strings.TrimSuffix(ty, "Type"))...)
		v = append(v, `","nullable":`...)
		v = strconv.AppendBool(v, f%3 == 0)
		v = append(v, `,"type":{"type":{"com.linkedin.schema.`...)
		v = append(v, ty...)
		v = append(v, `":{}}}}`...)
	}
	v = append(v, `],"hash":"","platform":"urn:li:dataPlatform:`...)
	v = append(v, platform...)
	v = append(v, `","platformSchema":{"com.linkedin.schema.MySqlDDL":{"tableSchema":""}},"schemaName":"table_`...)
	v = strconv.AppendInt(v, int64(i), 10)
	v = append(v, `","version":0}`...)
	out = append(out, mcp("schemaMetadata", v))

	v = append(v[:0], `{"lastModified":`...)
	v = append(v, stamp...)
	v = append(v, `,"owners":[{"owner":"urn:li:corpuser:user_`...)
	v = strconv.AppendInt(v, int64(i%500), 10)
	v = append(v, `","type":"DATAOWNER"},{"owner":"urn:li:corpGroup:group_`...)
	v = strconv.AppendInt(v, int64(i%50), 10)
	v = append(v, `","type":"TECHNICAL_OWNER"}]}`...)
	out = append(out, mcp("ownership", v))

	v = append(v[:0], `{"tags":[{"tag":"urn:li:tag:tier_`...)
	v = strconv.AppendInt(v, int64(i%3), 10)
	v = append(v, `"},{"tag":"urn:li:tag:domain_`...)
	v = strconv.AppendInt(v, int64(i%20), 10)
	v = append(v, `"}]}`...)
	out = append(out, mcp("globalTags", v))
	out = append(out, mcp("status", []byte(`{"removed":false}`)))
	if i > 0 {
		v = append(v[:0], `{"upstreams":[{"auditStamp":`...)
		v = append(v, stamp...)
		v = append(v, `,"dataset":`...)
		v = appendJSONString(v, g.urn(i/2))
		v = append(v, `,"type":"TRANSFORMED"}]}`...)
		out = append(out, mcp("upstreamLineage", v))
	}
	return out
}

// appendJSONString appends s as json.Marshal encodes a string.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// cutBatches sends the proposals of n generated datasets to out in batches
// of ingestBatch proposals: exactly that many when byCount is set (a batch
// may then end inside a dataset, as DataHub's REST emitter cuts them), and
// otherwise at the end of the first dataset that fills one.
func cutBatches(gen catalogGenerator, n int, byCount bool, out chan<- [][]byte) {
	var batch [][]byte
	for i := 0; i < n; i++ {
		batch = append(batch, gen.proposalsJSON(i)...)
		for len(batch) >= ingestBatch {
			if !byCount {
				out <- batch
				batch = nil
				break
			}
			out <- batch[:ingestBatch:ingestBatch]
			batch = append([][]byte(nil), batch[ingestBatch:]...)
		}
	}
	if len(batch) > 0 {
		out <- batch
	}
}

// batchBody is the ingestProposalBatch body of proposals encoded by
// proposalsJSON: what json.Marshal makes of
// {"proposals": [...], "async": "false"}.
func batchBody(props [][]byte) []byte {
	n := 40
	for _, p := range props {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"async":"false","proposals":[`...)
	for i, p := range props {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	return append(b, "]}"...)
}
