package ingest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Rollback asks Service.Rollback to undo an ingestion run.
type Rollback struct {
	RunID string
	// DryRun reports what the rollback would do, writing nothing.
	DryRun bool
	// HardDelete removes the entities the run created with every aspect
	// (including those other runs wrote since); without it they are
	// soft-deleted (status removed) and keep their key.
	HardDelete bool
}

// RunRow is one latest aspect of a run.
type RunRow struct {
	catalog.Aspect
	Key bool // the aspect is its entity's key aspect
}

// RollbackResult is what a rollback did, or would do when dry, counted as
// DataHub's RollbackResponse counts it.
type RollbackResult struct {
	// Rows are the first MaxRollbackRows latest aspects of the run, in
	// (urn, aspect) order, without key aspects when entities are only
	// soft-deleted.
	Rows []RunRow
	// EntitiesAffected counts the entities with an aspect rolled back
	// (when dry, with an aspect of the run).
	EntitiesAffected int64
	// AspectsReverted counts the aspects rolled back, the rows removed
	// with the entities hard-deleted and the timeseries values of the run
	// removed.
	AspectsReverted int64
	// EntitiesDeleted counts the entities the run created (whose key it
	// wrote).
	EntitiesDeleted int64
	// AspectsAffected counts the aspects other runs wrote to the entities
	// the run created (but key and status aspects), which go with them on
	// a hard delete and are hidden by a soft one; UnsafeEntities are
	// those entities.
	AspectsAffected int64
	UnsafeEntities  []string
}

// MaxRollbackRows bounds RollbackResult.Rows, as DataHub bounds its row
// summaries.
const MaxRollbackRows = 100

// The status DataHub gives an execution request whose run was rolled back.
const rolledBackStatus = "ROLLED_BACK"

// Rollback undoes the writes of one ingestion run (the runId of the
// aspects' system metadata), as one transaction through the write path:
// of each latest aspect the run wrote, the run's versions go and the
// newest earlier version another run wrote is the latest again; an aspect
// only the run wrote is removed; an entity the run created is soft-deleted
// (status removed) or, with HardDelete, removed; the run's timeseries
// values are removed. Edges, search documents, the audit log and the
// event stream change with the aspects. actor needs the privilege to
// delete every entity the run wrote. A run that wrote
// nothing (an unknown run id) rolls back nothing; the default run id of
// writers that name no run is refused, as it names no run. The execution
// request of a managed ingestion run (whose URN or id is the run id) is
// marked rolled back.
func (s *Service) Rollback(ctx context.Context, actor string, o Rollback) (RollbackResult, error) {
	switch o.RunID {
	case "":
		return RollbackResult{}, catalog.Errorf(catalog.Invalid, "runId is required")
	case DefaultRunID:
		return RollbackResult{}, catalog.Errorf(catalog.Invalid, "%s is the run id of writes that name no run: it cannot be rolled back", DefaultRunID)
	}
	if actor == "" {
		actor = catalog.SystemActor
	}
	q := catalog.RunAspectQuery{RunID: o.RunID, IncludeSoftDeleted: o.HardDelete}
	if s.authorizer != nil {
		// Checked before the transaction, as every write is; the
		// transaction below rolls back only what it reads again.
		rows, err := s.store.RunAspects(ctx, q)
		if err != nil {
			return RollbackResult{}, err
		}
		if err := s.authorizer.AuthorizeChanges(ctx, actor, s.entityDeletions(rows)); err != nil {
			return RollbackResult{}, err
		}
	}
	var res RollbackResult
	var changes []Change
	err := s.store.Update(ctx, func(tx catalog.Tx) error {
		rows, err := tx.RunAspects(ctx, q)
		if err != nil {
			return err
		}
		if s.authorizer != nil {
			// Rows the run wrote since the check are checked too.
			if err := s.authorizer.AuthorizeChanges(ctx, actor, s.entityDeletions(rows)); err != nil {
				return err
			}
		}
		urns := make([]string, 0, len(rows))
		for _, r := range rows {
			if len(urns) == 0 || urns[len(urns)-1] != r.URN {
				urns = append(urns, r.URN)
			}
		}
		request := executionRequestOf(o.RunID)
		cur, err := tx.Current(ctx, append(slices.Clone(urns), request))
		if err != nil {
			return err
		}
		res = s.summarize(rows, cur, o)
		if o.DryRun {
			return nil
		}
		a := s.newApplier(tx, actor, s.now().UnixMilli(), len(rows), len(rows))
		a.state = make(map[string]map[string]*slot, len(urns)+1)
		a.inRound = make(map[[2]string]bool)
		a.touched = make(map[string]*touch, len(urns)+1)
		for _, u := range append(urns, request) {
			m := make(map[string]*slot)
			for name, c := range cur[u] {
				m[name] = &slot{cur: c.Aspect, max: c.MaxVersion, exists: true, stored: true}
			}
			a.state[u] = m
		}
		reverted, extra, affected := 0, 0, map[string]bool{}
		// Keys last: an entity is deleted once its other aspects are
		// rolled back.
		ordered := slices.Clone(rows)
		slices.SortStableFunc(ordered, func(x, y catalog.Aspect) int {
			return boolOrder(s.isKey(x)) - boolOrder(s.isKey(y))
		})
		for _, r := range ordered {
			n, err := a.revert(ctx, r, o)
			if err != nil {
				return err
			}
			if n > 0 {
				reverted++
				extra += n - 1
				affected[r.URN] = true
			}
		}
		n, err := a.revertTimeseries(ctx, o.RunID)
		if err != nil {
			return err
		}
		res.AspectsReverted = int64(reverted + extra + n)
		res.EntitiesAffected = int64(len(affected))
		if err := a.markRolledBack(ctx, request); err != nil {
			return err
		}
		if _, err := a.write(ctx); err != nil {
			return err
		}
		changes = a.changes
		return nil
	})
	if s.observer != nil && !o.DryRun {
		if err != nil {
			s.observer.Failed(0, err)
		} else {
			s.observer.Committed(0, changes)
		}
	}
	if err != nil {
		return RollbackResult{}, catalog.WithOp("rollback run "+o.RunID, err)
	}
	return res, nil
}

