package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
)

// applier carries one request's state through its transaction. Proposals are
// applied in order against an in-memory view of the stored aspects of every
// URN the request touches, loaded in one query; writes are buffered and sent
// to the store in bulk.
type applier struct {
	svc   *Service
	tx    catalog.Tx
	actor string
	now   int64
	total int

	state   map[string]map[string]*slot // urn → aspect → stored state
	pending []catalog.AspectWrite
	inRound map[[2]string]bool // (urn, aspect) already written in the pending round
	series  []catalog.TimeseriesValue
	touched map[string]*touch // URNs written, in first-touch order via order
	order   []string
	written int
	changes []Change // for the audit log and the observer, when the service has them
	// aspectChanges are the changes of recorded aspects, for the
	// service's change recorder; the first nEncoded of them are encoded
	// as encoded.
	aspectChanges []AspectChange
	encoded       []EncodedChanges
	nEncoded      int

	// A planning applier (see Service.plan) runs before the transaction,
	// with no tx: flush keeps each round of writes in rounds instead of
	// sending it, to be sent once the plan is adopted.
	planning bool
	rounds   [][]catalog.AspectWrite
	// planned says that the first plannedN URNs of order are a plan's,
	// whose edge sets are sets.
	planned  bool
	plannedN int
	sets     []catalog.EdgeSet
	// pre is the plan's documents being built ahead of the transaction.
	pre Prebuilt

	// props caches the structured properties read from the store, for
	// checking values (see checkStructuredProperties).
	props map[string]*propertyState

	// deletedRows and deletedTimeseries count the rows the request's
	// entity deletes removed.
	deletedRows, deletedTimeseries int
	// deleted are the entities the request deleted whose references go.
	deleted []string
}

type slot struct {
	cur    catalog.Aspect
	value  any // cur.Value decoded, when the request wrote it; saves decoding it again for edges
	max    int64
	exists bool
	stored bool // the aspect was stored when the transaction began
}

type touch struct {
	entity  *catalog.EntitySpec
	changed map[string]bool // aspects whose latest value changed (edges to rewrite)
	deleted bool            // the entity was deleted and not written again
	wrote   bool            // the request wrote an aspect of the entity
	// dirty says that something its search document derives from changed:
	// a latest aspect written or deleted, or a timeseries value written.
	// Rewrites of unchanged values leave the document as it is.
	dirty bool
	// sysMD is the system metadata of the request's first write of the
	// entity, which the key and default aspects of a new entity carry (so
	// that they belong to the ingestion run that created it, as in DataHub).
	sysMD []byte
}

// requestURNs returns the URNs of ps, each once, in first-seen order.
func requestURNs(ps []*prepared) []string {
	urns := make([]string, 0, len(ps))
	seen := make(map[string]bool, len(ps))
	for _, p := range ps {
		if !seen[p.urn] {
			seen[p.urn] = true
			urns = append(urns, p.urn)
		}
	}
	return urns
}