func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isKey reports whether a is its entity's key aspect.
func (s *Service) isKey(a catalog.Aspect) bool {
	u, err := catalog.ParseURN(a.URN)
	if err != nil {
		return false
	}
	ent := s.reg.Entity(u.EntityType())
	return ent != nil && ent.KeyAspect == a.Name
}

// entityDeletions are the changes a rollback of rows is authorized as:
// the deletion of each of their entities, as DataHub checks it.
func (s *Service) entityDeletions(rows []catalog.Aspect) []Change {
	var out []Change
	for i, r := range rows {
		if i > 0 && rows[i-1].URN == r.URN {
			continue
		}
		c := Change{URN: r.URN, Deleted: true, Key: true}
		if u, err := catalog.ParseURN(r.URN); err == nil {
			c.EntityType = u.EntityType()
			if ent := s.reg.Entity(c.EntityType); ent != nil {
				c.EntityType, c.Aspect = ent.Name, ent.KeyAspect
			}
		}
		out = append(out, c)
	}
	return out
}

// summarize counts what rolling back rows (the run's latest aspects, in
// URN order) does, from the state cur of their entities, as a dry run
// reports it; a real rollback then replaces the counts of what it did.
func (s *Service) summarize(rows []catalog.Aspect, cur map[string]map[string]catalog.Current, o Rollback) RollbackResult {
	var res RollbackResult
	reverted := int64(0)
	for i, r := range rows {
		key := s.isKey(r)
		if i == 0 || rows[i-1].URN != r.URN {
			res.EntitiesAffected++
		}
		if key {
			res.EntitiesDeleted++
		}
		if key && !o.HardDelete {
			continue
		}
		reverted++
		if len(res.Rows) < MaxRollbackRows {
			res.Rows = append(res.Rows, RunRow{Aspect: r, Key: key})
		}
	}
	res.AspectsReverted = reverted
	for _, r := range rows {
		if !s.isKey(r) {
			continue
		}
		unsafe := false
		names := make([]string, 0, len(cur[r.URN]))
		for name := range cur[r.URN] {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			c := cur[r.URN][name]
			if name == r.Name || name == "status" || runIDOf(c.SystemMetadata) == o.RunID {
				continue
			}
			res.AspectsAffected++
			unsafe = true
		}
		if unsafe {
			res.UnsafeEntities = append(res.UnsafeEntities, r.URN)
		}
	}
	return res
}

// executionRequestOf is the URN of the execution request of a managed
// ingestion run: the run id itself when it is that URN (the run_id the
// recipe of a managed run gets), else the request whose id it is.
func executionRequestOf(runID string) string {
	const prefix = "urn:li:dataHubExecutionRequest:"
	if strings.HasPrefix(runID, prefix) {
		return runID
	}
	return catalog.NewURN("dataHubExecutionRequest", runID)
}

// runIDOf is the runId of system metadata, "" when it has none.
func runIDOf(sysMD []byte) string {
	var m struct {
		RunID string `json:"runId"`
	}
	_ = json.Unmarshal(sysMD, &m)
	return m.RunID
}

// revert rolls back one latest aspect of the run and notes the change for
// the rest of the write (edges, documents, audit, events). It returns the
// number of rows rolled back: 0 when the aspect was not the run's any
// more, or it is a key kept by a soft delete; 1, plus those removed with
// the entity when its key goes with HardDelete.
func (a *applier) revert(ctx context.Context, r catalog.Aspect, o Rollback) (int, error) {
	u, err := catalog.ParseURN(r.URN)
	if err != nil {
		return 0, err
	}
	ent := a.svc.reg.Entity(u.EntityType())
	if ent == nil {
		return 0, catalog.Errorf(catalog.Invalid, "unknown entity type %q in URN %s", u.EntityType(), r.URN)
	}
	key := r.Name == ent.KeyAspect
	t := a.touch(r.URN, ent)
	slots := a.state[r.URN]
	// A key is never removed alone: without another version to go back
	// to, the entity is deleted or soft-deleted.
	rev, err := a.tx.RevertAspect(ctx, r.URN, r.Name, o.RunID, key)
	if err != nil || !rev.Reverted {
		return 0, err
	}
	old := slots[r.Name]
	switch {
	case rev.Restored:
		a.recordChange(r.URN, r.Name, old, rev.Current.Value)
		slots[r.Name] = &slot{cur: rev.Current, max: rev.MaxVersion, exists: true, stored: true}
		t.changed[r.Name] = true
		t.dirty = true
		a.audit(r.URN, ent.Name, r.Name, false)
		return 1, nil
	case rev.Removed:
		a.recordChange(r.URN, r.Name, old, nil)
		delete(slots, r.Name)
		delete(t.changed, r.Name)
		t.dirty = true
		a.audit(r.URN, ent.Name, r.Name, true)
		return 1, nil
	case !o.HardDelete:
		if !a.svc.reg.EntityHasAspect(ent.Name, "status") {
			return 0, nil
		}
		sm, err := systemMetadata(nil, a.now)
		if err != nil {
			return 0, err
		}
		return 0, a.putDefault(ctx, r.URN, "status", map[string]any{"removed": true}, sm)
	}
	if err := a.flush(ctx); err != nil {
		return 0, err
	}
	rows, tsRows, err := a.tx.DeleteEntity(ctx, r.URN)
	if err != nil {
		return 0, err
	}
	a.audit(r.URN, ent.Name, r.Name, true)
	if old == nil || !old.exists {
		old = &slot{cur: catalog.Aspect{Value: json.RawMessage("{}")}, exists: true}
	}
	a.recordChange(r.URN, r.Name, old, nil)
	a.state[r.URN] = map[string]*slot{}
	t.deleted, t.dirty = true, true
	t.changed = map[string]bool{}
	return max(1, rows+tsRows), nil
}

// revertTimeseries removes the timeseries values the run wrote, as DataHub
// does, and has the documents of their entities rebuilt (they may show
// latest values). It returns how many values went.
func (a *applier) revertTimeseries(ctx context.Context, runID string) (int, error) {
	urns, n, err := a.tx.DeleteRunTimeseries(ctx, runID)
	if err != nil || n == 0 {
		return n, err
	}
	var unread []string
	for _, u := range urns {
		if a.state[u] == nil {
			unread = append(unread, u)
		}
	}
	cur, err := a.tx.Current(ctx, unread)
	if err != nil {
		return 0, err
	}
	for _, u := range unread {
		m := make(map[string]*slot)
		for name, c := range cur[u] {
			m[name] = &slot{cur: c.Aspect, max: c.MaxVersion, exists: true, stored: true}
		}
		a.state[u] = m
	}
	for _, u := range urns {
		parsed, err := catalog.ParseURN(u)
		if err != nil {
			continue
		}
		if ent := a.svc.reg.Entity(parsed.EntityType()); ent != nil {
			a.touch(u, ent).dirty = true
		}
	}
	return n, nil
}

// markRolledBack sets the status of the execution request request, when
// it exists, to rolled back.
func (a *applier) markRolledBack(ctx context.Context, request string) error {
	const aspect = "dataHubExecutionRequestResult"
	s := a.state[request][aspect]
	if s == nil || !s.exists {
		return nil
	}
	v, err := decodeJSON(s.cur.Value)
	if err != nil {
		return err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	m["status"] = rolledBackStatus
	canon, err := canonicalJSON(m)
	if err != nil {
		return err
	}
	ent := a.svc.reg.Entity("dataHubExecutionRequest")
	if ent == nil {
		return nil
	}
	a.touch(request, ent)
	sm, err := systemMetadata(nil, a.now)
	if err != nil {
		return err
	}
	return a.put(ctx, request, aspect, m, canon, sm)
}