// run applies ps, proposals for urns, to the stored state cur of urns (as
// Tx.Current returns it), buffering the writes, and adds the default
// aspects of the entities it writes first. It writes to the transaction
// only where earlier writes must land first: before a DELETE, and before a
// second write of one aspect (which a planning applier keeps as a round;
// it has no deletes). A plan runs it a second time, in the transaction,
// for the proposals it left out, which are for other URNs.
func (a *applier) run(ctx context.Context, urns []string, cur map[string]map[string]catalog.Current, ps []*prepared) error {
	if a.state == nil {
		a.state = make(map[string]map[string]*slot, len(urns))
		a.inRound = make(map[[2]string]bool)
		a.touched = make(map[string]*touch)
	}
	for _, u := range urns {
		m := make(map[string]*slot)
		for name, c := range cur[u] {
			m[name] = &slot{cur: c.Aspect, max: c.MaxVersion, exists: true, stored: true}
		}
		a.state[u] = m
	}
	from := len(a.order)
	for _, p := range ps {
		if err := a.one(ctx, p); err != nil {
			return proposalError(p.index, a.total, p.src, err)
		}
	}
	for _, u := range a.order[from:] {
		t := a.touched[u]
		if t.wrote && !t.deleted {
			if err := a.defaults(ctx, u, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// write sends what run buffered to the transaction: aspects, timeseries
// values, edges, audit events and search documents. It returns the number
// of aspect versions and timeseries values written.
func (a *applier) write(ctx context.Context) (int, error) {
	// A plan's prebuilt documents not handed to the indexer (an error
	// came first) are dropped.
	defer func() {
		if a.pre != nil {
			a.pre.Discard()
			a.pre = nil
		}
	}()
	// From here on a.state is only read. A BackgroundIndexer builds the
	// documents from it while the aspects, edges and audit rows are
	// written, starting once the request's timeseries values (which
	// documents include) are written; other indexers, which may read back
	// from the transaction, run after everything else.
	var finishIndex func(context.Context, bool) error
	startIndex := func() (err error) {
		if finishIndex == nil {
			finishIndex, err = a.index(ctx)
		}
		return err
	}
	abandon := func(err error) (int, error) {
		if finishIndex != nil {
			_ = finishIndex(ctx, false)
		}
		return 0, err
	}
	_, background := a.svc.indexer.(BackgroundIndexer)
	if background && len(a.series) == 0 {
		if err := startIndex(); err != nil {
			return 0, err
		}
	}
	if err := a.flush(ctx); err != nil {
		return abandon(err)
	}
	if len(a.series) > 0 {
		if err := a.tx.PutTimeseries(ctx, a.series); err != nil {
			return abandon(err)
		}
	}
	if background {
		if err := startIndex(); err != nil {
			return 0, err
		}
	}
	if err := a.edges(ctx); err != nil {
		return abandon(err)
	}
	if len(a.changes) > 0 {
		for _, au := range a.svc.auditors {
			if err := au.RecordChanges(ctx, a.tx, a.actor, a.now, a.changes); err != nil {
				return abandon(err)
			}
		}
	}
	if err := startIndex(); err != nil {
		return 0, err
	}
	if err := finishIndex(ctx, true); err != nil {
		return 0, err
	}
	if err := a.encodeChanges(); err != nil {
		return 0, err
	}
	if len(a.encoded) > 0 {
		if err := a.svc.changes.RecordChanges(ctx, a.tx, a.encoded); err != nil {
			return 0, err
		}
	}
	return a.written, nil
}

// encodeChanges has the change recorder encode the changes noted since the
// last call.
func (a *applier) encodeChanges() error {
	if a.nEncoded == len(a.aspectChanges) {
		return nil
	}
	rec, err := a.svc.changes.EncodeChanges(a.aspectChanges[a.nEncoded:])
	if err != nil {
		return err
	}
	a.encoded = append(a.encoded, rec)
	a.nEncoded = len(a.aspectChanges)
	return nil
}

// recordChange notes a change of aspect of urn from the slot's stored state
// (when it exists) to value, for the change recorder.
func (a *applier) recordChange(urn, aspect string, s *slot, value []byte) {
	r := a.svc.changes
	if r == nil || !r.RecordsAspect(aspect) {
		return
	}
	c := AspectChange{URN: urn, EntityType: a.touched[urn].entity.Name, Aspect: aspect, Value: value,
		Created: catalog.AuditStamp{Time: a.now, Actor: a.actor}}
	if s != nil && s.exists {
		c.Previous = s.cur.Value
	}
	a.aspectChanges = append(a.aspectChanges, c)
}

// dirtyEntities returns the state of the entities of urns whose search
// documents the request changes.
func (a *applier) dirtyEntities(urns []string) []Entity {
	var ents []Entity
	for _, u := range urns {
		if !a.touched[u].dirty {
			continue
		}
		// a.state holds every latest aspect of the entity: Current read
		// them all, and every write and delete of the request updated it.
		slots := a.state[u]
		e := Entity{URN: u, Aspects: make([]LatestAspect, 0, len(slots))}
		for _, s := range slots {
			if s.exists {
				e.Aspects = append(e.Aspects, LatestAspect{Aspect: s.cur, Decoded: s.value})
			}
		}
		ents = append(ents, e)
	}
	return ents
}

// index starts updating the search documents of the entities whose state
// changed; finish completes it (see BackgroundIndexer).
func (a *applier) index(ctx context.Context) (finish func(ctx context.Context, write bool) error, err error) {
	pre := a.pre
	if pre == nil {
		return a.indexEntities(ctx, a.dirtyEntities(a.order))
	}
	// The plan's documents, and those of the entities it left out.
	a.pre = nil
	planned, err := pre.Start(ctx, a.tx)
	if err != nil {
		return nil, err
	}
	rest, err := a.indexEntities(ctx, a.dirtyEntities(a.order[a.plannedN:]))
	if err != nil {
		_ = planned(ctx, false)
		return nil, err
	}
	return func(ctx context.Context, write bool) error {
		if err := planned(ctx, write); err != nil {
			_ = rest(ctx, false)
			return err
		}
		return rest(ctx, write)
	}, nil
}

// indexEntities starts updating the search documents of ents.
func (a *applier) indexEntities(ctx context.Context, ents []Entity) (finish func(ctx context.Context, write bool) error, err error) {
	done := func(context.Context, bool) error { return nil }
	idx := a.svc.indexer
	if idx == nil || len(ents) == 0 {
		return done, nil
	}
	ei, ok := idx.(EntityIndexer)
	if !ok {
		dirty := make([]string, len(ents))
		for i, e := range ents {
			dirty[i] = e.URN
		}
		return done, idx.Reindex(ctx, a.tx, dirty)
	}
	if bi, ok := ei.(BackgroundIndexer); ok {
		return bi.StartIndexing(ctx, a.tx, ents)
	}
	return done, ei.IndexEntities(ctx, a.tx, ents)
}

func (a *applier) touch(urn string, ent *catalog.EntitySpec) *touch {
	t := a.touched[urn]
	if t == nil {
		t = &touch{entity: ent, changed: map[string]bool{}}
		a.touched[urn] = t
		a.order = append(a.order, urn)
	}
	return t
}

func (a *applier) one(ctx context.Context, p *prepared) error {
	slots := a.state[p.urn]
	t := a.touch(p.urn, p.entity)
	if len(p.src.Headers) > 0 {
		if err := checkPreconditions(p, slots[p.aspect.Name]); err != nil {
			return err
		}
	}
	switch p.change {
	case catalog.Delete:
		if a.planning {
			// Deletes report what they removed, which only the
			// transaction knows: requests with deletes are not planned.
			return catalog.Errorf(catalog.Internal, "a DELETE cannot be planned ahead of its transaction")
		}
		if err := a.flush(ctx); err != nil {
			return err
		}
		if p.aspect.Name == p.entity.KeyAspect {
			rows, tsRows, err := a.tx.DeleteEntity(ctx, p.urn)
			if err != nil {
				return err
			}
			if rows+tsRows > 0 {
				a.audit(p.urn, p.entity.Name, p.aspect.Name, true)
				t.dirty = true
			}
			if rows > 0 {
				key := slots[p.aspect.Name]
				if key == nil || !key.exists {
					// Only the key's existence matters to a record of
					// the deletion.
					key = &slot{cur: catalog.Aspect{Value: json.RawMessage("{}")}, exists: true}
				}
				a.recordChange(p.urn, p.aspect.Name, key, nil)
			}
			a.state[p.urn] = map[string]*slot{}
			t.deleted = true
			t.changed = map[string]bool{}
			a.deletedRows += rows
			a.deletedTimeseries += tsRows
			if p.src.KeepReferences {
				return nil
			}
			if rows > 0 {
				a.deleted = append(a.deleted, p.urn)
			}
			return a.removeReferences(ctx, p.urn)
		}
		return a.deleteAspect(ctx, p.urn, p.entity.Name, p.aspect.Name)
	case catalog.CreateEntity:
		if len(slots) > 0 {
			return catalog.Errorf(catalog.Conflict, "entity %s already exists", p.urn)
		}
	case catalog.Create:
		if s := slots[p.aspect.Name]; s != nil && s.exists {
			return catalog.Errorf(catalog.Conflict, "aspect %s of %s already exists", p.aspect.Name, p.urn)
		}
	}
	if p.change == catalog.Patch {
		if err := a.patch(p); err != nil {
			return err
		}
	}
	if p.src.Edit != nil {
		if skip, err := a.edit(p); err != nil || skip {
			return err
		}
	}
	t.deleted, t.wrote = false, true
	if t.sysMD == nil {
		t.sysMD = p.sysMD
	}
	if p.aspect.Timeseries {
		ts, _ := int64At(p.value, "timestampMillis")
		a.series = append(a.series, catalog.TimeseriesValue{
			URN:             p.urn,
			Entity:          p.entity.Name,
			Aspect:          p.aspect.Name,
			TimestampMillis: ts,
			Partition:       stringAt(p.value, "partitionSpec", "partition"),
			MessageID:       stringAt(p.value, "messageId"),
			Value:           p.canon,
			SystemMetadata:  p.sysMD,
		})
		a.written++
		a.audit(p.urn, p.entity.Name, p.aspect.Name, false)
		a.recordChange(p.urn, p.aspect.Name, nil, p.canon)
		t.dirty = true
		return nil
	}
	if p.aspect.Name == structuredPropertiesAspect {
		var prev []byte
		if s := a.state[p.urn][p.aspect.Name]; s != nil && s.exists {
			prev = s.cur.Value
		}
		if err := a.checkStructuredProperties(ctx, p.urn, p.entity.Name, p.canon, prev); err != nil {
			return err
		}
	}
	return a.put(ctx, p.urn, p.aspect.Name, p.value, p.canon, p.sysMD)
}

// deleteAspect deletes one aspect of urn, an entity of type entity.
func (a *applier) deleteAspect(ctx context.Context, urn, entity, aspect string) error {
	n, err := a.tx.DeleteAspect(ctx, urn, aspect)
	if err != nil {
		return err
	}
	slots, t := a.state[urn], a.touched[urn]
	if n > 0 {
		a.audit(urn, entity, aspect, true)
		t.dirty = true
		a.recordChange(urn, aspect, slots[aspect], nil)
	}
	delete(slots, aspect)
	delete(t.changed, aspect)
	return nil
}

// patch applies p's JSON Patch to the aspect's value as this request sees it
// (stored, or written by an earlier proposal of the request), then normalises
// and validates the result, which is written like an UPSERT. The store holds
// the entity's rows locked from Tx.Current on, so no concurrent writer can
// slip a change in between.
func (a *applier) patch(p *prepared) error {
	sd, err := a.svc.schemas.get(p.aspect)
	if err != nil {
		return err
	}
	var cur any
	if s := a.state[p.urn][p.aspect.Name]; s != nil && s.exists {
		// Decoded afresh: the patch edits in place and s.value may be shared.
		if cur, err = decodeJSON(s.cur.Value); err != nil {
			return fmt.Errorf("decode stored %s of %s: %w", p.aspect.Name, p.urn, err)
		}
	}
	pt := &patcher{schema: sd, stamp: map[string]any{"time": json.Number(fmt.Sprint(a.now)), "actor": a.actor}}
	v, err := pt.applyPatch(cur, p.patch)
	if err != nil {
		return err
	}
	if v, err = a.svc.reg.Normalize(p.aspect.Name, v); err != nil {
		return catalog.WithOp("patched value", err)
	}
	canon, err := canonicalJSON(v)
	if err != nil {
		return err
	}
	// Overwritten on every attempt, so a retried transaction patches afresh.
	p.value, p.canon = v, canon
	return nil
}

// edit runs p's Edit on the aspect's value as this request sees it, like
// patch, and decodes the result as an UPSERT's value; skip reports that the
// edit chose to write nothing.
func (a *applier) edit(p *prepared) (skip bool, err error) {
	var cur json.RawMessage
	if s := a.state[p.urn][p.aspect.Name]; s != nil && s.exists {
		cur = s.cur.Value
	}
	raw, err := p.src.Edit(cur)
	if err != nil || raw == nil {
		return raw == nil, err
	}
	// Overwritten on every attempt, as patch's result is.
	p.value, p.canon, err = a.svc.decodeValue(p.aspect, raw)
	return false, err
}

// put buffers a new latest value unless it equals the stored one.
func (a *applier) put(ctx context.Context, urn, aspect string, decoded any, value, sysMD []byte) error {
	slots := a.state[urn]
	s := slots[aspect]
	if s != nil && s.exists && bytes.Equal(s.cur.Value, value) {
		return nil
	}
	k := [2]string{urn, aspect}
	if a.inRound[k] {
		// The store writes one version-0 row per (urn, aspect) per round.
		if err := a.flush(ctx); err != nil {
			return err
		}
	}
	w := catalog.AspectWrite{Aspect: catalog.Aspect{
		URN: urn, Name: aspect, Value: value, SystemMetadata: sysMD,
		Created: catalog.AuditStamp{Time: a.now, Actor: a.actor},
	}}
	a.recordChange(urn, aspect, s, value)
	if s == nil {
		s = &slot{}
		slots[aspect] = s
	}
	if s.exists {
		s.max++
		w.History = s.max
		w.Previous = s.cur
	}
	s.cur, s.value, s.exists = w.Aspect, decoded, true
	a.pending = append(a.pending, w)
	a.inRound[k] = true
	a.touched[urn].changed[aspect] = true
	a.touched[urn].dirty = true
	a.written++
	a.audit(urn, a.touched[urn].entity.Name, aspect, false)
	return nil
}

// audit notes one change for the audit log.
func (a *applier) audit(urn, entity, aspect string, deleted bool) {
	if len(a.svc.auditors) > 0 || a.svc.observer != nil {
		key := a.touched[urn] != nil && a.touched[urn].entity.KeyAspect == aspect
		a.changes = append(a.changes, Change{URN: urn, EntityType: entity, Aspect: aspect, Deleted: deleted, Key: key})
	}
}

func (a *applier) flush(ctx context.Context) error {
	if a.planning {
		if len(a.pending) > 0 {
			a.rounds = append(a.rounds, a.pending)
			a.pending = nil
			clear(a.inRound)
		}
		return nil
	}
	for _, r := range a.rounds {
		if err := a.tx.PutAspects(ctx, r); err != nil {
			return err
		}
	}
	a.rounds = nil
	if len(a.pending) == 0 {
		return nil
	}
	if err := a.tx.PutAspects(ctx, a.pending); err != nil {
		return err
	}
	a.pending = a.pending[:0]
	clear(a.inRound)
	return nil
}

// defaults writes, for an entity seen for the first time, its key aspect and
// the default browsePaths and dataPlatformInstance DataHub derives from the URN.
func (a *applier) defaults(ctx context.Context, urn string, t *touch) error {
	ent := t.entity
	slots := a.state[urn]
	if s := slots[ent.KeyAspect]; s != nil && s.exists {
		return nil
	}
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return err
	}
	key, err := registry.KeyFromURN(ent, u)
	if err != nil {
		return err
	}
	sm := t.sysMD
	if sm == nil {
		sm, _ = systemMetadata(nil, a.now)
	}
	if err := a.putDefault(ctx, urn, ent.KeyAspect, key, sm); err != nil {
		return err
	}
	if a.svc.reg.EntityHasAspect(ent.Name, "browsePaths") && slots["browsePaths"] == nil {
		if p := defaultBrowsePath(ent, key); p != "" {
			if err := a.putDefault(ctx, urn, "browsePaths", map[string]any{"paths": []any{p}}, sm); err != nil {
				return err
			}
		}
	}
	if ent.PlatformField != "" && a.svc.reg.EntityHasAspect(ent.Name, "dataPlatformInstance") && slots["dataPlatformInstance"] == nil {
		if pf, _ := key[ent.PlatformField].(string); pf != "" {
			if !strings.HasPrefix(pf, "urn:") {
				pf = catalog.NewURN("dataPlatform", pf)
			}
			if err := a.putDefault(ctx, urn, "dataPlatformInstance", map[string]any{"platform": pf}, sm); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *applier) putDefault(ctx context.Context, urn, aspect string, v any, sm []byte) error {
	b, err := canonicalJSON(v)
	if err != nil {
		return err
	}
	if !validStrings(v) {
		// Encoding replaced invalid UTF-8 (from a URN built in Go): v is not
		// what decoding b gives, so readers must decode b.
		v = nil
	}
	return a.put(ctx, urn, aspect, v, b, sm)
}

// validStrings reports whether every string in v is valid UTF-8.
func validStrings(v any) bool {
	switch x := v.(type) {
	case string:
		return utf8.ValidString(x)
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !validStrings(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !validStrings(e) {
				return false
			}
		}
	}
	return true
}

// defaultBrowsePath mirrors DataHub's BrowsePathUtils: datasets browse under
// /<origin>/<platform>/<name split on dots>, other entities under their key parts.
func defaultBrowsePath(ent *catalog.EntitySpec, key map[string]any) string {
	str := func(f string) string { s, _ := key[f].(string); return s }
	platformName := func(s string) string {
		if u, err := catalog.ParseURN(s); err == nil {
			return u.ID()
		}
		return s
	}
	switch ent.Name {
	case "dataset":
		name := strings.ReplaceAll(str("name"), ".", "/")
		return "/" + strings.ToLower(str("origin")) + "/" + platformName(str("platform")) + "/" + strings.TrimPrefix(name, "/")
	case "chart":
		return "/" + str("dashboardTool") + "/" + str("chartId")
	case "dashboard":
		return "/" + str("dashboardTool") + "/" + str("dashboardId")
	case "dataFlow":
		return "/" + str("orchestrator") + "/" + str("cluster") + "/" + str("flowId")
	case "dataJob":
		if fu, err := catalog.ParseURN(str("flow")); err == nil {
			if parts := fu.Parts(); len(parts) == 3 {
				return "/" + parts[0] + "/" + parts[1] + "/" + str("jobId")
			}
		}
	case "mlModel", "mlModelGroup":
		return "/" + strings.ToLower(str("origin")) + "/" + platformName(str("platform")) + "/" + str("name")
	case "mlFeatureTable":
		return "/" + platformName(str("platform")) + "/" + str("name")
	case "mlFeature":
		return "/" + str("featureNamespace") + "/" + str("name")
	case "glossaryTerm":
		return "/" + str("name")
	}
	return ""
}

// edges rewrites the graph edges of every aspect whose latest value changed.
func (a *applier) edges(ctx context.Context) error {
	sets, rest := a.sets, a.order
	if a.planned {
		rest = a.order[a.plannedN:]
	}
	more, err := a.edgeSets(rest)
	if err != nil {
		return err
	}
	sets = append(sets, more...)
	if len(sets) == 0 {
		return nil
	}
	return a.tx.ReplaceEdges(ctx, sets)
}

// edgeSets derives the edges of every aspect of urns whose latest value
// changed.
func (a *applier) edgeSets(urns []string) ([]catalog.EdgeSet, error) {
	var sets []catalog.EdgeSet
	for _, urn := range urns {
		t := a.touched[urn]
		names := make([]string, 0, len(t.changed))
		for n := range t.changed {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			spec := a.svc.reg.Aspect(name)
			if spec == nil || len(spec.Relationships) == 0 {
				continue
			}
			s := a.state[urn][name]
			if s == nil || !s.exists {
				continue
			}
			v := s.value
			if v == nil {
				var err error
				if v, err = decodeJSON(s.cur.Value); err != nil {
					return nil, fmt.Errorf("decode %s of %s: %w", name, urn, err)
				}
			}
			sets = append(sets, catalog.EdgeSet{URN: urn, Aspect: name, Edges: Edges(urn, spec, v, s.cur.Created), Fresh: !s.stored})
		}
	}
	return sets, nil
}

// Edges derives the relationship edges of one aspect value from its spec's
// x-relationship annotations. Values that are not URNs are skipped.
//
// An edge's Created stamp is the annotated createdOn/createdActor when the
// annotation has them, else the aspect's write. What the annotation itself
// says of the edge (createdOn, createdActor, updatedOn, updatedActor, its
// properties and via) is kept in the edge's Properties as EdgeMeta, so that
// lineage can bound edges by the times the source recorded, as DataHub's
// graph does, and tell manual edges (properties.source "UI") apart.
func Edges(urn string, spec *catalog.AspectSpec, v any, created catalog.AuditStamp) []catalog.Edge {
	var out []catalog.Edge
	seen := map[[2]string]bool{}
	for _, rel := range spec.Relationships {
		// The metadata of a destination lives in the same array element as
		// the destination (/upstreams/*/created/time beside
		// /upstreams/*/dataset): walk the elements of the destination
		// path's last array and read both in each, so that an element
		// without metadata does not shift the others'.
		prefix, destRest := splitAtLastStar(rel.Path)
		items := []any{v}
		if prefix != "" {
			items = registry.Extract(v, prefix)
		}
		for _, item := range items {
			meta := edgeMeta(rel, v, item, prefix)
			for _, d := range registry.Extract(item, destRest) {
				dest, ok := d.(string)
				if !ok || !strings.HasPrefix(dest, "urn:") {
					continue
				}
				k := [2]string{rel.Name, dest}
				if seen[k] {
					continue
				}
				seen[k] = true
				e := catalog.Edge{Source: urn, Relationship: rel.Name, Destination: dest, SourceAspect: spec.Name, Created: created}
				if meta.CreatedOn > 0 {
					e.Created.Time = meta.CreatedOn
				}
				if meta.CreatedActor != "" {
					e.Created.Actor = meta.CreatedActor
				}
				if !meta.IsZero() {
					e.Properties, _ = json.Marshal(meta)
				}
				out = append(out, e)
			}
		}
	}
	return out
}

// splitAtLastStar splits a spec path after its last "*" segment: the path
// of the array elements and the rest within each ("" and the path when it
// has no "*").
func splitAtLastStar(path string) (string, string) {
	i := strings.LastIndex(path, "/*")
	if i < 0 || (i+2 < len(path) && path[i+2] != '/') {
		return "", path
	}
	return path[:i+2], path[i+2:]
}

// edgeMeta reads the edge metadata rel annotates for the destinations of
// item, an element at prefix in the aspect value v: paths under the same
// prefix are read in item, others in v when they hold one value.
func edgeMeta(rel catalog.RelationshipSpec, v, item any, prefix string) catalog.EdgeMeta {
	one := func(path string) any {
		if path == "" {
			return nil
		}
		var vs []any
		if prefix != "" && strings.HasPrefix(path, prefix+"/") {
			vs = registry.Extract(item, strings.TrimPrefix(path, prefix))
		} else {
			vs = registry.Extract(v, path)
		}
		if len(vs) != 1 {
			return nil
		}
		return vs[0]
	}
	var m catalog.EdgeMeta
	m.CreatedOn = positiveMillis(one(rel.CreatedOn))
	m.CreatedActor, _ = one(rel.CreatedActor).(string)
	m.UpdatedOn = positiveMillis(one(rel.UpdatedOn))
	m.UpdatedActor, _ = one(rel.UpdatedActor).(string)
	if props, ok := one(rel.Properties).(map[string]any); ok {
		for k, pv := range props {
			if s, ok := pv.(string); ok {
				if m.Properties == nil {
					m.Properties = map[string]string{}
				}
				m.Properties[k] = s
			}
		}
	}
	m.Via, _ = one(rel.Via).(string)
	return m
}

// positiveMillis is v as a time in milliseconds, 0 when it is not a
// positive number (DataHub treats a 0 edge time as none).
func positiveMillis(v any) int64 {
	n, ok := v.(json.Number)
	if !ok {
		return 0
	}
	ms, err := n.Int64()
	if err != nil || ms <= 0 {
		return 0
	}
	return ms
}
